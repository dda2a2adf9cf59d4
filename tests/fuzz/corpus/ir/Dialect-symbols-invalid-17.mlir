// An update offset that depends on a symbol the function does not have.
func.func @unknown_bound(%c: tensor<16x4xf32>, %u: tensor<1x4xf32>, %p: tensor<i32>) attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{a bound names 'S', which is not one of the function's tg.symbols}}
  %0 = tg.dynamic_update_slice %c, %u, %p axis = 1 offsets = [S, 0] check = 1
       : (tensor<16x4xf32>, tensor<1x4xf32>, tensor<i32>) -> tensor<16x4xf32>
  return
}
