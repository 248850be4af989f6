; x86 helpers: f16 -> f32 conversions, and a prefetch (at the end), linked into every CPU kernel module by
; codegen/Compile.cpp (Halide::ExternalCode) and called from widenToF32
; (codegen/kernels/Widen.h). Halide 14 emulates Float(16) casts with integer ops
; on x86; an fpext of <N x half> here is one vcvtph2ps per vector with F16C
; (AVX-512: 16 lanes). Halide finds the N-lane version of a pure extern call
; `ssm_f16_to_f32` by the name ssm_f16_to_f32xN.
; Assembled at build time by LLVM 14's llvm-as, Halide 14's LLVM (its bitcode
; reader takes no newer version). weak_odr: the linker skips unreferenced
; internal or linkonce functions, and every kernel object may carry a copy. The data layout is x86-64 ELF's (Linux
; targets only, codegen/kernels/Widen.cpp); no triple, the kernel module's applies.

source_filename = "Widen.ll"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"

define weak_odr float @ssm_f16_to_f32(i16 %h) alwaysinline nounwind readnone {
  %x = bitcast i16 %h to half
  %f = fpext half %x to float
  ret float %f
}

define weak_odr <4 x float> @ssm_f16_to_f32x4(<4 x i16> %h) alwaysinline nounwind readnone {
  %x = bitcast <4 x i16> %h to <4 x half>
  %f = fpext <4 x half> %x to <4 x float>
  ret <4 x float> %f
}

define weak_odr <8 x float> @ssm_f16_to_f32x8(<8 x i16> %h) alwaysinline nounwind readnone {
  %x = bitcast <8 x i16> %h to <8 x half>
  %f = fpext <8 x half> %x to <8 x float>
  ret <8 x float> %f
}

define weak_odr <16 x float> @ssm_f16_to_f32x16(<16 x i16> %h) alwaysinline nounwind readnone {
  %x = bitcast <16 x i16> %h to <16 x half>
  %f = fpext <16 x half> %x to <16 x float>
  ret <16 x float> %f
}

define weak_odr <32 x float> @ssm_f16_to_f32x32(<32 x i16> %h) alwaysinline nounwind readnone {
  %x = bitcast <32 x i16> %h to <32 x half>
  %f = fpext <32 x half> %x to <32 x float>
  ret <32 x float> %f
}

; A software prefetch into every cache level (prefetcht0) of the byte at
; %base + %offset, for codegen/kernels/Widen.h's prefetchT0: the decode
; matvec asks for the next register tile's weight rows while it streams the
; current ones (Halide 14's own prefetch directive emits prefetchnta, which
; measured slower). Returns 0; the caller wraps it in Halide's return_second.
declare void @llvm.prefetch.p0i8(i8* nocapture readonly, i32 immarg, i32 immarg, i32 immarg)

define weak_odr i32 @ssm_prefetch_t0(i8* %base, i64 %offset) alwaysinline nounwind {
  %p = getelementptr i8, i8* %base, i64 %offset
  call void @llvm.prefetch.p0i8(i8* %p, i32 0, i32 3, i32 1)
  ret i32 0
}
