// Golden cases that must not pass by accident (reference/GoldenCase.cpp,
// runtime/Compare.cpp): negative tolerances are refused (before, any result
// passed with worst=0), zero tolerances keep the CONTRACTS.md line numeric
// (before: worst=inf), and integer or bool files where float32 data belongs
// are refused rather than converted; inputs of the wrong rank are refused
// with a message (before: an SSD case with a rank-3 X read past its shape,
// found by fuzz-case-json).
// REQUIRES: shared-data
// RUN: rm -rf %t && mkdir -p %t
// DEFINE: %{case} = sh -c 'rm -rf %t/$0 && cp -r %shared/golden/conv_w2_nobias %t/$0 && chmod -R u+w %t/$0'
// DEFINE: %{golden} = sh -c 'ssm-run --golden %t/$0; echo "exit=$?"'

// RUN: %{case} negrtol
// RUN: sed -i 's/"rtol": 0.0001/"rtol": -1/' %t/negrtol/case.json
// RUN: %{golden} negrtol 2>&1 | FileCheck %s --check-prefix=NEGRTOL
// NEGRTOL: ssm-run: error: {{.*}}negrtol/case.json: tolerance "rtol" is -1; it must be a finite number >= 0
// NEGRTOL: exit=2
// RUN: %{case} negatol
// RUN: sed -i 's/"atol": 1e-05/"atol": -1e-05/' %t/negatol/case.json
// RUN: %{golden} negatol 2>&1 | FileCheck %s --check-prefix=NEGATOL
// NEGATOL: tolerance "atol" is -1e-05; it must be a finite number >= 0
// NEGATOL: exit=2

// Zero tolerances: the f64 reference is not bit-equal to the f32 expected
// data, so the case fails with the largest double as `worst`.
// RUN: %{case} zero
// RUN: sed -i -e 's/"rtol": 0.0001/"rtol": 0/' -e 's/"atol": 1e-05/"atol": 0/' %t/zero/case.json
// RUN: %{golden} zero 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: out max_abs={{[0-9.e+-]+}} max_rel={{[0-9.e+-]+}} worst=1.79769e+308 FAIL
// ZERO-NOT: inf
// ZERO: exit=1

// An int32, a bool and a float64 file for float32 data.
// RUN: %{case} int
// RUN: python3 %S/Inputs/npy_astype.py %shared/golden/conv_w2_nobias/inputs/weight.npy %t/int/inputs/weight.npy '<i4'
// RUN: %{golden} int 2>&1 | FileCheck %s --check-prefix=INT
// INT: ssm-run: error: {{.*}}int/inputs/weight.npy: dtype '<i4', but golden inputs and outputs are float32 (or float64)
// INT: exit=2
// RUN: %{case} bool
// RUN: python3 %S/Inputs/npy_astype.py %shared/golden/conv_w2_nobias/expected/out.npy %t/bool/expected/out.npy '|b1'
// RUN: %{golden} bool 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: bool/expected/out.npy: dtype '|b1', but golden inputs and outputs are float32
// BOOL: exit=2
// RUN: %{case} f64
// RUN: python3 %S/Inputs/npy_astype.py %shared/golden/conv_w2_nobias/inputs/x.npy %t/f64/inputs/x.npy '<f8'
// RUN: %{golden} f64 2>&1 | FileCheck %s --check-prefix=F64
// F64: f64/inputs/x.npy: dtype float64 but case.json says float32
// F64: exit=2

// The unmodified case still passes.
// RUN: %{case} plain
// RUN: %{golden} plain 2>&1 | FileCheck %s --check-prefix=PLAIN
// PLAIN: out max_abs={{.*}} PASS
// PLAIN: exit=0

// An SSD case whose X has rank 3, and a selective scan whose u has rank 2.
// RUN: rm -rf %t/ssd3 && cp -r %shared/golden/ssd_4chunks %t/ssd3 && chmod -R u+w %t/ssd3
// RUN: python3 %S/Inputs/npy_reshape.py %t/ssd3 inputs/X.npy 1,256,8
// RUN: %{golden} ssd3 2>&1 | FileCheck %s --check-prefix=SSD3
// SSD3: ssm-run: error: {{.*}}ssd3/case.json: X must be (batch, L, heads, head_dim) and B (batch, L, groups, dstate)
// SSD3: exit=2
// RUN: rm -rf %t/ss2 && cp -r %shared/golden/ss_len1_no_extras %t/ss2 && chmod -R u+w %t/ss2
// RUN: python3 %S/Inputs/npy_reshape.py %t/ss2 inputs/u.npy 1,3
// RUN: %{golden} ss2 2>&1 | FileCheck %s --check-prefix=SS2
// SS2: ssm-run: error: {{.*}}ss2/case.json: u must be (batch, channels, L) or (batch, L, channels) and A (channels, dstate)
// SS2: exit=2
