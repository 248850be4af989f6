// ssm-lti-to-conv: a selective scan whose delta, B and C do not depend on
// the token becomes ssm.lti_kernel (zoh A, euler B) + ssm.lti_conv; the
// algorithm comes from the cost model, the op's ssm.lti_algorithm or the
// pass option; keeping the scan is recorded on it; selective scans, scans
// with h0, z or a used final state are left alone; a constant-decay affine
// scan becomes a convolution per element when asked to.
// RUN: ssm-opt %s -ssm-lti-to-conv="target=x86-64-linux-avx512_skylake" | FileCheck %s --check-prefix=AUTO
// RUN: ssm-opt %s -ssm-lti-to-conv="target=x86-64-linux-avx2 algorithm=fft" | FileCheck %s --check-prefix=FFT
// RUN: not ssm-opt %s -ssm-lti-to-conv="algorithm=winograd" 2>&1 | FileCheck %s --check-prefix=BADALG
// RUN: not ssm-opt %s -ssm-lti-to-conv="target=sparc-64-linux" 2>&1 | FileCheck %s --check-prefix=BADTARGET

// BADALG: unknown algorithm 'winograd' (expected auto, direct, fft or scan)
// BADTARGET: unknown target 'sparc-64-linux'

// A short sequence in a batch of 32: one kernel for the batch plus the direct
// sum costs less than 32 scans.
// AUTO-LABEL: func.func @s4_short
// AUTO: %[[E:.*]] = math.exp %arg5
// AUTO: %[[L:.*]] = math.log1p %[[E]]
// AUTO: %[[DT:.*]] = arith.select %{{.*}}, %arg5, %[[L]]
// AUTO: %[[K:.*]] = ssm.lti_kernel zoh, euler %arg2, %arg4, %[[DT]] B(%arg3) : ({{.*}}) -> tensor<8x16xf32>
// AUTO: %[[Y:.*]] = ssm.lti_conv direct %arg0, %[[K]] D(%arg6)
// AUTO: return %[[Y]]
// AUTO-NOT: ssm.selective_scan
// FFT-LABEL: func.func @s4_short
// FFT: ssm.lti_conv fft
func.func @s4_short(%u: tensor<32x8x16xf32>, %unused: tensor<32x8x16xf32>, %A: tensor<8x4xf32>,
                    %B: tensor<8x4xf32>, %C: tensor<8x4xf32>, %dt0: tensor<8xf32>, %D: tensor<8xf32>)
    -> tensor<32x8x16xf32> {
  %e = tensor.empty() : tensor<32x8x16xf32>
  %dt = linalg.broadcast ins(%dt0 : tensor<8xf32>) outs(%e : tensor<32x8x16xf32>) dimensions = [0, 2]
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C D(%D) {delta_softplus}
      : (tensor<32x8x16xf32>, tensor<32x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
         tensor<8xf32>) -> (tensor<32x8x16xf32>, tensor<32x8x4xf32>)
  return %y : tensor<32x8x16xf32>
}

// A long sequence with a small state: the scan is cheapest and stays,
// marked with the choice; the op's own choice wins over the cost model.
// AUTO-LABEL: func.func @long_small_state
// AUTO: ssm.selective_scan channel_major {{.*}}ssm.lti_algorithm = "scan"
// AUTO: ssm.lti_conv fft
// FFT-LABEL: func.func @long_small_state
// FFT-NOT: ssm.selective_scan
// FFT: ssm.lti_conv fft
// FFT: ssm.lti_conv fft
func.func @long_small_state(%u: tensor<1x16x4096xf32>, %A: tensor<16x4xf32>, %B: tensor<16x4xf32>,
                            %C: tensor<16x4xf32>) -> (tensor<1x16x4096xf32>, tensor<1x16x4096xf32>) {
  %dt = arith.constant dense<0.1> : tensor<1x16x4096xf32>
  %y, %h = ssm.selective_scan channel_major %u, %dt, %A, %B, %C
      : (tensor<1x16x4096xf32>, tensor<1x16x4096xf32>, tensor<16x4xf32>, tensor<16x4xf32>, tensor<16x4xf32>)
      -> (tensor<1x16x4096xf32>, tensor<1x16x4xf32>)
  %y2, %h2 = ssm.selective_scan channel_major %u, %dt, %A, %B, %C {ssm.lti_algorithm = "fft"}
      : (tensor<1x16x4096xf32>, tensor<1x16x4096xf32>, tensor<16x4xf32>, tensor<16x4xf32>, tensor<16x4xf32>)
      -> (tensor<1x16x4096xf32>, tensor<1x16x4xf32>)
  return %y, %y2 : tensor<1x16x4096xf32>, tensor<1x16x4096xf32>
}

// Left alone in every mode: per-token delta and B/C (Mamba), an initial
// state, a gate z, a final state that is used.
// AUTO-LABEL: func.func @not_lti
// AUTO-COUNT-4: ssm.selective_scan
// AUTO-NOT: ssm.lti_
// FFT-LABEL: func.func @not_lti
// FFT-COUNT-4: ssm.selective_scan
// FFT-NOT: ssm.lti_
func.func @not_lti(%u: tensor<1x8x16xf32>, %dtv: tensor<1x8x16xf32>, %A: tensor<8x4xf32>,
                   %Bt: tensor<1x4x16xf32>, %B: tensor<8x4xf32>, %C: tensor<8x4xf32>,
                   %h0: tensor<1x8x4xf32>, %z: tensor<1x8x16xf32>)
    -> (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x4xf32>) {
  %dt = arith.constant dense<0.1> : tensor<1x8x16xf32>
  %y1, %h1 = ssm.selective_scan channel_major %u, %dtv, %A, %Bt, %C
      : (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<8x4xf32>, tensor<1x4x16xf32>, tensor<8x4xf32>)
      -> (tensor<1x8x16xf32>, tensor<1x8x4xf32>)
  %y2, %h2 = ssm.selective_scan channel_major %u, %dt, %A, %B, %C h0(%h0)
      : (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
         tensor<1x8x4xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x4xf32>)
  %y3, %h3 = ssm.selective_scan channel_major %u, %dt, %A, %B, %C z(%z)
      : (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>,
         tensor<1x8x16xf32>) -> (tensor<1x8x16xf32>, tensor<1x8x4xf32>)
  %y4, %h4 = ssm.selective_scan channel_major %u, %dt, %A, %B, %C
      : (tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>)
      -> (tensor<1x8x16xf32>, tensor<1x8x4xf32>)
  return %y1, %y2, %y3, %y4, %h4 : tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x16xf32>, tensor<1x8x4xf32>
}

// An affine scan with one decay per channel (extent 1 along time): the scan
// is the cheapest form of a first-order recurrence, so auto keeps it; with
// algorithm=fft it becomes a convolution per element with K_l = a^l.
// AUTO-LABEL: func.func @affine
// AUTO: ssm.affine_scan {{.*}}ssm.lti_algorithm = "scan"
// FFT-LABEL: func.func @affine
// FFT: %[[AB:.*]] = linalg.generic
// FFT: %[[A2:.*]] = tensor.collapse_shape %[[AB]] {{\[\[}}0, 1], [2]] : tensor<2x3x1xf32> into tensor<6x1xf32>
// FFT: %[[B2:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1], [2]] : tensor<2x3x40xf32> into tensor<6x40xf32>
// FFT: %[[AM1:.*]] = arith.subf %[[A2]]
// FFT: %[[K:.*]] = ssm.lti_kernel euler %[[AM1]], %{{.*}}, %{{.*}} : (tensor<6x1xf32>, tensor<6x1xf32>, tensor<6xf32>) -> tensor<6x40xf32>
// FFT: %[[U:.*]] = tensor.expand_shape %[[B2]]
// FFT: %[[Y:.*]] = ssm.lti_conv fft %[[U]], %[[K]] : (tensor<1x6x40xf32>, tensor<6x40xf32>) -> tensor<1x6x40xf32>
// FFT: %[[Y2:.*]] = tensor.collapse_shape %[[Y]]
// FFT: %[[H:.*]] = tensor.expand_shape %[[Y2]]
// FFT: return %[[H]]
func.func @affine(%a: tensor<1x3x1xf32>, %b: tensor<2x3x40xf32>) -> tensor<2x3x40xf32> {
  %h, %last = ssm.affine_scan %a, %b along 2 : (tensor<1x3x1xf32>, tensor<2x3x40xf32>) -> (tensor<2x3x40xf32>, tensor<2x3xf32>)
  return %h : tensor<2x3x40xf32>
}
