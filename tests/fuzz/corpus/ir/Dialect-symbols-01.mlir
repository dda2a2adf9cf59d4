// CHECK-LABEL: func.func @signs_and_powers
// CHECK-SAME: tg.c = #tg.sizes<[-T + 3, T*T, 4*T, 1]>
func.func @signs_and_powers() attributes {tg.c = #tg.sizes<[3 - T, T * T, T + T * 3, - -1]>} {
  return
}
