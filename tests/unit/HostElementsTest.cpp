//===- HostElementsTest.cpp - Dense attributes <-> host tensors -----------===//
//
// tg::ir::hostFromElements / splatElement / elementsFromHost (tg/Dialect/HostElements.h), the
// one conversion the importer, the folds, the interpreter and code generation share: every
// dtype survives host -> attribute -> host bit for bit on fresh random values, splats expand,
// and a constant of the wrong element count is an error, not an out-of-bounds read.
//
//===----------------------------------------------------------------------===//
#include "tg/Dialect/HostElements.h"

#include "tg/Compiler/Context.h"
#include "tg/Dialect/OpDescription.h"
#include "tg/Support/Error.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

namespace {

using tg::DType;
using tg::ref::HostTensor;

mlir::RankedTensorType typeOf(DType dtype, llvm::ArrayRef<int64_t> shape) {
  return mlir::RankedTensorType::get(shape, tg::ir::elementTypeOf(&tg::compiler::sharedContext(), dtype));
}

/// Fresh random values of `dtype`, with the edge values of the dtype among them.
HostTensor randomHost(DType dtype, const tg::Shape& shape, uint32_t seed) {
  std::mt19937 rng(seed);
  HostTensor t(dtype, shape);
  std::normal_distribution<float> normal(0.0f, 100.0f);
  std::uniform_int_distribution<int32_t> ints(std::numeric_limits<int32_t>::min(),
                                              std::numeric_limits<int32_t>::max());
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == DType::I32) t.setInt(i, i == 0 ? std::numeric_limits<int32_t>::min() : ints(rng));
    else if (dtype == DType::Bool) t.setInt(i, static_cast<int32_t>(rng() & 1));
    else t.setFloat(i, i == 0 ? -0.0f : i == 1 ? 1e-40f : normal(rng));  // -0 and a subnormal
  }
  return t;
}

TEST(HostElements, EveryDTypeRoundTripsBitForBit) {
  for (DType dtype : {DType::F32, DType::BF16, DType::F16, DType::I32, DType::Bool}) {
    SCOPED_TRACE(tg::dtype_name(dtype));
    const HostTensor host = randomHost(dtype, {3, 7}, 1234 + static_cast<uint32_t>(dtype));
    mlir::DenseElementsAttr dense = tg::ir::elementsFromHost(host, typeOf(dtype, {3, 7}));
    ASSERT_FALSE(dense.isSplat());
    const HostTensor back = tg::ir::hostFromElements(dense);
    EXPECT_EQ(back.dtype(), dtype);
    EXPECT_EQ(back.shape(), host.shape());
    ASSERT_EQ(back.nbytes(), host.nbytes());
    EXPECT_EQ(std::memcmp(back.data(), host.data(), host.nbytes()), 0);
  }
}

TEST(HostElements, ASplatIsItsFirstElementEverywhere) {
  for (DType dtype : {DType::F32, DType::BF16, DType::F16, DType::I32, DType::Bool}) {
    SCOPED_TRACE(tg::dtype_name(dtype));
    const HostTensor host = randomHost(dtype, {5}, 99);
    mlir::DenseElementsAttr splat = tg::ir::elementsFromHost(host, typeOf(dtype, {2, 3}), /*splat=*/true);
    ASSERT_TRUE(splat.isSplat());
    const HostTensor all = tg::ir::hostFromElements(splat);
    ASSERT_EQ(all.numel(), 6);
    const size_t size = tg::dtype_size(dtype);
    for (int64_t i = 0; i < 6; ++i)
      EXPECT_EQ(std::memcmp(all.data() + i * size, host.data(), size), 0) << "element " << i;
    std::optional<HostTensor> one = tg::ir::splatElement(splat);
    ASSERT_TRUE(one.has_value());
    EXPECT_EQ(one->rank(), 0);
    EXPECT_EQ(std::memcmp(one->data(), host.data(), size), 0);
  }
}

TEST(HostElements, DenseAttributesBuiltInCpp) {
  // Attributes made by MLIR itself, not by elementsFromHost.
  auto f = mlir::DenseElementsAttr::get(typeOf(DType::F32, {3}), llvm::ArrayRef<float>({0.5f, -2.0f, 1e30f}));
  EXPECT_EQ(tg::ir::hostFromElements(f).toFloats(), (std::vector<float>{0.5f, -2.0f, 1e30f}));
  const int32_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  auto i = mlir::DenseElementsAttr::get(typeOf(DType::I32, {2, 2}), llvm::ArrayRef<int32_t>({1, lo, -1, hi}));
  EXPECT_EQ(tg::ir::hostFromElements(i).toInts(), (std::vector<int32_t>{1, lo, -1, hi}));
  auto b = mlir::DenseElementsAttr::get(typeOf(DType::Bool, {3}), llvm::ArrayRef<bool>({true, false, true}));
  EXPECT_EQ(tg::ir::hostFromElements(b).toInts(), (std::vector<int32_t>{1, 0, 1}));
}

TEST(HostElements, TheWrongElementCountIsAnError) {
  const HostTensor host = randomHost(DType::F32, {4}, 7);
  EXPECT_THROW(tg::ir::elementsFromHost(host, typeOf(DType::F32, {5})), tg::Error);
  EXPECT_NO_THROW(tg::ir::elementsFromHost(host, typeOf(DType::F32, {5}), /*splat=*/true));
}

}  // namespace
