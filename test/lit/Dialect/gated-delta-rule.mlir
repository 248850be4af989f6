// RUN: ssm-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: ssm-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | ssm-opt -split-input-file | FileCheck %s

// ssm.gated_delta_rule (Gated DeltaNet, KDA): round trip of its forms (scalar
// gate with an initial state and more value heads than key heads; a gate per
// key channel, no initial state, a symbolic length) and the verifier's
// messages, which name the operand and the shape it must have.

// CHECK-LABEL: func.func @gdn_state(
func.func @gdn_state(%q: tensor<1x16x2x8xf32>, %v: tensor<1x16x4x6xf32>, %g: tensor<1x16x4xf32>,
                     %s0: tensor<1x4x8x6xf32>) -> (tensor<1x16x4x6xf32>, tensor<1x4x8x6xf32>) {
  // CHECK: ssm.gated_delta_rule %arg0, %arg0, %arg1, %arg2, %arg2 initial_state(%arg3) {scale = 1.250000e-01 : f64} : (tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x4x6xf32>, tensor<1x16x4xf32>, tensor<1x16x4xf32>, tensor<1x4x8x6xf32>) -> (tensor<1x16x4x6xf32>, tensor<1x4x8x6xf32>)
  %o, %s1 = ssm.gated_delta_rule %q, %q, %v, %g, %g initial_state(%s0) {scale = 0.125 : f64}
      : (tensor<1x16x2x8xf32>, tensor<1x16x2x8xf32>, tensor<1x16x4x6xf32>, tensor<1x16x4xf32>,
         tensor<1x16x4xf32>, tensor<1x4x8x6xf32>) -> (tensor<1x16x4x6xf32>, tensor<1x4x8x6xf32>)
  return %o, %s1 : tensor<1x16x4x6xf32>, tensor<1x4x8x6xf32>
}

// -----

// CHECK-LABEL: func.func @kda_dynamic(
func.func @kda_dynamic(%q: tensor<2x?x3x4xf32>, %v: tensor<2x?x3x5xf32>, %g: tensor<2x?x3x4xf32>,
                       %beta: tensor<2x?x3xf32>) -> tensor<2x3x4x5xf32> {
  // CHECK: ssm.gated_delta_rule %arg0, %arg0, %arg1, %arg2, %arg3 {scale = 5.000000e-01 : f64} : (
  %o, %s = ssm.gated_delta_rule %q, %q, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<2x?x3x4xf32>, tensor<2x?x3x4xf32>, tensor<2x?x3x5xf32>, tensor<2x?x3x4xf32>,
         tensor<2x?x3xf32>) -> (tensor<2x?x3x5xf32>, tensor<2x3x4x5xf32>)
  return %s : tensor<2x3x4x5xf32>
}

// -----

func.func @q_rank(%q: tensor<3x2x4xf32>, %k: tensor<3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'q' has shape (3, 2, 4) but must be rank 4 (batch, L, Hk, Dk)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<3x2x4xf32>, tensor<3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @k_shape(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x5xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'k' has shape (1, 3, 2, 5) but must be the shape of 'q' (batch, L, Hk, Dk) = (1, 3, 2, 4)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x5xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @v_rank(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'v' has shape (1, 3, 4) but must be rank 4 (batch, L, Hv, Dv)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @v_length(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x2x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'v' has shape (1, 2, 4, 5) but must be (batch, L, Hv, Dv) = (1, 3, 4, 5)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x2x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @gqa_ratio(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x3x5xf32>, %g: tensor<1x3x3xf32>, %beta: tensor<1x3x3xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'v' has 3 value heads, which is not a multiple of the 2 key heads of 'q' and 'k' (key head i serves value heads i*r .. i*r+r-1)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x3x5xf32>, tensor<1x3x3xf32>, tensor<1x3x3xf32>)
      -> (tensor<1x3x3x5xf32>, tensor<1x3x4x5xf32>)
  return
}

// -----

func.func @g_rank(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'g' has shape (3, 4) but must be rank 3 (batch, L, Hv): one log decay per value head, or rank 4 (batch, L, Hv, Dk): one per key channel}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @g_heads(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x2xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'g' has shape (1, 3, 2) but must be (batch, L, Hv) (one log decay per value head per token) = (1, 3, 4)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<1x3x2xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @g_channels(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4x5xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'g' has shape (1, 3, 4, 5) but must be (batch, L, Hv, Dk) (one log decay per key channel per token) = (1, 3, 4, 4)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @beta_shape(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x2xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'beta' has shape (1, 3, 2) but must be (batch, L, Hv) = (1, 3, 4)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x2xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @state_shape(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>, %s0: tensor<1x4x5x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'initial_state' has shape (1, 4, 5, 4) but must be (batch, Hv, Dk, Dv) = (1, 4, 4, 5)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta initial_state(%s0) {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>, tensor<1x4x5x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @scale_zero(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op 'scale' is 0.000000e+00 but must be positive and finite}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.0 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @out_shape(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op result 'out' has shape (1, 3, 2, 5) but must be (batch, L, Hv, Dv) = (1, 3, 4, 5)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x2x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @final_state_shape(%q: tensor<1x3x2x4xf32>, %k: tensor<1x3x2x4xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op result 'final_state' has shape (1, 4, 5, 5) but must be (batch, Hv, Dk, Dv) = (1, 4, 4, 5)}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x4xf32>, tensor<1x3x2x4xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x5x5xf32>)
  return
}

// -----

func.func @empty(%q: tensor<1x0x2x4xf32>, %k: tensor<1x0x2x4xf32>, %v: tensor<1x0x4x5xf32>, %g: tensor<1x0x4xf32>, %beta: tensor<1x0x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op the sequence length (dim 1 of 'q') is 0; a scan needs at least one step}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x0x2x4xf32>, tensor<1x0x2x4xf32>, tensor<1x0x4x5xf32>, tensor<1x0x4xf32>, tensor<1x0x4xf32>)
      -> (tensor<1x0x4x5xf32>, tensor<1x4x4x5xf32>)
  return
}

// -----

func.func @no_keys(%q: tensor<1x3x2x0xf32>, %k: tensor<1x3x2x0xf32>, %v: tensor<1x3x4x5xf32>, %g: tensor<1x3x4xf32>, %beta: tensor<1x3x4xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand 'q' has key head size Dk = 0; the state (Dk, Dv) needs at least one key row}}
  %o, %s = ssm.gated_delta_rule %q, %k, %v, %g, %beta {scale = 0.5 : f64}
      : (tensor<1x3x2x0xf32>, tensor<1x3x2x0xf32>, tensor<1x3x4x5xf32>, tensor<1x3x4xf32>, tensor<1x3x4xf32>)
      -> (tensor<1x3x4x5xf32>, tensor<1x4x0x5xf32>)
  return
}

// -----

func.func @f64(%x: tensor<1x3x2x4xf64>, %g: tensor<1x3x2xf32>) {
  // expected-error @+1 {{'ssm.gated_delta_rule' op operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<1x3x2x4xf64>'}}
  %o, %s = ssm.gated_delta_rule %x, %x, %x, %g, %g {scale = 1.0 : f64}
      : (tensor<1x3x2x4xf64>, tensor<1x3x2x4xf64>, tensor<1x3x2x4xf64>, tensor<1x3x2xf32>,
         tensor<1x3x2xf32>) -> (tensor<1x3x2x4xf32>, tensor<1x2x4x4xf32>)
  return
}
