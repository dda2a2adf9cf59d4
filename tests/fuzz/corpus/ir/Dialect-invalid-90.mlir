func.func @check_needs_a_positive_id(%c: tensor<4xi1>) {
  tg.check %c id = 0 : tensor<4xi1>
  return
}
