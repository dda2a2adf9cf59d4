func.func @matmul_i32(%a: tensor<4x4xi32>, %b: tensor<4x4xi32>) {
  %0 = tg.matmul %a, %b : tensor<4x4xi32>, tensor<4x4xi32> -> tensor<4x4xi32>
  return
}
