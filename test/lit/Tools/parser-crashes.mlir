// Inputs on which MLIR 19's own parser or verifier faults (SIGSEGV in
// NamedAttrList::set after parseDenseI64ArrayAttr ignores a failed parse; an
// out-of-bounds read in TransposeOp::verify): ssm-opt, ssm-run and
// ssm-compile report them at file:line:col and exit 1 (frontend/SafeParse.h).
// Without the pre-parse check each of these runs dies with signal 11.
// RUN: rm -rf %t && mkdir -p %t

// DEFINE: %{opt} = sh -c 'ssm-opt %S/Inputs/$0 > /dev/null; echo "exit=$?"'
// DEFINE: %{run} = sh -c 'ssm-run %S/Inputs/$0 --seed 0; echo "exit=$?"'
// DEFINE: %{compile} = sh -c 'ssm-compile %S/Inputs/$0 -o %t/$0.out; echo "exit=$?"'

// RUN: %{opt} transpose-float-perm.mlir 2>&1 | FileCheck %s --check-prefix=TFLOAT
// RUN: %{run} transpose-float-perm.mlir 2>&1 | FileCheck %s --check-prefix=TFLOAT
// RUN: %{compile} transpose-float-perm.mlir 2>&1 | FileCheck %s --check-prefix=TFLOAT
// TFLOAT: transpose-float-perm.mlir:4:93: error: 'linalg.transpose': expected an integer in its permutation (a list of integers such as [1, 0])
// TFLOAT: exit=1

// RUN: %{opt} broadcast-bad-dims.mlir 2>&1 | FileCheck %s --check-prefix=BCAST
// RUN: %{run} broadcast-bad-dims.mlir 2>&1 | FileCheck %s --check-prefix=BCAST
// RUN: %{compile} broadcast-bad-dims.mlir 2>&1 | FileCheck %s --check-prefix=BCAST
// BCAST: broadcast-bad-dims.mlir:4:90: error: 'linalg.broadcast': expected an integer in its dimensions
// BCAST: exit=1

// RUN: %{opt} reduce-float-dims.mlir 2>&1 | FileCheck %s --check-prefix=RFLOAT
// RUN: %{run} reduce-float-dims.mlir 2>&1 | FileCheck %s --check-prefix=RFLOAT
// RFLOAT: reduce-float-dims.mlir:4:87: error: 'linalg.reduce': expected an integer in its dimensions
// RFLOAT: exit=1

// RUN: %{opt} reduce-huge-dims.mlir 2>&1 | FileCheck %s --check-prefix=RHUGE
// RHUGE: reduce-huge-dims.mlir:4:87: error: 'linalg.reduce': integer 99999999999999999999 does not fit in i64 in its dimensions
// RHUGE: exit=1

// NUL bytes between the keyword and '=' (MLIR's lexer skips them as
// whitespace; the check did not, and the parser faulted: fuzz-ir).
// RUN: python3 -c "import sys; t = open(sys.argv[1], 'rb').read().replace(b'dimensions =', b'dimensions\0\0 =\0'); open(sys.argv[2], 'wb').write(t)" %S/Inputs/reduce-huge-dims.mlir %t.nul.mlir
// RUN: sh -c 'ssm-opt %t.nul.mlir > /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=RNUL
// RNUL: .nul.mlir:4:{{[0-9]+}}: error: 'linalg.reduce': integer 99999999999999999999 does not fit in i64 in its dimensions
// RNUL: exit=1

// A named linalg op's properties that are not a dictionary (MLIR casts them
// unchecked: an abort in NamedAttrList, found by fuzz-interpreter).
// RUN: %{opt} matmul-bad-properties.mlir 2>&1 | FileCheck %s --check-prefix=PROPS
// RUN: %{run} matmul-bad-properties.mlir 2>&1 | FileCheck %s --check-prefix=PROPS
// PROPS: matmul-bad-properties.mlir:3:33: error: 'linalg.matmul_transpose_b': properties must be a dictionary, as in <{key = value}>
// PROPS: exit=1

// An empty reassociation group of tensor.expand_shape / collapse_shape, in
// the custom and the generic form (the upstream verifier faulted: SIGSEGV in
// AffineMap::get, found by fuzz-interpreter). Checked on the parsed IR
// before MLIR's verifiers run (checkBeforeVerify).
// RUN: %{opt} reshape-empty-group.mlir 2>&1 | FileCheck %s --check-prefix=REGROUP
// RUN: %{run} reshape-empty-group.mlir 2>&1 | FileCheck %s --check-prefix=REGROUP
// RUN: %{compile} reshape-empty-group.mlir 2>&1 | FileCheck %s --check-prefix=REGROUP
// REGROUP: reshape-empty-group.mlir:5:8: error: 'tensor.expand_shape' op reassociation group 0 is empty (each group lists at least one dimension)
// REGROUP: exit=1
// RUN: sed -e 's/tensor.expand_shape %x \[\[\], \[0, 1, 2\]\] output_shape \[8, 24, 1\] : tensor<8x24xf32> into tensor<8x24x1xf32>/"tensor.expand_shape"(%x) <{reassociation = [[0, 1, 2], []], static_output_shape = array<i64: 8, 24, 1>}> : (tensor<8x24xf32>) -> tensor<8x24x1xf32>/' %S/Inputs/reshape-empty-group.mlir > %t.regroup-generic.mlir
// RUN: sh -c 'ssm-opt %t.regroup-generic.mlir > /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=REGEN
// REGEN: regroup-generic.mlir:5:8: error: 'tensor.expand_shape' op reassociation group 1 is empty
// REGEN: exit=1
// RUN: sed -e '/expand_shape/d' -e 's/return %e, %c : tensor<8x24x1xf32>, tensor<192xf32>/return %c : tensor<192xf32>/' -e 's/-> (tensor<8x24x1xf32>, tensor<192xf32>)/-> tensor<192xf32>/' %S/Inputs/reshape-empty-group.mlir > %t.regroup-collapse.mlir
// RUN: sh -c 'ssm-run %t.regroup-collapse.mlir --seed 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=RECOL
// RECOL: regroup-collapse.mlir:5:8: error: 'tensor.collapse_shape' op reassociation group 1 is empty
// RECOL: exit=1

// tensor.from_elements whose result type has more elements than the text
// has operands: its custom parser and its generated verifier build one type
// per element first ("LLVM ERROR: SmallVector unable to grow" at 9e13,
// found by fuzz-interpreter; 23 GB and a minute at 3e9). The custom form is
// refused before parsing, the generic form before verifying.
// RUN: %{opt} from-elements-huge.mlir 2>&1 | FileCheck %s --check-prefix=FEHUGE
// RUN: %{run} from-elements-huge.mlir 2>&1 | FileCheck %s --check-prefix=FEHUGE
// RUN: %{compile} from-elements-huge.mlir 2>&1 | FileCheck %s --check-prefix=FEHUGE
// FEHUGE: from-elements-huge.mlir:4:34: error: 'tensor.from_elements': the result type has 90228672988384 elements, more operands than the text can hold (one per element)
// FEHUGE: exit=1
// NUL bytes and spaces between the dims and the 'x's (MLIR's lexer skips
// them; fuzz-interpreter).
// RUN: python3 -c "import sys; t = open(sys.argv[1], 'rb').read().replace(b'tensor<90228672988384xf32>\n', b'tensor<90228672988384\0\0 x\0f32>\n', 1); open(sys.argv[2], 'wb').write(t)" %S/Inputs/from-elements-huge.mlir %t.fe-nul.mlir
// RUN: sh -c 'ssm-opt %t.fe-nul.mlir > /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FENUL
// FENUL: fe-nul.mlir:4:34: error: 'tensor.from_elements': the result type has 90228672988384 elements
// FENUL: exit=1
// RUN: sed -e 's/tensor.from_elements %a : tensor<90228672988384xf32>/"tensor.from_elements"(%a) : (f32) -> tensor<3000000000xf32>/' -e 's/90228672988384/3000000000/g' %S/Inputs/from-elements-huge.mlir > %t.fe-generic.mlir
// RUN: sh -c 'ssm-opt %t.fe-generic.mlir > /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FEGEN
// RUN: sh -c 'ssm-run %t.fe-generic.mlir --seed 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=FEGEN
// FEGEN: fe-generic.mlir:4:8: error: 'tensor.from_elements' op has 1 operands for a result of 3000000000 elements ('tensor<3000000000xf32>'): one operand per element
// FEGEN: exit=1
// The generic form without a result: the check must not read one (the op
// is not verified yet); the verifier then reports it.
// RUN: %{opt} from-elements-no-result.mlir 2>&1 | FileCheck %s --check-prefix=FENORES
// RUN: %{run} from-elements-no-result.mlir 2>&1 | FileCheck %s --check-prefix=FENORES
// FENORES: from-elements-no-result.mlir:2:3: error: 'tensor.from_elements' op requires one result
// FENORES: exit=1
// RUN: sed -e 's/tensor.from_elements %a : tensor<90228672988384xf32>/tensor.from_elements %a, %a {x = 1 : i32} : tensor<2xf32>/' -e 's/90228672988384/2/g' %S/Inputs/from-elements-huge.mlir > %t.fe-ok.mlir
// RUN: ssm-run %t.fe-ok.mlir --seed 0 | FileCheck %s --check-prefix=FEOK
// FEOK: result0 shape=(2,)

// tensor.concat with a negative dim: MLIR 19's ConcatOp::verify checks the
// dim against the rank from above only and read the shapes at -1 (SIGSEGV).
// RUN: %{opt} concat-negative-dim.mlir 2>&1 | FileCheck %s --check-prefix=CONCAT
// RUN: %{run} concat-negative-dim.mlir 2>&1 | FileCheck %s --check-prefix=CONCAT
// RUN: %{compile} concat-negative-dim.mlir 2>&1 | FileCheck %s --check-prefix=CONCAT
// CONCAT: concat-negative-dim.mlir:2:7: error: 'tensor.concat' op dim -1 is negative (it counts from 0)
// CONCAT: exit=1
// RUN: sed -e 's/tensor.concat dim(-1) %a, %a :/"tensor.concat"(%a, %a) <{dim = -3 : i64}> :/' %S/Inputs/concat-negative-dim.mlir > %t.concat-generic.mlir
// RUN: sh -c 'ssm-opt %t.concat-generic.mlir > /dev/null; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=CONCATGEN
// CONCATGEN: concat-generic.mlir:2:7: error: 'tensor.concat' op dim -3 is negative
// CONCATGEN: exit=1

// -2^63: MLIR negates an i64 magnitude, so this is "too large" there too.
// RUN: sed 's/\[99999999999999999999\]/[-9223372036854775808]/' %S/Inputs/reduce-huge-dims.mlir > %t/min.mlir
// RUN: sh -c 'ssm-opt %t/min.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=RMIN
// RMIN: min.mlir:4:87: error: 'linalg.reduce': integer -9223372036854775808 does not fit in i64
// RMIN: exit=1

// A permutation that is not one (the verifier would read the shape at index 5).
// RUN: %{opt} transpose-bad-perm.mlir 2>&1 | FileCheck %s --check-prefix=TPERM
// RUN: %{run} transpose-bad-perm.mlir 2>&1 | FileCheck %s --check-prefix=TPERM
// TPERM: transpose-bad-perm.mlir:4:92: error: 'linalg.transpose': permutation [5, 0] is not a permutation of 0..1
// TPERM: exit=1
// RUN: %{opt} transpose-generic-bad-perm.mlir 2>&1 | FileCheck %s --check-prefix=TGEN
// TGEN: transpose-generic-bad-perm.mlir:6:56: error: 'linalg.transpose': permutation [7, 0] is not a permutation of 0..1
// TGEN: exit=1

// linalg.generic's parser casts iterator_types elements to StringAttr
// unchecked (std::bad_alloc, abort, before).
// RUN: %{opt} generic-iterator-types.mlir 2>&1 | FileCheck %s --check-prefix=ITER
// RUN: %{run} generic-iterator-types.mlir 2>&1 | FileCheck %s --check-prefix=ITER
// ITER: generic-iterator-types.mlir:3:112: error: 'linalg.generic': iterator_types must be a list of strings such as ["parallel", "reduction"]
// ITER: exit=1

// No output folder is left by the failed compiles.
// RUN: sh -c 'ls %t' | count 1

// The same words elsewhere (comments, strings, other ops, a valid list) pass.
// RUN: ssm-opt %s | FileCheck %s --check-prefix=OK
// OK: ssm.name = "linalg.reduce dimensions = [x]"
// OK: linalg.transpose ins(%arg0 : tensor<2x3xf32>) outs(%0 : tensor<3x2xf32>) permutation = [1, 0]
// OK: linalg.broadcast {{.*}} dimensions = [0]
// a comment: linalg.transpose permutation = [1.5]
func.func @ok(%a: tensor<2x3xf32>, %b: tensor<3xf32> {ssm.name = "linalg.reduce dimensions = [x]"})
    -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>)
      permutation = [1, 0] // trailing comment
  %f = tensor.empty() : tensor<2x3xf32>
  %g = linalg.broadcast ins(%b : tensor<3xf32>) outs(%f : tensor<2x3xf32>) dimensions = [0]
  return %t, %g : tensor<3x2xf32>, tensor<2x3xf32>
}

// 100,000 nested '(' in a type: MLIR's recursive-descent parser overflowed
// its stack (SIGSEGV in Parser::parseTypeListParens; found by fuzz-ir). At
// most 1000 levels are accepted, and 1000 still reach the parser.
// RUN: python3 -c "print('func.func @f(%%a: ' + '(' * 100000 + ') {}')" > %t/deep.mlir
// RUN: sh -c 'ssm-opt %t/deep.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: sh -c 'ssm-run %t/deep.mlir --seed 0; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DEEP
// RUN: sh -c 'ssm-compile %t/deep.mlir -o %t/deep.out; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DEEP
// DEEP: deep.mlir:1:1017: error: brackets nested more than 1000 deep (the parser would overflow its stack)
// DEEP: exit=1
// RUN: python3 -c "print('func.func @f(%%a: ' + '(' * 999 + ') {}')" > %t/deep999.mlir
// RUN: sh -c 'ssm-opt %t/deep999.mlir; echo "exit=$?"' 2>&1 | FileCheck %s --check-prefix=DEEP999
// DEEP999-NOT: nested more than
// DEEP999: error:
// DEEP999: exit=1
