func.func @size_without_symbols() {
  // expected-error @+1 {{reads a size outside a function with tg.symbols}}
  %0 = tg.size #tg.sizes<[T]> as tensor<i32>
  return
}
