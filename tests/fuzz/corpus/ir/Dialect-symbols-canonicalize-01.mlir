// Symbolic bounds between static types are not composed (their integers hold `?`).
// CHECK-LABEL: func.func @window_of_a_window
// CHECK: %[[W:.+]] = tg.slice %arg0 starts = [T] limits = [T + 8] steps = [1] : tensor<64xf32> to tensor<8xf32>
// CHECK: tg.slice %[[W]] starts = [2] limits = [4] steps = [1] : tensor<8xf32> to tensor<2xf32>
func.func @window_of_a_window(%c: tensor<64xf32>) -> tensor<2xf32> attributes {tg.symbols = [#tg.symbol<"T", 1, 32>]} {
  %0 = tg.slice %c starts = [T] limits = [T + 8] steps = [1] : tensor<64xf32> to tensor<8xf32>
  %1 = tg.slice %0 starts = [2] limits = [4] steps = [1] : tensor<8xf32> to tensor<2xf32>
  return %1 : tensor<2xf32>
}
