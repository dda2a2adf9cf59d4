func.func private @declaration(%x: tensor<4xf32>) -> tensor<4xf32>
