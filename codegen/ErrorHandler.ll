; The error handler every generated kernel library installs (codegen/Compile.cpp
; appends this module to each kernel object as Halide::ExternalCode).
;
; Halide reports a failed check of a call (a buffer of the wrong shape, type or
; size, a constraint) through halide_error, whose default handler in the
; runtime, halide_default_error, prints the message and calls abort(): a
; program that links foo.a or libfoo.so and passes a wrongly shaped buffer dies
; instead of getting the error code back. This module gives each kernel object
; a load-time constructor that installs ssm_halide_error_returns, which prints
; "Error: <message>" through halide_print as Halide's does and returns, so the
; kernel returns its (negative) halide_error_code_t.
;
; The constructor replaces only Halide's default handler (or none): a handler
; the program installed before it (halide_set_error_handler) is put back, and
; one installed afterwards replaces it as usual. The model library installs its
; own after dlopen (runtime/Module.cpp). Every kernel object carries a copy:
; weak_odr merges the handler, each constructor is internal (they all do the
; same). No triple or data layout: the kernel module's applies, for any CPU
; target. Assembled at build time by LLVM 14's llvm-as (Halide 14's bitcode
; reader takes no newer version), like kernels/Widen.ll.

source_filename = "ErrorHandler.ll"

@ssm.error.prefix = private unnamed_addr constant [8 x i8] c"Error: \00"
@ssm.error.newline = private unnamed_addr constant [2 x i8] c"\0A\00"

declare void @halide_print(i8*, i8*)
declare void (i8*, i8*)* @halide_set_error_handler(void (i8*, i8*)*)
declare void @halide_default_error(i8*, i8*)

; "Error: " + msg, and a newline unless msg ends with one; then returns.
define weak_odr void @ssm_halide_error_returns(i8* %uc, i8* %msg) nounwind {
entry:
  call void @halide_print(i8* %uc, i8* getelementptr ([8 x i8], [8 x i8]* @ssm.error.prefix, i32 0, i32 0))
  %none = icmp eq i8* %msg, null
  br i1 %none, label %newline, label %body

body:
  call void @halide_print(i8* %uc, i8* %msg)
  br label %scan

scan:                                   ; find the character before the terminator
  %p = phi i8* [ %msg, %body ], [ %next, %scan ]
  %last = phi i8 [ 0, %body ], [ %c, %scan ]
  %c = load i8, i8* %p
  %next = getelementptr i8, i8* %p, i32 1
  %end = icmp eq i8 %c, 0
  br i1 %end, label %check, label %scan

check:
  %ends = icmp eq i8 %last, 10
  br i1 %ends, label %done, label %newline

newline:
  call void @halide_print(i8* %uc, i8* getelementptr ([2 x i8], [2 x i8]* @ssm.error.newline, i32 0, i32 0))
  br label %done

done:
  ret void
}

define internal void @ssm_install_error_handler() nounwind {
entry:
  %prev = call void (i8*, i8*)* @halide_set_error_handler(void (i8*, i8*)* @ssm_halide_error_returns)
  %isDefault = icmp eq void (i8*, i8*)* %prev, @halide_default_error
  %isNull = icmp eq void (i8*, i8*)* %prev, null
  %isOurs = icmp eq void (i8*, i8*)* %prev, @ssm_halide_error_returns
  %a = or i1 %isDefault, %isNull
  %replace = or i1 %a, %isOurs
  br i1 %replace, label %done, label %restore

restore:                                ; the program's own handler stays
  %ignored = call void (i8*, i8*)* @halide_set_error_handler(void (i8*, i8*)* %prev)
  br label %done

done:
  ret void
}

@llvm.global_ctors = appending global [1 x { i32, void ()*, i8* }] [{ i32, void ()*, i8* } { i32 65535, void ()* @ssm_install_error_handler, i8* null }]
