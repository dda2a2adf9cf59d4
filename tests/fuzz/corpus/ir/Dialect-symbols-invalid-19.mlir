func.func @size_not_a_scalar() attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{result must be a 0-d numeric tensor (i32, f32, f16 or bf16), got 'tensor<2xi32>'}}
  %0 = tg.size #tg.sizes<[T]> as tensor<2xi32>
  return
}
