func.func private @callee(%x: tensor<4xf32>) -> tensor<4xf32>

func.func @foreign_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @callee(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
