// Input of parser-crashes.mlir (upstream MLIR 19 parser or verifier faults).
"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2x3xf32>) -> tensor<3x2xf32>, sym_name = "f"}> ({
  ^bb0(%arg0: tensor<2x3xf32>):
    %0 = "tensor.empty"() : () -> tensor<3x2xf32>
    %1 = "linalg.transpose"(%arg0, %0) <{permutation = array<i64: 7, 0>}> ({
    ^bb0(%arg1: f32, %arg2: f32):
      "linalg.yield"(%arg1) : (f32) -> ()
    }) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
    "func.return"(%1) : (tensor<3x2xf32>) -> ()
  }) : () -> ()
}) : () -> ()

