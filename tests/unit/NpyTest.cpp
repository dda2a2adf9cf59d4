//===- NpyTest.cpp - numpy .npy reading and writing (tools/tgc/Npy.h) -----===//
//
// Round trips of every dtype, files written by real numpy (embedded as bytes, so no Python is
// needed to run this) and byte-for-byte equality of our output with np.save's. The errors and
// odd write targets are in NpyErrorsTest.cpp.
//
//===----------------------------------------------------------------------===//
#include "NpyTestSupport.h"

namespace {

//===----------------------------------------------------------------------===//
// Round trips
//===----------------------------------------------------------------------===//

class NpyRoundTrip : public NpyTestBase {};

/// A tensor of `shape` with random non-zero elements (bool: random, with at least one true).
HostTensor randomTensor(DType dtype, const Shape& shape, std::mt19937& rng) {
  HostTensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dtype) {
      case DType::F32: {
        float v = std::uniform_real_distribution<float>(0.5f, 100.0f)(rng);
        t.mutableDataAs<float>()[i] = rng() % 2 ? v : -v;
        break;
      }
      case DType::F16:
      case DType::BF16:  // any bit pattern but zero: NaNs and infinities must survive too
        t.mutableDataAs<uint16_t>()[i] = static_cast<uint16_t>(1 + rng() % 0xffff);
        break;
      case DType::I32: {
        auto v = static_cast<int32_t>(rng());
        t.mutableDataAs<int32_t>()[i] = v == 0 ? 7 : v;
        break;
      }
      case DType::Bool:
        t.mutableDataAs<uint8_t>()[i] = i == 0 ? 1 : static_cast<uint8_t>(rng() % 2);
        break;
    }
  }
  return t;
}

TEST_F(NpyRoundTrip, EveryDTypeAndShape) {
  std::mt19937 rng(1234);
  const std::vector<Shape> shapes = {{}, {0, 3}, {1}, {5}, {2, 3}, {3, 1, 4}, {2, 0}, {2, 2, 2, 3}};
  for (DType dtype : {DType::F32, DType::F16, DType::BF16, DType::I32, DType::Bool}) {
    for (const Shape& shape : shapes) {
      SCOPED_TRACE(std::string(tg::dtype_name(dtype)) + " " + tg::format_shape(shape));
      HostTensor t = randomTensor(dtype, shape, rng);
      std::string p = path(std::string("t_") + tg::dtype_name(dtype) + ".npy");
      writeNpy(p, t);

      std::string file = slurp(p);
      ASSERT_GE(file.size(), t.nbytes() + 10);
      size_t headerEnd = file.size() - t.nbytes();
      EXPECT_EQ(headerEnd % 64, 0u) << "data must start at a multiple of 64 bytes";
      EXPECT_EQ(file[headerEnd - 1], '\n');
      EXPECT_EQ(file.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));

      HostTensor back = readNpy(p);
      EXPECT_EQ(back.dtype(), dtype);
      EXPECT_EQ(back.shape(), shape);
      EXPECT_EQ(bytesOf(back), bytesOf(t));
    }
  }
  // Every write went through a temporary file that was renamed away.
  EXPECT_EQ(listing(), (std::vector<std::string>{"t_bf16.npy", "t_bool.npy", "t_f16.npy",
                                                 "t_f32.npy", "t_i32.npy"}));
}

TEST_F(NpyRoundTrip, ZeroDimensionalScalar) {
  HostTensor t = HostTensor::fromFloats(DType::F32, {}, std::vector<float>{-3.5f});
  std::string p = path("s.npy");
  writeNpy(p, t);
  EXPECT_NE(slurp(p).find("'shape': (), }"), std::string::npos) << slurp(p);
  HostTensor back = readNpy(p);
  EXPECT_EQ(back.shape(), Shape{});
  EXPECT_EQ(back.numel(), 1);
  EXPECT_EQ(back.floatAt(0), -3.5f);
}

TEST_F(NpyRoundTrip, OverwritesAnExistingFile) {
  std::string p = put("x.npy", std::string(1000, 'z'));
  HostTensor t = HostTensor::fromInts(DType::I32, {2}, std::vector<int32_t>{5, -6});
  writeNpy(p, t);
  EXPECT_EQ(elements<int32_t>(readNpy(p)), (std::vector<int32_t>{5, -6}));
  EXPECT_EQ(listing(), std::vector<std::string>{"x.npy"});
}

TEST_F(NpyRoundTrip, LongHeaderStaysVersionOne) {
  // 40 dimensions: a header of more than 128 bytes, still version 1.0 and still aligned.
  Shape shape(40, 1);
  shape[7] = 3;
  HostTensor t = HostTensor::fromFloats(DType::F32, shape, std::vector<float>{1, 2, 3});
  std::string p = path("long.npy");
  writeNpy(p, t);
  std::string file = slurp(p);
  EXPECT_EQ(file[6], '\x01');
  EXPECT_EQ((file.size() - 12) % 64, 0u);
  HostTensor back = readNpy(p);
  EXPECT_EQ(back.shape(), shape);
  EXPECT_EQ(back.toFloats(), (std::vector<float>{1, 2, 3}));
}

//===----------------------------------------------------------------------===//
// Files written by numpy
//===----------------------------------------------------------------------===//

class NpyFromNumpy : public NpyTestBase {};

TEST_F(NpyFromNumpy, F32Matrix) {
  HostTensor t = readNpy(put("f32.npy", kF32));
  EXPECT_EQ(t.dtype(), DType::F32);
  EXPECT_EQ(t.shape(), (Shape{2, 3}));
  EXPECT_EQ(elements<float>(t), (std::vector<float>{1.5f, -2.0f, 3.25f, 0.0f, 1e-3f, -7.0f}));
}

TEST_F(NpyFromNumpy, F16Vector) {
  HostTensor t = readNpy(put("f16.npy", kF16));
  EXPECT_EQ(t.dtype(), DType::F16);
  EXPECT_EQ(t.shape(), (Shape{4}));
  // 1.0, -0.5, 65504 (the f16 max) and 0.333 rounded to f16, as numpy's .view('<u2') shows.
  EXPECT_EQ(elements<uint16_t>(t), (std::vector<uint16_t>{15360, 47104, 31743, 13652}));
  EXPECT_EQ(t.floatAt(2), 65504.0f);
}

TEST_F(NpyFromNumpy, I32Matrix) {
  HostTensor t = readNpy(put("i4.npy", kI4));
  EXPECT_EQ(t.dtype(), DType::I32);
  EXPECT_EQ(t.shape(), (Shape{2, 2}));
  EXPECT_EQ(elements<int32_t>(t), (std::vector<int32_t>{1, -2, 2147483647, -2147483647 - 1}));
}

TEST_F(NpyFromNumpy, BoolVector) {
  HostTensor t = readNpy(put("b1.npy", kB1));
  EXPECT_EQ(t.dtype(), DType::Bool);
  EXPECT_EQ(t.shape(), (Shape{3}));
  EXPECT_EQ(elements<uint8_t>(t), (std::vector<uint8_t>{1, 0, 1}));
}

TEST_F(NpyFromNumpy, MlDtypesBfloat16BothDescriptors) {
  // 1.0, -2.5 and 3.140625 as bf16 bit patterns (np.load(p).view('<u2')).
  const std::vector<uint16_t> expected = {0x3f80, 0xc020, 0x4049};
  for (const Bytes* fixture : {&kBf16Lt, &kBf16Bar}) {
    HostTensor t = readNpy(put("bf16.npy", *fixture));
    EXPECT_EQ(t.dtype(), DType::BF16);
    EXPECT_EQ(t.shape(), (Shape{3}));
    EXPECT_EQ(elements<uint16_t>(t), expected);
    EXPECT_EQ(t.floatAt(1), -2.5f);
  }
}

TEST_F(NpyFromNumpy, Version2And3) {
  HostTensor t = readNpy(put("v2.npy", kV2));
  EXPECT_EQ(t.dtype(), DType::F32);
  EXPECT_EQ(t.shape(), (Shape{1, 2}));
  EXPECT_EQ(elements<float>(t), (std::vector<float>{1.0f, 2.0f}));
  HostTensor s = readNpy(put("v3.npy", kV3));
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(elements<float>(s), std::vector<float>{5.0f});
}

TEST_F(NpyFromNumpy, ScalarAndEmpty) {
  HostTensor s = readNpy(put("scalar.npy", kScalar));
  EXPECT_EQ(s.dtype(), DType::I32);
  EXPECT_EQ(s.shape(), Shape{});
  EXPECT_EQ(elements<int32_t>(s), std::vector<int32_t>{42});
  HostTensor e = readNpy(put("empty.npy", kEmpty));
  EXPECT_EQ(e.dtype(), DType::F32);
  EXPECT_EQ(e.shape(), (Shape{0, 3}));
  EXPECT_EQ(e.numel(), 0);
}

TEST_F(NpyFromNumpy, WritesExactlyWhatNumpyWrites) {
  // Reading numpy's file and writing it back gives numpy's bytes (header, spare spaces,
  // padding and all); bf16 is written as '|V2', i.e. as np.save writes a loaded bf16 array.
  struct Case {
    const char* name;
    const Bytes* in;
    const Bytes* expected;
  };
  for (const Case& c : {Case{"f32", &kF32, &kF32}, Case{"f16", &kF16, &kF16},
                        Case{"i4", &kI4, &kI4}, Case{"b1", &kB1, &kB1},
                        Case{"bf16", &kBf16Lt, &kBf16Bar}, Case{"bf16bar", &kBf16Bar, &kBf16Bar},
                        Case{"v2", &kV2, nullptr}, Case{"scalar", &kScalar, &kScalar},
                        Case{"empty", &kEmpty, &kEmpty}, Case{"rank16", &kRank16, &kRank16}}) {
    SCOPED_TRACE(c.name);
    HostTensor t = readNpy(put("in.npy", *c.in));
    std::string out = path("out.npy");
    writeNpy(out, t);
    if (c.expected) {
      EXPECT_EQ(slurp(out), str(*c.expected));
    } else {
      // numpy's version-1.0 file for the v2 contents: same data after a 128-byte header.
      EXPECT_EQ(slurp(out).size(), 128u + 8u);
      EXPECT_EQ(slurp(out).substr(128), str(kV2).substr(128));
    }
  }
}

TEST_F(NpyFromNumpy, Rank16) {
  HostTensor t = readNpy(put("rank16.npy", kRank16));
  EXPECT_EQ(t.shape(), Shape(16, 1));
  EXPECT_EQ(elements<float>(t), std::vector<float>{2.5f});
}

TEST_F(NpyFromNumpy, AcceptsHeaderVariants) {
  const std::string data = f32Data({1, 2});
  for (const std::string& h : {
           std::string("{\"shape\": (2,), \"fortran_order\": False, \"descr\": \"<f4\"}\n"),
           std::string("{'descr':'<f4','fortran_order':False,'shape':(2,)}"),
           std::string("  { 'descr' : '<f4' ,\n 'fortran_order' : False , 'shape' : ( 2 , ) , }  \n"),
           std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (2L,), }\n"),
           std::string("{'descr': '<f4', 'fortran_order': False, 'shape': ((2),), }\n"),
       }) {
    SCOPED_TRACE(h);
    HostTensor t = readNpy(put("h.npy", makeNpy(h, data)));
    EXPECT_EQ(t.shape(), (Shape{2}));
    EXPECT_EQ(elements<float>(t), (std::vector<float>{1, 2}));
  }
  HostTensor v3 = readNpy(put("h3.npy", makeNpy(header("<f4", "(2,)"), data, 3)));
  EXPECT_EQ(elements<float>(v3), (std::vector<float>{1, 2}));
}

TEST_F(NpyFromNumpy, NonZeroBoolBytesReadAsTrue) {
  HostTensor t = readNpy(put("b.npy", makeNpy(header("|b1", "(3,)"), std::string("\x00\x02\xff", 3))));
  EXPECT_EQ(elements<uint8_t>(t), (std::vector<uint8_t>{0, 1, 1}));
}

}  // namespace
