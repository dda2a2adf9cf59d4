//===- HostElements.cpp - Dense attributes <-> host tensors ---------------===//
#include "tg/Dialect/HostElements.h"

#include "tg/Dialect/OpDescription.h"
#include "tg/Support/Error.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace mlir;

namespace tg::ir {

namespace {

/// Element `i` of `elements` stored into `t` (f32 widening of floats is exact).
void storeElement(ref::HostTensor& t, int64_t i, Attribute element) {
  if (auto f = dyn_cast<FloatAttr>(element)) {
    APFloat v = f.getValue();
    bool lost;
    v.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
    t.setFloat(i, v.convertToFloat());
  } else {
    const APInt& v = cast<IntegerAttr>(element).getValue();
    t.setInt(i, static_cast<int32_t>(t.dtype() == DType::Bool ? v.getZExtValue()
                                                              : v.getSExtValue()));
  }
}

}  // namespace

ref::HostTensor hostFromElements(DenseElementsAttr elements) {
  std::optional<graph::TensorType> type = typeOf(elements.getType());
  if (!type) throw Error("a constant of a type tg does not have");
  ref::HostTensor t(type->dtype, type->shape);
  const int64_t n = t.numel();
  if (n == 0) return t;
  if (elements.isSplat()) {
    storeElement(t, 0, elements.getSplatValue<Attribute>());
    const size_t size = dtype_size(t.dtype());
    for (int64_t i = 1; i < n; ++i)
      std::copy(t.data(), t.data() + size, t.mutableData() + i * size);
    return t;
  }
  int64_t i = 0;
  for (Attribute element : elements.getValues<Attribute>()) storeElement(t, i++, element);
  return t;
}

std::optional<ref::HostTensor> splatElement(DenseElementsAttr splat) {
  std::optional<DType> dtype = dtypeOf(splat.getElementType());
  if (!dtype) return std::nullopt;
  ref::HostTensor t(*dtype, {});
  storeElement(t, 0, splat.getSplatValue<Attribute>());
  return t;
}

DenseElementsAttr elementsFromHost(const ref::HostTensor& host, ShapedType type, bool splat) {
  Type element = type.getElementType();
  if (!splat && host.numel() != type.getNumElements())
    throw Error("a constant of " + std::to_string(host.numel()) + " elements for a type of " +
                std::to_string(type.getNumElements()));
  const int64_t n = splat ? 1 : host.numel();
  if (auto floatType = dyn_cast<FloatType>(element)) {
    SmallVector<APFloat> values;
    for (int64_t i = 0; i < n; ++i) {
      APFloat v(host.floatAt(i));  // already rounded to the dtype: the conversion is exact
      bool lost;
      v.convert(floatType.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    return splat ? DenseElementsAttr::get(type, values[0]) : DenseElementsAttr::get(type, values);
  }
  const unsigned width = element.getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = host.intAt(i);
    values.push_back(width == 1 ? APInt(1, v != 0 ? 1 : 0)
                                : APInt(width, static_cast<uint64_t>(v), /*isSigned=*/true,
                                        /*implicitTrunc=*/true));
  }
  return splat ? DenseElementsAttr::get(type, values[0]) : DenseElementsAttr::get(type, values);
}

}  // namespace tg::ir
