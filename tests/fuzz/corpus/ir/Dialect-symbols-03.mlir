// CHECK-LABEL: func.func @check
// CHECK: tg.check %{{.+}} id = 3 : tensor<?xi1, #tg.sizes<[n]>>
func.func @check(%c: tensor<?xi1, #tg.sizes<[n]>>) attributes {tg.symbols = [#tg.symbol<"n", 1, 64>]} {
  tg.check %c id = 3 : tensor<?xi1, #tg.sizes<[n]>>
  return
}
