func.func @fusion_empty_block() {
  tg.fusion gemm () : () -> () {
  ^bb0:
  }
  return
}
