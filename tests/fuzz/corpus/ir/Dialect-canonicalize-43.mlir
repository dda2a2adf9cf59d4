func.func @transpose_splat() -> tensor<4x2xf16> {
  %c = tg.constant dense<-1.0> : tensor<2x4xf16>
  %0 = tg.transpose %c perm = [1, 0] : tensor<2x4xf16> to tensor<4x2xf16>
  return %0 : tensor<4x2xf16>
}
