// ssm-import on bad input: a message naming the tensor or byte offset and
// CONTRACTS.md's exit status 2 (could not run), never a signal; nothing is
// written. Bad files are edits of the tiny RWKV-4 model (Inputs/rwkv_edit.py).
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// RUN: cp %shared/models/rwkv/tiny-rwkv-4v0-660K-FP32.bin %t/good.bin

// --help exits 0 and names both formats.
// RUN: ssm-import --help | FileCheck %s --check-prefix=HELP
// HELP: ssm-import rwkv <model.bin> -o <dir> [--force] [--seq-len N]
// HELP: ssm-import mamba <model.safetensors> [--config <config.json>] -o <dir>

// Usage errors.
// RUN: sh -c 'ssm-import; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOFORMAT
// NOFORMAT: error: no format given
// NOFORMAT: exit=2
// RUN: sh -c 'ssm-import onnx %t/good.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FORMAT
// FORMAT: unknown format 'onnx' (known: rwkv, mamba, or a checkpoint folder with config.json)
// FORMAT: exit=2
// RUN: sh -c 'ssm-import rwkv %t/good.bin; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=NOOUT
// NOOUT: no output directory
// NOOUT: exit=2
// RUN: sh -c 'ssm-import rwkv %t/good.bin -o %t/x --seq-len 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SEQLEN
// SEQLEN: --seq-len takes integers from 1 to 1048576 (N or N,M,...), got '0'
// SEQLEN: exit=2
// RUN: sh -c 'ssm-import rwkv %t/good.bin -o %t/x --frobnicate; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: unknown option '--frobnicate'
// OPT: exit=2
// RUN: sh -c 'ssm-import rwkv %t/missing.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: missing.bin: no such file
// MISSING: exit=2
// RUN: mkdir -p %t/adir
// RUN: sh -c 'ssm-import rwkv %t/adir -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=ISDIR
// ISDIR: adir: is a directory, not an rwkv.cpp model file
// ISDIR: exit=2

// Truncated inside a tensor's data: names the tensor and the offsets.
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/trunc.bin --truncate 1000000
// RUN: sh -c 'ssm-import rwkv %t/trunc.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=TRUNC
// TRUNC: trunc.bin: truncated: tensor '{{[a-z0-9_.]+}}' at byte offset {{[0-9]+}} needs {{[0-9]+}} bytes of data from byte offset {{[0-9]+}}, but only {{[0-9]+}} remain
// TRUNC: exit=2
// Truncated inside the header.
// RUN: head -c 13 %t/good.bin > %t/short.bin
// RUN: sh -c 'ssm-import rwkv %t/short.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: short.bin: truncated: 13 bytes, but the rwkv.cpp header takes 24 bytes
// SHORT: exit=2

// Wrong magic.
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/magic.bin --magic 0x67676a74
// RUN: sh -c 'ssm-import rwkv %t/magic.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=MAGIC
// MAGIC: magic.bin: wrong magic 0x67676a74 at byte offset 0
// MAGIC: exit=2

// Quantised: in the header, and per tensor.
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/q.bin --header-type 9
// RUN: sh -c 'ssm-import rwkv %t/q.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=QUANT
// QUANT: q.bin: data type Q8_0 (header byte offset 20) is quantised: only FP32 and FP16 files are supported
// QUANT: exit=2
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/qt.bin --tensor-type emb.weight=2
// RUN: sh -c 'ssm-import rwkv %t/qt.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=QUANTT
// QUANTT: qt.bin: tensor 'emb.weight' at byte offset 24 has data type Q4_0: quantised tensors are not supported
// QUANTT: exit=2

// RWKV-6 and RWKV-7 are recognised by their tensors: a marker alone makes a
// file of that version, which then lacks the version's tensors.
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/v6.bin --add blocks.0.att.time_maa_x=blocks.0.att.time_mix_k
// RUN: sh -c 'ssm-import rwkv %t/v6.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=V6
// V6: v6.bin: missing tensor 'blocks.0.att.time_faaaa' (rwkv6 needs a value per head and channel (heads, head_size))
// V6: exit=2
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/v7.bin --add blocks.0.att.k_k=blocks.0.att.time_mix_k
// RUN: sh -c 'ssm-import rwkv %t/v7.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=V7
// V7: v7.bin: missing tensor 'blocks.0.att.r_k' (rwkv7 needs a value per head and channel (heads, head_size))
// V7: exit=2
// Real RWKV-6/7 files with a tensor dropped, a misshapen adapter, a truncation.
// RUN: python3 %S/Inputs/rwkv_edit.py %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin %t/v7drop.bin --drop blocks.3.att.a2
// RUN: sh -c 'ssm-import rwkv %t/v7drop.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=V7DROP
// V7DROP: v7drop.bin: missing tensor 'blocks.3.att.a2' (rwkv7 needs shape (n_embed, rank))
// V7DROP: exit=2
// RUN: python3 %S/Inputs/rwkv_edit.py %shared/models/rwkv/tiny-rwkv-7v0-834K-FP32.bin %t/v7mix.bin --sizes blocks.0.att.x_rwkvag=64,2,3
// RUN: sh -c 'ssm-import rwkv %t/v7mix.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=V7MIX
// V7MIX: v7mix.bin: tensor 'blocks.0.att.x_rwkvag' (record at byte offset {{[0-9]+}}, rwkv.cpp sizes [64, 2, 3], shape (3, 2, 64)) is misshapen: RWKV-7 needs (6, 1, 64), the mixes of r, w, k, v, a, g
// V7MIX: exit=2
// RUN: python3 %S/Inputs/rwkv_edit.py %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin %t/v6w2.bin --sizes blocks.1.att.time_decay_w2=16,128
// RUN: sh -c 'ssm-import rwkv %t/v6w2.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=V6W2
// V6W2: v6w2.bin: tensor 'blocks.1.att.time_decay_w2' (record at byte offset {{[0-9]+}}, rwkv.cpp sizes [16, 128], shape (128, 16)) is misshapen: rwkv6 with n_embed 64 needs shape (64, 32)
// V6W2: exit=2
// RUN: python3 %S/Inputs/rwkv_edit.py %shared/models/rwkv/tiny-rwkv-6v0-170K-FP32.bin %t/v6cut.bin --truncate 300000
// RUN: sh -c 'ssm-import rwkv %t/v6cut.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=V6CUT
// V6CUT: v6cut.bin: truncated: tensor '{{.*}}' at byte offset
// V6CUT: exit=2

// A missing tensor, a misshapen one, a layer beyond n_layer.
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/drop.bin --drop blocks.2.att.key.weight
// RUN: sh -c 'ssm-import rwkv %t/drop.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DROP
// DROP: drop.bin: missing tensor 'blocks.2.att.key.weight' (rwkv4 needs shape (128, 128))
// DROP: exit=2
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/shape.bin --sizes head.weight=256,128
// RUN: sh -c 'ssm-import rwkv %t/shape.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: shape.bin: tensor 'head.weight' (record at byte offset {{[0-9]+}}, rwkv.cpp sizes [256, 128], shape (128, 256)) is misshapen: rwkv4 with n_embed 128 needs shape (256, 128) (rwkv.cpp sizes [128, 256])
// SHAPE: exit=2
// RUN: python3 %S/Inputs/rwkv_edit.py %t/good.bin %t/layer.bin --add blocks.4.ln1.weight=blocks.3.ln1.weight
// RUN: sh -c 'ssm-import rwkv %t/layer.bin -o %t/x; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=LAYER
// LAYER: layer.bin: tensor 'blocks.4.ln1.weight' (record at byte offset {{[0-9]+}}) belongs to layer 4 but the header says n_layer = 4
// LAYER: exit=2

// Nothing was written by any of the failures above.
// RUN: not ls %t/x

// An existing non-empty directory is refused without --force.
// RUN: mkdir -p %t/full && touch %t/full/keep
// RUN: sh -c 'ssm-import rwkv %t/good.bin -o %t/full; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FULL
// FULL: full: exists and is not empty; pass --force to write into it
// FULL: exit=2
// RUN: ssm-import rwkv %t/good.bin -o %t/full --force | FileCheck %s --check-prefix=FORCE
// FORCE: -> {{.*}}full: rwkv4, n_vocab 256, n_embed 128, n_layer 4, FP32 -> F32, 78 tensors, seq-len 16
// RUN: ls %t/full/keep %t/full/model.mlir %t/full/model.json %t/full/weights.safetensors
