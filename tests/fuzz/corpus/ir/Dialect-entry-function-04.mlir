func.func @scalar_argument(%x: f32) {
  return
}
