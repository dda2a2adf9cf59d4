// A size as a number: the decoder's next position, pos + T.
// CHECK-LABEL: func.func @next_position
// CHECK: %[[T:.+]] = tg.size #tg.sizes<[T]> as tensor<i32>
// CHECK: tg.add %{{.+}}, %[[T]] : tensor<i32>
func.func @next_position(%pos: tensor<i32>) -> tensor<i32> attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  %t = tg.size #tg.sizes<[T]> as tensor<i32>
  %0 = tg.add %pos, %t : tensor<i32>
  return %0 : tensor<i32>
}
