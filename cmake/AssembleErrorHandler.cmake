# cmake -DLLVM_AS=<llvm-as> -DINPUT=<file.ll> -DLAYOUT=<data layout> -DOUTPUT=<file.bc.inc> -P AssembleErrorHandler.cmake
# Assembles INPUT (which has no data layout) for the data layout LAYOUT, so that
# Halide links it into a kernel module of that layout without a warning, and
# writes the bitcode as a C initialiser list (as EmbedBytes.cmake does).
file(READ "${INPUT}" text)
set(ll "${OUTPUT}.ll")
set(bc "${OUTPUT}.bc")
file(WRITE "${ll}" "target datalayout = \"${LAYOUT}\"\n${text}")
execute_process(COMMAND "${LLVM_AS}" "${ll}" -o "${bc}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${LLVM_AS} failed on ${ll}")
endif()
set(INPUT "${bc}")
include("${CMAKE_CURRENT_LIST_DIR}/EmbedBytes.cmake")
