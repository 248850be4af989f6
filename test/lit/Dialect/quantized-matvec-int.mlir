// The decode matvec of a q8 weight (ssm.dequantize of int8 blocks) times a
// row rounded by ssm.quantize_activations: on x86 CPU targets with 16-lane
// vectors the compiled kernel multiplies the activation's int8 codes by the
// weight's int8 codes in integers (vpmaddwd, one int32 sum per 32 elements
// and row) and scales each block's sum by the two scales
// (codegen/lowerings/Matmul.cpp, ActivationBlocks.h). Checked on both
// engines against NumPy's float64 block sums written from ggml's definitions
// (Inputs/quantized_matvec.py): Q8_0-style weights with q8_0 activations,
// Q4_K-style weights with mins and q8_K activations, Q6_K-style weights in
// blocks of 16 (two per vpmaddwd vector) and q8_K activations; a zero block and a
// block whose 127 / amax overflows (0). Tolerance: rtol 1e-5, atol 2e-3 on
// results up to 1.5e4 (f32 rounding of the sums; measured: reference 4.9e-4,
// cpu 9.8e-4); a block summed against the wrong codes or scaled by the wrong
// scale is off by 1 to 1e3. The STMT lines check that an AVX-512 target
// takes the integer path (its stage and the vector_reduce of int16
// products Halide turns into vpmaddwd).
// REQUIRES: numpy, ssm-run
// RUN: rm -rf %t && mkdir -p %t
// RUN: %numpy_python %S/Inputs/quantized_matvec.py %t
// RUN: ssm-run %s --input %t/x.npy --input %t/q.npy --input %t/s.npy --input %t/q4.npy --input %t/s4.npy --input %t/m4.npy --input %t/q6.npy --input %t/s6.npy --expected %t/r0.npy --expected %t/r1.npy --expected %t/r2.npy --rtol 1e-5 --atol 2e-3 | FileCheck %s
// RUN: env SSM_CACHE_DIR=%cache ssm-run %s --engine cpu --input %t/x.npy --input %t/q.npy --input %t/s.npy --input %t/q4.npy --input %t/s4.npy --input %t/m4.npy --input %t/q6.npy --input %t/s6.npy --expected %t/r0.npy --expected %t/r1.npy --expected %t/r2.npy --rtol 1e-5 --atol 2e-3 | FileCheck %s
// RUN: ssm-compile %s --target x86-64-linux-avx512_cannonlake --emit-stmt -o %t/avx512
// RUN: FileCheck --check-prefix=STMT %s < %t/avx512/ssm_main.stmt
// CHECK: result0 {{.*}} PASS
// CHECK: result1 {{.*}} PASS
// CHECK: result2 {{.*}} PASS
// STMT-COUNT-3: produce mm_isum
// STMT: vector_reduce(Add, (int32x32)widening_mul((int16x32)

func.func @main(%x: tensor<1x512xf32>, %q: tensor<40x512xi8>, %s: tensor<40x16xf32>,
                %q4: tensor<40x512xi8>, %s4: tensor<40x16xf32>, %m4: tensor<40x16xf32>,
                %q6: tensor<40x512xi8>, %s6: tensor<40x32xf32>)
    -> (tensor<1x40xf32>, tensor<1x40xf32>, tensor<1x40xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x40xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<1x40xf32>) -> tensor<1x40xf32>
  %w = ssm.dequantize %q, %s : (tensor<40x512xi8>, tensor<40x16xf32>) -> tensor<40x512xf32>
  %a = ssm.quantize_activations %x {format = "q8_0"} : tensor<1x512xf32>
  %r0 = linalg.matmul_transpose_b ins(%a, %w : tensor<1x512xf32>, tensor<40x512xf32>) outs(%z : tensor<1x40xf32>) -> tensor<1x40xf32>
  %w4 = ssm.dequantize %q4, %s4 min %m4 : (tensor<40x512xi8>, tensor<40x16xf32>, tensor<40x16xf32>) -> tensor<40x512xf32>
  %a4 = ssm.quantize_activations %x {format = "q8_K"} : tensor<1x512xf32>
  %r1 = linalg.matmul_transpose_b ins(%a4, %w4 : tensor<1x512xf32>, tensor<40x512xf32>) outs(%z : tensor<1x40xf32>) -> tensor<1x40xf32>
  %w6 = ssm.dequantize %q6, %s6 {block_size = 16 : i64} : (tensor<40x512xi8>, tensor<40x32xf32>) -> tensor<40x512xf32>
  %r2 = linalg.matmul_transpose_b ins(%a4, %w6 : tensor<1x512xf32>, tensor<40x512xf32>) outs(%z : tensor<1x40xf32>) -> tensor<1x40xf32>
  return %r0, %r1, %r2 : tensor<1x40xf32>, tensor<1x40xf32>, tensor<1x40xf32>
}
