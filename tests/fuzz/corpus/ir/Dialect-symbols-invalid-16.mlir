// A bound that goes past the extent at some size in the range.
!x = tensor<?x8xf32, #tg.sizes<[T, 8]>>
func.func @bound_past_extent(%x: !x) attributes {tg.symbols = [#tg.symbol<"T", 1, 8>]} {
  // expected-error @+1 {{cannot be sliced from 0 to 3 (need 0 <= start <= limit <= 2) (at T = 2)}}
  %0 = tg.slice %x starts = [0, 0] limits = [T + 1, 8] steps = [1, 1] : !x to tensor<?x8xf32, #tg.sizes<[T + 1, 8]>>
  return
}
