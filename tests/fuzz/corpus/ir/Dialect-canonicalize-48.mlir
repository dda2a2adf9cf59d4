func.func @matmul_absorb_batched(%q: tensor<2x4x16x8xf16>, %k: tensor<2x4x8x16xf16>) -> tensor<2x4x8x8xf16> {
  %qt = tg.transpose %q perm = [0, 1, 3, 2] : tensor<2x4x16x8xf16> to tensor<2x4x8x16xf16>
  %kt = tg.transpose %k perm = [0, 1, 3, 2] : tensor<2x4x8x16xf16> to tensor<2x4x16x8xf16>
  %0 = tg.matmul %qt, %kt : tensor<2x4x8x16xf16>, tensor<2x4x16x8xf16> -> tensor<2x4x8x8xf16>
  return %0 : tensor<2x4x8x8xf16>
}
