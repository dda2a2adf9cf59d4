// RUN: tgc dump %s --stage=cuda --arch=sm_90a | FileCheck %s
//
// A window at T of a static tensor (a slice whose bounds are sizes between static types):
// the kernel is generated over the symbols, its read at T + 2 + i with T a size argument.
// (The static paths once read the `?` start as a number: the IR fuzzer's seed from
// symbols-canonicalize.mlir overflowed the index arithmetic under UBSan.)

// CHECK: long long z0_;
// CHECK: in0[i + 2u + 1u * (unsigned)z0_]
func.func @window_of_a_window(%c: tensor<64xf32>) -> tensor<2xf32> attributes {tg.symbols = [#tg.symbol<"T", 1, 32>]} {
  %0 = tg.slice %c starts = [T] limits = [T + 8] steps = [1] : tensor<64xf32> to tensor<8xf32>
  %1 = tg.slice %0 starts = [2] limits = [4] steps = [1] : tensor<8xf32> to tensor<2xf32>
  return %1 : tensor<2xf32>
}
