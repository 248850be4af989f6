// RUN: ssm-opt %s | ssm-opt | FileCheck %s
// RUN: ssm-opt %s --mlir-print-op-generic | ssm-opt | FileCheck %s

// Round trip of every op of the ssm dialect, in every form its assembly
// format and verifier allow.

//===----------------------------------------------------------------------===//
// ssm.discretize
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @discretize(
func.func @discretize(%A: tensor<2x4x8xf32>, %B: tensor<2x4x8xf32>, %dt: tensor<2x4x8xf32>,
                      %Ad: tensor<?x8xf32>, %Bd: tensor<?x8xf32>, %dtd: tensor<?x8xf32>)
    -> (tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<?x8xf32>) {
  // CHECK: ssm.discretize %arg0, %arg1, %arg2 methods(zoh, euler) : tensor<2x4x8xf32>
  %a0, %b0 = ssm.discretize %A, %B, %dt methods(zoh, euler) : tensor<2x4x8xf32>
  // CHECK: ssm.discretize %arg0, %arg1, %arg2 methods(bilinear, bilinear) : tensor<2x4x8xf32>
  %a1, %b1 = ssm.discretize %A, %B, %dt methods(bilinear, bilinear) : tensor<2x4x8xf32>
  // CHECK: ssm.discretize %arg0, %arg1, %arg2 methods(zoh, zoh) : tensor<2x4x8xf32>
  %a2, %b2 = ssm.discretize %A, %B, %dt methods(zoh, zoh) : tensor<2x4x8xf32>
  // CHECK: ssm.discretize %arg0, %arg1, %arg2 methods(euler, bilinear) : tensor<2x4x8xf32>
  %a3, %b3 = ssm.discretize %A, %B, %dt methods(euler, bilinear) : tensor<2x4x8xf32>
  // CHECK: ssm.discretize %arg3, %arg4, %arg5 methods(euler, euler) : tensor<?x8xf32>
  %a4, %b4 = ssm.discretize %Ad, %Bd, %dtd methods(euler, euler) : tensor<?x8xf32>
  return %a0, %b1, %a2, %b3, %a4 : tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<2x4x8xf32>, tensor<?x8xf32>
}

//===----------------------------------------------------------------------===//
// ssm.affine_scan
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @affine_scan(
func.func @affine_scan(%a: tensor<4x16xf32>, %b: tensor<4x16xf32>, %h0: tensor<4xf32>,
                       %reset: tensor<4x16xi1>, %abc: tensor<1x16xf32>,
                       %a3: tensor<2x16x8xf32>, %b3: tensor<2x16x8xf32>, %h03: tensor<16x8xf32>,
                       %ad: tensor<?x16xf32>, %bd: tensor<?x16xf32>) {
  // CHECK: ssm.affine_scan %arg0, %arg1 along 1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  %h0_, %l0 = ssm.affine_scan %a, %b along 1 : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  // CHECK: ssm.affine_scan %arg0, %arg1 h0(%arg2) along 1 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  %h1, %l1 = ssm.affine_scan %a, %b h0(%h0) along 1 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  // CHECK: ssm.affine_scan %arg0, %arg1 reset(%arg3) along 1 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xi1>) -> (tensor<4x16xf32>, tensor<4xf32>)
  %h2, %l2 = ssm.affine_scan %a, %b reset(%reset) along 1 : (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xi1>) -> (tensor<4x16xf32>, tensor<4xf32>)
  // CHECK: ssm.affine_scan %arg0, %arg1 along 1 reverse : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  %h3, %l3 = ssm.affine_scan %a, %b along 1 reverse : (tensor<4x16xf32>, tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4xf32>)
  // Broadcast a (size-1 dim), with every optional operand.
  // CHECK: ssm.affine_scan %arg4, %arg1 h0(%arg2) reset(%arg3) along 1 reverse : (tensor<1x16xf32>, tensor<4x16xf32>, tensor<4xf32>, tensor<4x16xi1>) -> (tensor<4x16xf32>, tensor<4xf32>)
  %h4, %l4 = ssm.affine_scan %abc, %b h0(%h0) reset(%reset) along 1 reverse : (tensor<1x16xf32>, tensor<4x16xf32>, tensor<4xf32>, tensor<4x16xi1>) -> (tensor<4x16xf32>, tensor<4xf32>)
  // Scan along dim 0 of a rank-3 b.
  // CHECK: ssm.affine_scan %arg5, %arg6 h0(%arg7) along 0 : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<16x8xf32>) -> (tensor<2x16x8xf32>, tensor<16x8xf32>)
  %h5, %l5 = ssm.affine_scan %a3, %b3 h0(%h03) along 0 : (tensor<2x16x8xf32>, tensor<2x16x8xf32>, tensor<16x8xf32>) -> (tensor<2x16x8xf32>, tensor<16x8xf32>)
  // Dynamic sizes.
  // CHECK: ssm.affine_scan %arg8, %arg9 along 1 : (tensor<?x16xf32>, tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?xf32>)
  %h6, %l6 = ssm.affine_scan %ad, %bd along 1 : (tensor<?x16xf32>, tensor<?x16xf32>) -> (tensor<?x16xf32>, tensor<?xf32>)
  return
}

//===----------------------------------------------------------------------===//
// ssm.selective_scan
//===----------------------------------------------------------------------===//

// channel_major: u, delta, z (batch, dim, L) = (1, 8, 40); A (8, 4).
// CHECK-LABEL: func.func @selective_scan_channel_major(
func.func @selective_scan_channel_major(
    %u: tensor<1x8x40xf32>, %dt: tensor<1x8x40xf32>, %A: tensor<8x4xf32>,
    %Bt: tensor<1x4x40xf32>, %Ct: tensor<1x4x40xf32>,
    %Bg: tensor<1x2x4x40xf32>, %Cg: tensor<1x2x4x40xf32>,
    %Bc: tensor<8x4xf32>, %Cc: tensor<8x4xf32>,
    %D: tensor<8xf32>, %z: tensor<1x8x40xf32>, %bias: tensor<8xf32>, %h0: tensor<1x8x4xf32>) {
  // Per-token B and C, no optional operand.
  // CHECK: ssm.selective_scan channel_major %arg0, %arg1, %arg2, %arg3, %arg4 : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x4x40xf32>, tensor<1x4x40xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  %y0, %s0 = ssm.selective_scan channel_major %u, %dt, %A, %Bt, %Ct
      : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x4x40xf32>, tensor<1x4x40xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  // Grouped B and C with every optional operand and softplus.
  // CHECK: ssm.selective_scan channel_major %arg0, %arg1, %arg2, %arg5, %arg6 D(%arg9) z(%arg10) delta_bias(%arg11) h0(%arg12) {delta_softplus} : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x2x4x40xf32>, tensor<1x2x4x40xf32>, tensor<8xf32>, tensor<1x8x40xf32>, tensor<8xf32>, tensor<1x8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  %y1, %s1 = ssm.selective_scan channel_major %u, %dt, %A, %Bg, %Cg D(%D) z(%z) delta_bias(%bias) h0(%h0) {delta_softplus}
      : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x2x4x40xf32>, tensor<1x2x4x40xf32>,
         tensor<8xf32>, tensor<1x8x40xf32>, tensor<8xf32>, tensor<1x8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  // Constant B and C, with D only.
  // CHECK: ssm.selective_scan channel_major %arg0, %arg1, %arg2, %arg7, %arg8 D(%arg9) : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  %y2, %s2 = ssm.selective_scan channel_major %u, %dt, %A, %Bc, %Cc D(%D)
      : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  // B and C in different forms: constant B, per-token C, z and h0 only.
  // CHECK: ssm.selective_scan channel_major %arg0, %arg1, %arg2, %arg7, %arg4 z(%arg10) h0(%arg12) : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<1x4x40xf32>, tensor<1x8x40xf32>, tensor<1x8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  %y3, %s3 = ssm.selective_scan channel_major %u, %dt, %A, %Bc, %Ct z(%z) h0(%h0)
      : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<1x4x40xf32>, tensor<1x8x40xf32>, tensor<1x8x4xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  // Grouped B, constant C, delta_bias without softplus.
  // CHECK: ssm.selective_scan channel_major %arg0, %arg1, %arg2, %arg5, %arg8 delta_bias(%arg11) : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x2x4x40xf32>, tensor<8x4xf32>, tensor<8xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  %y4, %s4 = ssm.selective_scan channel_major %u, %dt, %A, %Bg, %Cc delta_bias(%bias)
      : (tensor<1x8x40xf32>, tensor<1x8x40xf32>, tensor<8x4xf32>, tensor<1x2x4x40xf32>, tensor<8x4xf32>, tensor<8xf32>) -> (tensor<1x8x40xf32>, tensor<1x8x4xf32>)
  return
}

// time_major: u, delta, z (batch, L, dim) = (2, 40, 8); A (8, 4).
// CHECK-LABEL: func.func @selective_scan_time_major(
func.func @selective_scan_time_major(
    %u: tensor<2x40x8xf32>, %dt: tensor<2x40x8xf32>, %A: tensor<8x4xf32>,
    %Bt: tensor<2x40x4xf32>, %Ct: tensor<2x40x4xf32>,
    %Bg: tensor<2x40x4x4xf32>, %Cg: tensor<2x40x4x4xf32>,
    %Bc: tensor<8x4xf32>, %Cc: tensor<8x4xf32>,
    %D: tensor<8xf32>, %z: tensor<2x40x8xf32>, %bias: tensor<8xf32>, %h0: tensor<2x8x4xf32>,
    %ud: tensor<?x?x8xf32>, %Bd: tensor<?x?x4xf32>) {
  // CHECK: ssm.selective_scan time_major %arg0, %arg1, %arg2, %arg3, %arg4 : (tensor<2x40x8xf32>, tensor<2x40x8xf32>, tensor<8x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4xf32>) -> (tensor<2x40x8xf32>, tensor<2x8x4xf32>)
  %y0, %s0 = ssm.selective_scan time_major %u, %dt, %A, %Bt, %Ct
      : (tensor<2x40x8xf32>, tensor<2x40x8xf32>, tensor<8x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4xf32>) -> (tensor<2x40x8xf32>, tensor<2x8x4xf32>)
  // CHECK: ssm.selective_scan time_major %arg0, %arg1, %arg2, %arg5, %arg6 D(%arg9) z(%arg10) delta_bias(%arg11) h0(%arg12) {delta_softplus} : (tensor<2x40x8xf32>, tensor<2x40x8xf32>, tensor<8x4xf32>, tensor<2x40x4x4xf32>, tensor<2x40x4x4xf32>, tensor<8xf32>, tensor<2x40x8xf32>, tensor<8xf32>, tensor<2x8x4xf32>) -> (tensor<2x40x8xf32>, tensor<2x8x4xf32>)
  %y1, %s1 = ssm.selective_scan time_major %u, %dt, %A, %Bg, %Cg D(%D) z(%z) delta_bias(%bias) h0(%h0) {delta_softplus}
      : (tensor<2x40x8xf32>, tensor<2x40x8xf32>, tensor<8x4xf32>, tensor<2x40x4x4xf32>, tensor<2x40x4x4xf32>,
         tensor<8xf32>, tensor<2x40x8xf32>, tensor<8xf32>, tensor<2x8x4xf32>) -> (tensor<2x40x8xf32>, tensor<2x8x4xf32>)
  // CHECK: ssm.selective_scan time_major %arg0, %arg1, %arg2, %arg7, %arg8 D(%arg9) {delta_softplus} : (tensor<2x40x8xf32>, tensor<2x40x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> (tensor<2x40x8xf32>, tensor<2x8x4xf32>)
  %y2, %s2 = ssm.selective_scan time_major %u, %dt, %A, %Bc, %Cc D(%D) {delta_softplus}
      : (tensor<2x40x8xf32>, tensor<2x40x8xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> (tensor<2x40x8xf32>, tensor<2x8x4xf32>)
  // CHECK: ssm.selective_scan time_major %arg0, %arg1, %arg2, %arg3, %arg6 z(%arg10) : (tensor<2x40x8xf32>, tensor<2x40x8xf32>, tensor<8x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4x4xf32>, tensor<2x40x8xf32>) -> (tensor<2x40x8xf32>, tensor<2x8x4xf32>)
  %y3, %s3 = ssm.selective_scan time_major %u, %dt, %A, %Bt, %Cg z(%z)
      : (tensor<2x40x8xf32>, tensor<2x40x8xf32>, tensor<8x4xf32>, tensor<2x40x4xf32>, tensor<2x40x4x4xf32>, tensor<2x40x8xf32>) -> (tensor<2x40x8xf32>, tensor<2x8x4xf32>)
  // Dynamic batch and length.
  // CHECK: ssm.selective_scan time_major %arg13, %arg13, %arg2, %arg14, %arg7 : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<8x4xf32>, tensor<?x?x4xf32>, tensor<8x4xf32>) -> (tensor<?x?x8xf32>, tensor<?x8x4xf32>)
  %y4, %s4 = ssm.selective_scan time_major %ud, %ud, %A, %Bd, %Bc
      : (tensor<?x?x8xf32>, tensor<?x?x8xf32>, tensor<8x4xf32>, tensor<?x?x4xf32>, tensor<8x4xf32>) -> (tensor<?x?x8xf32>, tensor<?x8x4xf32>)
  return
}

//===----------------------------------------------------------------------===//
// ssm.selective_update
//===----------------------------------------------------------------------===//

// Without heads: state (batch, dim, N) = (2, 8, 4).
// CHECK-LABEL: func.func @selective_update(
func.func @selective_update(%state: tensor<2x8x4xf32>, %x: tensor<2x8xf32>, %dt: tensor<2x8xf32>,
                            %A: tensor<8x4xf32>, %B: tensor<2x4xf32>, %C: tensor<2x4xf32>,
                            %D: tensor<8xf32>, %z: tensor<2x8xf32>, %bias: tensor<8xf32>) {
  // CHECK: ssm.selective_update %arg0, %arg1, %arg2, %arg3, %arg4, %arg5 : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  %y0, %s0 = ssm.selective_update %state, %x, %dt, %A, %B, %C
      : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  // CHECK: ssm.selective_update %arg0, %arg1, %arg2, %arg3, %arg4, %arg5 D(%arg6) z(%arg7) dt_bias(%arg8) {dt_softplus} : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  %y1, %s1 = ssm.selective_update %state, %x, %dt, %A, %B, %C D(%D) z(%z) dt_bias(%bias) {dt_softplus}
      : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>,
         tensor<8xf32>, tensor<2x8xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  // CHECK: ssm.selective_update %arg0, %arg1, %arg2, %arg3, %arg4, %arg5 dt_bias(%arg8) : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  %y2, %s2 = ssm.selective_update %state, %x, %dt, %A, %B, %C dt_bias(%bias)
      : (tensor<2x8x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<8x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8x4xf32>)
  return
}

// With heads: state (batch, H, P, N) = (2, 4, 16, 8), G = 2 groups.
// CHECK-LABEL: func.func @selective_update_heads(
func.func @selective_update_heads(%state: tensor<2x4x16x8xf32>, %x: tensor<2x4x16xf32>, %dt: tensor<2x4x16xf32>,
                                  %A: tensor<4x16x8xf32>, %B: tensor<2x2x8xf32>, %C: tensor<2x2x8xf32>,
                                  %D: tensor<4x16xf32>, %z: tensor<2x4x16xf32>, %bias: tensor<4x16xf32>,
                                  %B1: tensor<2x1x8xf32>) {
  // CHECK: ssm.selective_update %arg0, %arg1, %arg2, %arg3, %arg4, %arg5 : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x2x8xf32>, tensor<2x2x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  %y0, %s0 = ssm.selective_update %state, %x, %dt, %A, %B, %C
      : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x2x8xf32>, tensor<2x2x8xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  // CHECK: ssm.selective_update %arg0, %arg1, %arg2, %arg3, %arg9, %arg5 D(%arg6) z(%arg7) dt_bias(%arg8) {dt_softplus} : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x1x8xf32>, tensor<2x2x8xf32>, tensor<4x16xf32>, tensor<2x4x16xf32>, tensor<4x16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  %y1, %s1 = ssm.selective_update %state, %x, %dt, %A, %B1, %C D(%D) z(%z) dt_bias(%bias) {dt_softplus}
      : (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>, tensor<2x4x16xf32>, tensor<4x16x8xf32>, tensor<2x1x8xf32>, tensor<2x2x8xf32>,
         tensor<4x16xf32>, tensor<2x4x16xf32>, tensor<4x16xf32>) -> (tensor<2x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}

//===----------------------------------------------------------------------===//
// ssm.lti_kernel
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @lti_kernel(
func.func @lti_kernel(%A: tensor<8x16xf32>, %B: tensor<8x16xf32>, %C: tensor<8x16xf32>, %dt: tensor<8xf32>,
                      %Ac: tensor<8x16x2xf32>, %Bc: tensor<8x16x2xf32>, %Cc: tensor<8x16x2xf32>) {
  // Real, without B.
  // CHECK: ssm.lti_kernel zoh %arg0, %arg2, %arg3 : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  %k0 = ssm.lti_kernel zoh %A, %C, %dt : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  // Real, with B.
  // CHECK: ssm.lti_kernel bilinear %arg0, %arg2, %arg3 B(%arg1) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x128xf32>
  %k1 = ssm.lti_kernel bilinear %A, %C, %dt B(%B) : (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<8x128xf32>
  // Complex, with B (S4D convention).
  // CHECK: ssm.lti_kernel zoh %arg4, %arg6, %arg3 B(%arg5) : (tensor<8x16x2xf32>, tensor<8x16x2xf32>, tensor<8x16x2xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  %k2 = ssm.lti_kernel zoh %Ac, %Cc, %dt B(%Bc) : (tensor<8x16x2xf32>, tensor<8x16x2xf32>, tensor<8x16x2xf32>, tensor<8xf32>) -> tensor<8x64xf32>
  // Complex A and C without B.
  // CHECK: ssm.lti_kernel euler %arg4, %arg6, %arg3 : (tensor<8x16x2xf32>, tensor<8x16x2xf32>, tensor<8xf32>) -> tensor<8x32xf32>
  %k3 = ssm.lti_kernel euler %Ac, %Cc, %dt : (tensor<8x16x2xf32>, tensor<8x16x2xf32>, tensor<8xf32>) -> tensor<8x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// ssm.lti_conv
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @lti_conv(
func.func @lti_conv(%u: tensor<2x8x64xf32>, %K: tensor<8x64xf32>, %Ks: tensor<8x16xf32>, %D: tensor<8xf32>) {
  // CHECK: ssm.lti_conv direct %arg0, %arg1 : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %y0 = ssm.lti_conv direct %u, %K : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  // CHECK: ssm.lti_conv fft %arg0, %arg1 D(%arg3) : (tensor<2x8x64xf32>, tensor<8x64xf32>, tensor<8xf32>) -> tensor<2x8x64xf32>
  %y1 = ssm.lti_conv fft %u, %K D(%D) : (tensor<2x8x64xf32>, tensor<8x64xf32>, tensor<8xf32>) -> tensor<2x8x64xf32>
  // A kernel shorter than the sequence.
  // CHECK: ssm.lti_conv scan %arg0, %arg2 D(%arg3) : (tensor<2x8x64xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x8x64xf32>
  %y2 = ssm.lti_conv scan %u, %Ks D(%D) : (tensor<2x8x64xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<2x8x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// ssm.causal_conv1d
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @causal_conv1d(
func.func @causal_conv1d(%x: tensor<2x8x40xf32>, %w4: tensor<8x4xf32>, %w2: tensor<8x2xf32>,
                         %bias: tensor<8xf32>, %init: tensor<2x8x3xf32>) {
  // CHECK: ssm.causal_conv1d identity %arg0, %arg1 : (tensor<2x8x40xf32>, tensor<8x4xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  %o0, %f0 = ssm.causal_conv1d identity %x, %w4 : (tensor<2x8x40xf32>, tensor<8x4xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  // CHECK: ssm.causal_conv1d silu %arg0, %arg1 bias(%arg3) initial_states(%arg4) : (tensor<2x8x40xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<2x8x3xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  %o1, %f1 = ssm.causal_conv1d silu %x, %w4 bias(%bias) initial_states(%init)
      : (tensor<2x8x40xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<2x8x3xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  // Width 2, bias only.
  // CHECK: ssm.causal_conv1d silu %arg0, %arg2 bias(%arg3) : (tensor<2x8x40xf32>, tensor<8x2xf32>, tensor<8xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x1xf32>)
  %o2, %f2 = ssm.causal_conv1d silu %x, %w2 bias(%bias) : (tensor<2x8x40xf32>, tensor<8x2xf32>, tensor<8xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x1xf32>)
  // Initial states only.
  // CHECK: ssm.causal_conv1d identity %arg0, %arg1 initial_states(%arg4) : (tensor<2x8x40xf32>, tensor<8x4xf32>, tensor<2x8x3xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  %o3, %f3 = ssm.causal_conv1d identity %x, %w4 initial_states(%init)
      : (tensor<2x8x40xf32>, tensor<8x4xf32>, tensor<2x8x3xf32>) -> (tensor<2x8x40xf32>, tensor<2x8x3xf32>)
  return
}

//===----------------------------------------------------------------------===//
// ssm.ssd_scan
//===----------------------------------------------------------------------===//

// X (batch, L, H, P) = (2, 64, 4, 16); B, C (batch, L, G, N) = (2, 64, 2, 8).
// CHECK-LABEL: func.func @ssd_scan(
func.func @ssd_scan(%X: tensor<2x64x4x16xf32>, %A3: tensor<2x64x4xf32>, %A4: tensor<2x64x4x8xf32>,
                    %B: tensor<2x64x2x8xf32>, %C: tensor<2x64x2x8xf32>,
                    %S0: tensor<2x4x16x8xf32>, %bonus: tensor<4x8xf32>) {
  // Mamba-2: scalar decay per head, no optional operand; chunk_size 64 is the default.
  // CHECK: ssm.ssd_scan %arg0, %arg1, %arg3, %arg4 : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  %y0, %s0 = ssm.ssd_scan %X, %A3, %B, %C
      : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  // CHECK: ssm.ssd_scan %arg0, %arg1, %arg3, %arg4 initial_state(%arg5) {chunk_size = 32 : i64} : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  %y1, %s1 = ssm.ssd_scan %X, %A3, %B, %C initial_state(%S0) {chunk_size = 32 : i64}
      : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<2x4x16x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  // RWKV-5: decay per key dimension, with bonus.
  // CHECK: ssm.ssd_scan %arg0, %arg2, %arg3, %arg4 bonus(%arg6) : (tensor<2x64x4x16xf32>, tensor<2x64x4x8xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<4x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  %y2, %s2 = ssm.ssd_scan %X, %A4, %B, %C bonus(%bonus)
      : (tensor<2x64x4x16xf32>, tensor<2x64x4x8xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<4x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  // CHECK: ssm.ssd_scan %arg0, %arg2, %arg3, %arg4 initial_state(%arg5) bonus(%arg6) {chunk_size = 16 : i64} : (tensor<2x64x4x16xf32>, tensor<2x64x4x8xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<2x4x16x8xf32>, tensor<4x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  %y3, %s3 = ssm.ssd_scan %X, %A4, %B, %C initial_state(%S0) bonus(%bonus) {chunk_size = 16 : i64}
      : (tensor<2x64x4x16xf32>, tensor<2x64x4x8xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<2x4x16x8xf32>, tensor<4x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  // CHECK: ssm.ssd_scan %arg0, %arg1, %arg3, %arg4 initial_state(%arg5) bonus(%arg6) : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<2x4x16x8xf32>, tensor<4x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  %y4, %s4 = ssm.ssd_scan %X, %A3, %B, %C initial_state(%S0) bonus(%bonus) {chunk_size = 64 : i64}
      : (tensor<2x64x4x16xf32>, tensor<2x64x4xf32>, tensor<2x64x2x8xf32>, tensor<2x64x2x8xf32>, tensor<2x4x16x8xf32>, tensor<4x8xf32>) -> (tensor<2x64x4x16xf32>, tensor<2x4x16x8xf32>)
  return
}
