// RUN: ssm-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: ssm-opt %s -split-input-file -verify-diagnostics --mlir-print-op-generic | ssm-opt -split-input-file | FileCheck %s

// ssm.attention and ssm.rope: round trip of their forms and the verifiers'
// messages, which name the operand and the shape it must have.

// CHECK-LABEL: func.func @attention_gqa(
func.func @attention_gqa(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %kc: tensor<1x128x2x16xf32>,
                         %pos: tensor<1xi32>) -> tensor<1x8x4x16xf32> {
  // CHECK: ssm.attention %arg0, %arg1, %arg1, %arg2, %arg2, %arg3 {scale = 2.500000e-01 : f64}
  %o, %kc1, %vc1 = ssm.attention %q, %k, %k, %kc, %kc, %pos {scale = 0.25 : f64}
      : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>,
         tensor<1x128x2x16xf32>, tensor<1x128x2x16xf32>, tensor<1xi32>)
      -> (tensor<1x8x4x16xf32>, tensor<1x128x2x16xf32>, tensor<1x128x2x16xf32>)
  return %o : tensor<1x8x4x16xf32>
}

// -----

// CHECK-LABEL: func.func @rope_forms(
func.func @rope_forms(%x: tensor<2x3x4x16xf32>, %pos: tensor<2xi32>) -> tensor<2x3x4x16xf32> {
  // CHECK: ssm.rope neox %arg0, %arg1 {rotary_dim = 8 : i64, theta = 1.000000e+06 : f64}
  %a = ssm.rope neox %x, %pos {theta = 1.0e6 : f64, rotary_dim = 8 : i64}
      : (tensor<2x3x4x16xf32>, tensor<2xi32>) -> tensor<2x3x4x16xf32>
  // CHECK: ssm.rope normal
  %b = ssm.rope normal %a, %pos {theta = 1.0e4 : f64, rotary_dim = 16 : i64}
      : (tensor<2x3x4x16xf32>, tensor<2xi32>) -> tensor<2x3x4x16xf32>
  return %b : tensor<2x3x4x16xf32>
}

// -----

func.func @attention_groups(%q: tensor<1x8x3x16xf32>, %k: tensor<1x8x2x16xf32>, %kc: tensor<1x128x2x16xf32>,
                            %pos: tensor<1xi32>) {
  // expected-error @+1 {{'ssm.attention' op operand 'q' has 3 heads, which is not a multiple of the 2 KV heads of 'k' (grouped-query attention)}}
  %o, %kc1, %vc1 = ssm.attention %q, %k, %k, %kc, %kc, %pos {scale = 0.25 : f64}
      : (tensor<1x8x3x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>,
         tensor<1x128x2x16xf32>, tensor<1x128x2x16xf32>, tensor<1xi32>)
      -> (tensor<1x8x3x16xf32>, tensor<1x128x2x16xf32>, tensor<1x128x2x16xf32>)
  return
}

// -----

func.func @attention_cache_shape(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %kc: tensor<1x128x2x8xf32>,
                                 %pos: tensor<1xi32>) {
  // expected-error @+1 {{'ssm.attention' op operand 'k_cache' has shape (1, 128, 2, 8) but must be (batch, C, Hkv, D) = (1, 128, 2, 16)}}
  %o, %kc1, %vc1 = ssm.attention %q, %k, %k, %kc, %kc, %pos {scale = 0.25 : f64}
      : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>,
         tensor<1x128x2x8xf32>, tensor<1x128x2x8xf32>, tensor<1xi32>)
      -> (tensor<1x8x4x16xf32>, tensor<1x128x2x8xf32>, tensor<1x128x2x8xf32>)
  return
}

// -----

func.func @attention_too_long(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %kc: tensor<1x4x2x16xf32>,
                              %pos: tensor<1xi32>) {
  // expected-error @+1 {{'ssm.attention' op operand 'q' has 8 tokens but the caches hold only C = 4 positions}}
  %o, %kc1, %vc1 = ssm.attention %q, %k, %k, %kc, %kc, %pos {scale = 0.25 : f64}
      : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>,
         tensor<1x4x2x16xf32>, tensor<1x4x2x16xf32>, tensor<1xi32>)
      -> (tensor<1x8x4x16xf32>, tensor<1x4x2x16xf32>, tensor<1x4x2x16xf32>)
  return
}

// -----

func.func @attention_position(%q: tensor<2x8x4x16xf32>, %k: tensor<2x8x2x16xf32>, %kc: tensor<2x128x2x16xf32>,
                              %pos: tensor<1xi32>) {
  // expected-error @+1 {{'ssm.attention' op operand 'position' has shape (1,) but must be (batch) = (2,)}}
  %o, %kc1, %vc1 = ssm.attention %q, %k, %k, %kc, %kc, %pos {scale = 0.25 : f64}
      : (tensor<2x8x4x16xf32>, tensor<2x8x2x16xf32>, tensor<2x8x2x16xf32>,
         tensor<2x128x2x16xf32>, tensor<2x128x2x16xf32>, tensor<1xi32>)
      -> (tensor<2x8x4x16xf32>, tensor<2x128x2x16xf32>, tensor<2x128x2x16xf32>)
  return
}

// -----

func.func @attention_window(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %kc: tensor<1x128x2x16xf32>,
                            %pos: tensor<1xi32>) {
  // expected-error @+1 {{'ssm.attention' op 'window' is -1 but must be 0 (no sliding window) or positive}}
  %o, %kc1, %vc1 = ssm.attention %q, %k, %k, %kc, %kc, %pos {scale = 0.25 : f64, window = -1 : i64}
      : (tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32>,
         tensor<1x128x2x16xf32>, tensor<1x128x2x16xf32>, tensor<1xi32>)
      -> (tensor<1x8x4x16xf32>, tensor<1x128x2x16xf32>, tensor<1x128x2x16xf32>)
  return
}

// -----

func.func @rope_odd(%x: tensor<2x3x4x16xf32>, %pos: tensor<2xi32>) {
  // expected-error @+1 {{'ssm.rope' op 'rotary_dim' is 7 but must be even and in 1 .. D = 16 (the channels that rotate, in pairs)}}
  %a = ssm.rope neox %x, %pos {theta = 1.0e6 : f64, rotary_dim = 7 : i64}
      : (tensor<2x3x4x16xf32>, tensor<2xi32>) -> tensor<2x3x4x16xf32>
  return
}

// -----

func.func @rope_theta(%x: tensor<2x3x4x16xf32>, %pos: tensor<2xi32>) {
  // expected-error @+1 {{'ssm.rope' op 'theta' is 0.000000e+00 but must be positive (the base of the rotary frequencies)}}
  %a = ssm.rope neox %x, %pos {theta = 0.0 : f64, rotary_dim = 8 : i64}
      : (tensor<2x3x4x16xf32>, tensor<2xi32>) -> tensor<2x3x4x16xf32>
  return
}
