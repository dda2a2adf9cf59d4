//===- NpyTest.cpp - numpy .npy reading and writing (tools/tgc/Npy.h) -----===//
//
// Round trips of every dtype, files written by real numpy (embedded as bytes, so no Python is
// needed to run this), byte-for-byte equality of our output with np.save's, and every error.
//
//===----------------------------------------------------------------------===//
#include "tgc/Npy.h"

#include "BoundedChild.h"
#include "tg/Support/Error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace {

using tg::DType;
using tg::Shape;
using tg::ref::HostTensor;
using tg::tools::readNpy;
using tg::tools::writeNpy;
namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

//===----------------------------------------------------------------------===//
// Fixtures: the exact bytes numpy 2.4.6 (with ml_dtypes 0.6.0) wrote for
//   f32:     np.save(p, np.array([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], dtype=np.float32))
//   f16:     np.save(p, np.array([1.0, -0.5, 65504, 0.333], dtype=np.float16))
//   i4:      np.save(p, np.array([[1, -2], [2**31 - 1, -2**31]], dtype=np.int32))
//   b1:      np.save(p, np.array([True, False, True]))
//   bf16:    np.save(p, np.array([1.0, -2.5, 3.140625], dtype=ml_dtypes.bfloat16))  ('<V2')
//   bf16bar: np.save(p, np.load(bf16_path))                                          ('|V2')
//   v2:      np.lib.format.write_array(f, np.array([[1.0, 2.0]], np.float32), version=(2, 0))
//   v3:      np.lib.format.write_array(f, np.array(5.0, np.float32), version=(3, 0))
//   scalar:  np.save(p, np.array(42, dtype=np.int32))
//   empty:   np.save(p, np.zeros((0, 3), dtype=np.float32))
//   fortran: np.save(p, np.asfortranarray(np.ones((2, 3), dtype=np.float32)))
//   be:      np.save(p, np.ones(2, dtype='>f4'))
//   rank16:  np.save(p, np.full((1,) * 16, 2.5, dtype=np.float32))
//            (its header needs numpy's 20 spare spaces to reach 192 bytes rather than 128)
//===----------------------------------------------------------------------===//

// f32.npy, 152 bytes; header: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
const Bytes kF32 = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x20,
    0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x00, 0xc0, 0x00, 0x00, 0x50, 0x40, 0x00, 0x00, 0x00, 0x00,
    0x6f, 0x12, 0x83, 0x3a, 0x00, 0x00, 0xe0, 0xc0,
};
// f16.npy, 136 bytes; header: {'descr': '<f2', 'fortran_order': False, 'shape': (4,), }
const Bytes kF16 = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x32, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x34, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x3c, 0x00, 0xb8, 0xff, 0x7b, 0x54, 0x35,
};
// i4.npy, 144 bytes; header: {'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }
const Bytes kI4 = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x69, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x20,
    0x32, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x01, 0x00, 0x00, 0x00, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0x00, 0x00, 0x00, 0x80,
};
// b1.npy, 131 bytes; header: {'descr': '|b1', 'fortran_order': False, 'shape': (3,), }
const Bytes kB1 = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x62, 0x31, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x33, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x01, 0x00, 0x01,
};
// bf16.npy, 134 bytes; header: {'descr': '<V2', 'fortran_order': False, 'shape': (3,), }
const Bytes kBf16Lt = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x56, 0x32, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x33, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x80, 0x3f, 0x20, 0xc0, 0x49, 0x40,
};
// bf16bar.npy, 134 bytes; header: {'descr': '|V2', 'fortran_order': False, 'shape': (3,), }
const Bytes kBf16Bar = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x7c, 0x56, 0x32, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x33, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x80, 0x3f, 0x20, 0xc0, 0x49, 0x40,
};
// v2.npy, 136 bytes; header: {'descr': '<f4', 'fortran_order': False, 'shape': (1, 2), }
const Bytes kV2 = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x02, 0x00, 0x74, 0x00, 0x00, 0x00, 0x7b, 0x27, 0x64, 0x65,
    0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f,
    0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61,
    0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x31,
    0x2c, 0x20, 0x32, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40,
};
// v3.npy, 132 bytes; header: {'descr': '<f4', 'fortran_order': False, 'shape': (), }
const Bytes kV3 = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x03, 0x00, 0x74, 0x00, 0x00, 0x00, 0x7b, 0x27, 0x64, 0x65,
    0x73, 0x63, 0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f,
    0x72, 0x74, 0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61,
    0x6c, 0x73, 0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0xa0, 0x40,
};
// scalar.npy, 132 bytes; header: {'descr': '<i4', 'fortran_order': False, 'shape': (), }
const Bytes kScalar = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x69, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x29, 0x2c, 0x20,
    0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x2a, 0x00, 0x00, 0x00,
};
// empty.npy, 128 bytes; header: {'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }
const Bytes kEmpty = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x30, 0x2c, 0x20,
    0x33, 0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
};
// fortran.npy, 152 bytes; header: {'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }
const Bytes kFortran = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x54, 0x72, 0x75, 0x65,
    0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x20, 0x33,
    0x29, 0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x80, 0x3f,
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x80, 0x3f,
};
// be.npy, 136 bytes; header: {'descr': '>f4', 'fortran_order': False, 'shape': (2,), }
const Bytes kBigEndian = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0x76, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3e, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x32, 0x2c, 0x29,
    0x2c, 0x20, 0x7d, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x3f, 0x80, 0x00, 0x00, 0x3f, 0x80, 0x00, 0x00,
};
// rank16.npy, 196 bytes; header: {'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), }
const Bytes kRank16 = {
    0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 0x01, 0x00, 0xb6, 0x00, 0x7b, 0x27, 0x64, 0x65, 0x73, 0x63,
    0x72, 0x27, 0x3a, 0x20, 0x27, 0x3c, 0x66, 0x34, 0x27, 0x2c, 0x20, 0x27, 0x66, 0x6f, 0x72, 0x74,
    0x72, 0x61, 0x6e, 0x5f, 0x6f, 0x72, 0x64, 0x65, 0x72, 0x27, 0x3a, 0x20, 0x46, 0x61, 0x6c, 0x73,
    0x65, 0x2c, 0x20, 0x27, 0x73, 0x68, 0x61, 0x70, 0x65, 0x27, 0x3a, 0x20, 0x28, 0x31, 0x2c, 0x20,
    0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31,
    0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c,
    0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x2c, 0x20, 0x31, 0x29, 0x2c, 0x20, 0x7d, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20,
    0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x20, 0x0a,
    0x00, 0x00, 0x20, 0x40,
};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

std::string str(const Bytes& b) { return std::string(b.begin(), b.end()); }

/// A .npy file with `header` (taken as is: no padding added) and `data`.
std::string makeNpy(const std::string& header, const std::string& data, int major = 1) {
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  size_t lenBytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < lenBytes; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

/// A header dict with the given values, as numpy spells it.
std::string header(const std::string& descr, const std::string& shape,
                   const std::string& fortran = "False") {
  return "{'descr': '" + descr + "', 'fortran_order': " + fortran + ", 'shape': " + shape +
         ", }\n";
}

std::string f32Data(std::initializer_list<float> values) {
  std::string s(values.size() * 4, '\0');
  std::memcpy(s.data(), std::data(values), s.size());
  return s;
}

std::string bytesOf(const HostTensor& t) {
  return std::string(reinterpret_cast<const char*>(t.data()), t.nbytes());
}

template <typename T>
std::vector<T> elements(const HostTensor& t) {
  std::vector<T> v(static_cast<size_t>(t.numel()));
  if (!v.empty()) std::memcpy(v.data(), t.data(), t.nbytes());
  return v;
}

class NpyTestBase : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("tg_npy_" + std::to_string(::getpid()) + "_" +
                                        info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  /// Writes `contents` to a file in the test directory and returns its path.
  std::string put(const std::string& name, const std::string& contents) const {
    std::string p = path(name);
    std::ofstream(p, std::ios::binary) << contents;
    return p;
  }
  std::string put(const std::string& name, const Bytes& contents) const {
    return put(name, str(contents));
  }

  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  /// The names of the files in the test directory.
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  /// Expects `fn` to throw a tg::Error whose message starts with "<p>: " and contains every
  /// fragment.
  template <typename Fn>
  static void expectError(Fn fn, const std::string& p,
                          std::initializer_list<std::string> fragments) {
    try {
      fn();
      ADD_FAILURE() << "expected a tg::Error for " << p;
    } catch (const tg::Error& e) {
      EXPECT_EQ(e.message().rfind(p + ": ", 0), 0u) << "does not start with the path: "
                                                    << e.message();
      for (const std::string& f : fragments)
        EXPECT_NE(e.message().find(f), std::string::npos)
            << "'" << f << "' not in: " << e.message();
    }
  }
  static void expectReadError(const std::string& p, std::initializer_list<std::string> fragments) {
    expectError([&] { (void)readNpy(p); }, p, fragments);
  }

  fs::path dir_;
};

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

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

class NpyErrors : public NpyTestBase {};

TEST_F(NpyErrors, MissingFileAndDirectory) {
  expectReadError(path("nope.npy"), {"cannot open", "No such file"});
  expectReadError(dir_.string(), {"read error", "Is a directory"});
}

TEST_F(NpyErrors, BadMagic) {
  expectReadError(put("empty.npy", ""), {"not a .npy file", "empty"});
  expectReadError(put("zip.npy", std::string("PK\x03\x04 not numpy at all")),  // 21 bytes
                  {"not a .npy file", "magic"});
  expectReadError(put("short.npy", "\x93NUM"), {"not a .npy file", "magic"});
  expectReadError(put("text.npy", "1.0, 2.0\n"), {"not a .npy file"});
}

TEST_F(NpyErrors, TruncatedPreamble) {
  expectReadError(put("a.npy", "\x93NUMPY\x01"), {"truncated", "version"});
  expectReadError(put("b.npy", std::string("\x93NUMPY\x01\x00\x76", 9)),
                  {"truncated", "header length"});
  // Version 2.0 has a 4-byte length: 2 bytes are not enough.
  expectReadError(put("c.npy", std::string("\x93NUMPY\x02\x00\x76\x00", 10)),
                  {"truncated", "header length"});
}

TEST_F(NpyErrors, UnsupportedVersion) {
  expectReadError(put("v4.npy", makeNpy(header("<f4", "(1,)"), f32Data({1}), 4)),
                  {"unsupported .npy format version 4.0", "1.0, 2.0 and 3.0"});
  std::string v11 = str(kF32);
  v11[7] = '\x01';
  expectReadError(put("v11.npy", v11), {"version 1.1"});
}

TEST_F(NpyErrors, TruncatedHeader) {
  expectReadError(put("t.npy", str(kF32).substr(0, 60)),
                  {"truncated header", "118 header bytes", "only 50"});
  // A lying 4 GiB header length in a tiny file.
  std::string lie = str(kV2);
  lie[8] = lie[9] = lie[10] = lie[11] = '\xff';
  expectReadError(put("lie.npy", lie), {"truncated header", "4294967295"});
}

TEST_F(NpyErrors, HeaderNotADict) {
  expectReadError(put("list.npy", makeNpy("['<f4', False, (2,)]\n", f32Data({1, 2}))),
                  {"malformed header", "not a Python dict literal"});
  expectReadError(put("blank.npy", makeNpy("        \n", "")),
                  {"malformed header", "not a Python dict literal"});
  expectReadError(put("open.npy", makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",
                                          f32Data({1, 2}))),
                  {"malformed header", "unexpected end"});
  expectReadError(put("junk.npy", makeNpy(header("<f4", "(2,)") + "x", f32Data({1, 2}))),
                  {"malformed header", "after the dict"});
  expectReadError(put("quote.npy", makeNpy("{'descr: '<f4'}\n", "")), {"malformed header"});
  expectReadError(put("call.npy", makeNpy("{'descr': dtype('<f4')}\n", "")),
                  {"malformed header", "unexpected 'dtype'"});
  expectReadError(put("key.npy", makeNpy("{1: '<f4'}\n", "")),
                  {"malformed header", "key 1 is not a string"});
}

TEST_F(NpyErrors, MissingDuplicateOrExtraKeys) {
  const std::string data = f32Data({1, 2});
  expectReadError(put("d.npy", makeNpy("{'fortran_order': False, 'shape': (2,), }\n", data)),
                  {"'descr' key is missing"});
  expectReadError(put("f.npy", makeNpy("{'descr': '<f4', 'shape': (2,), }\n", data)),
                  {"'fortran_order' key is missing"});
  expectReadError(put("s.npy", makeNpy("{'descr': '<f4', 'fortran_order': False}\n", data)),
                  {"'shape' key is missing"});
  expectReadError(put("x.npy", makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                                       "'extra': 1}\n", data)),
                  {"unexpected key 'extra'"});
  expectReadError(put("dup.npy", makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), "
                                         "'shape': (2,)}\n", data)),
                  {"duplicate key 'shape'"});
}

TEST_F(NpyErrors, ShapeNotATupleOfNonNegativeInts) {
  for (const char* shape : {"[2]", "2", "(2)", "(2, -1)", "(2, '3')", "((2,),)", "None",
                            "(True,)"}) {
    SCOPED_TRACE(shape);
    expectReadError(put("s.npy", makeNpy(header("<f4", shape), f32Data({1, 2}))),
                    {std::string("'shape' is ") + shape, "not a tuple of non-negative integers"});
  }
  expectReadError(put("f.npy", makeNpy(header("<f4", "(2.0,)"), f32Data({1, 2}))),
                  {"malformed header", "not an integer"});
  expectReadError(put("big.npy", makeNpy(header("<f4", "(99999999999999999999,)"), "")),
                  {"malformed header", "integer out of range"});
  expectReadError(put("huge.npy", makeNpy(header("<f4", "(4611686018427387904, 4)"), "")),
                  {"too large"});
}

TEST_F(NpyErrors, FortranOrder) {
  expectReadError(put("fortran.npy", kFortran),
                  {"Fortran", "column-major", "np.ascontiguousarray"});
  expectReadError(put("fo.npy", makeNpy(header("<f4", "(2,)", "0"), f32Data({1, 2}))),
                  {"'fortran_order' is 0, not True or False"});
}

TEST_F(NpyErrors, UnsupportedDTypes) {
  expectReadError(put("be.npy", kBigEndian), {"big-endian", "'>f4'", ".astype('<f4')"});
  expectReadError(put("f8.npy", makeNpy(header("<f8", "(1,)"), std::string(8, '\0'))),
                  {"'<f8'", "float64", ".astype(np.float32)"});
  expectReadError(put("i8.npy", makeNpy(header("<i8", "(1,)"), std::string(8, '\0'))),
                  {"'<i8'", "int64", ".astype(np.int32)"});
  for (const char* descr : {"|u1", "<u4", "<i2", "|i1", "<c8", "|V4", "<U3", "|O", "=f4", "f4"}) {
    SCOPED_TRACE(descr);
    expectReadError(put("u.npy", makeNpy(header(descr, "(1,)"), std::string(4, '\0'))),
                    {std::string("unsupported dtype '") + descr + "'", "'<f4'", "'|V2'"});
  }
  expectReadError(put("rec.npy", makeNpy("{'descr': [('a', '<f4')], 'fortran_order': False, "
                                         "'shape': (1,), }\n", f32Data({1}))),
                  {"structured dtypes are not supported", "[('a', '<f4')]"});
}

TEST_F(NpyErrors, DataShorterThanTheShape) {
  expectReadError(put("short.npy", str(kF32).substr(0, kF32.size() - 4)),
                  {"truncated data", "shape [2, 3] of f32 needs 24 data bytes", "only 20"});
  expectReadError(put("none.npy", str(kScalar).substr(0, 128)),
                  {"truncated data", "needs 4 data bytes", "only 0"});
  // A huge (but representable) shape must be reported, not allocated.
  expectReadError(put("huge.npy", makeNpy(header("<f4", "(1099511627776,)"), "")),
                  {"truncated data", "needs 4398046511104 data bytes"});
  // Past 2^48 bytes no tg tensor can hold it.
  expectReadError(put("huger.npy", makeNpy(header("<f4", "(1099511627776, 1024)"), "")),
                  {"f32[1099511627776, 1024] takes more than 2^48 bytes"});
}

/// Reads `contents` through a pipe (/proc/self/fd/N of its read end, fed by a thread), as
/// `tgc run --input /dev/stdin` does: a pipe has no size to check before allocating.
HostTensor readThroughPipe(const std::string& contents) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::thread writer([&] {
    for (size_t done = 0; done < contents.size();) {
      ssize_t n = ::write(fds[1], contents.data() + done, contents.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    ::close(fds[1]);
  });
  struct Joiner {
    std::thread& t;
    int fd;
    ~Joiner() {
      ::close(fd);  // a reader that stops early must not leave the writer blocked
      t.join();
    }
  } joiner{writer, fds[0]};
  return readNpy("/proc/self/fd/" + std::to_string(fds[0]));
}

TEST_F(NpyErrors, PipesAreReadAsTheDataArrives) {
  // The header announces 2^40 f32 elements (4 TiB): allocating that up front was an uncaught
  // std::bad_alloc. The reader grows its buffer with the bytes that arrive.
  std::string lying = makeNpy(header("<f4", "(1099511627776,)"), std::string(1000, '\0'));
  try {
    readThroughPipe(lying);
    ADD_FAILURE() << "no error for a truncated pipe";
  } catch (const tg::Error& e) {
    EXPECT_NE(e.message().find("truncated data: shape [1099511627776] of f32 needs "
                               "4398046511104 data bytes but only 1000 follow"),
              std::string::npos)
        << e.message();
  }
  // A good file through a pipe: the same tensor as from the file, also past the first 1 MiB
  // step of the buffer.
  std::vector<float> values(3 << 18);  // 3 MiB
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) * 0.5f;
  std::string data(values.size() * 4, '\0');
  std::memcpy(data.data(), values.data(), data.size());
  HostTensor t = readThroughPipe(makeNpy(header("<f4", "(786432,)"), data));
  EXPECT_EQ(t.shape(), (Shape{786432}));
  EXPECT_EQ(elements<float>(t), values);
}

TEST_F(NpyErrors, TrailingBytes) {
  expectReadError(put("extra.npy", str(kF32) + "xyz"),
                  {"3 unexpected bytes after the data", "needs 24 data bytes"});
  expectReadError(put("extra0.npy", str(kEmpty) + std::string(1, '\0')),
                  {"1 unexpected bytes after the data"});
}

TEST_F(NpyErrors, WriteFailuresLeaveNoFile) {
  HostTensor t = HostTensor::fromFloats(DType::F32, {2}, std::vector<float>{1, 2});
  std::string missingDir = path("no/such/dir/out.npy");
  expectError([&] { writeNpy(missingDir, t); }, missingDir,
              {"cannot create the temporary file", "No such file"});

  // The target is a directory: refused before any temporary file exists.
  fs::create_directory(path("sub"));
  std::string sub = path("sub");
  expectError([&] { writeNpy(sub, t); }, sub, {"is a directory"});
  EXPECT_EQ(listing(), std::vector<std::string>{"sub"});

  // A failed write leaves an existing file as it was.
  std::string keep = put("keep.npy", "old contents");
  expectError([&] { writeNpy(keep, HostTensor()); }, keep, {"undefined tensor"});
  EXPECT_EQ(slurp(keep), "old contents");
  EXPECT_EQ(listing(), (std::vector<std::string>{"keep.npy", "sub"}));
}

//===----------------------------------------------------------------------===//
// Odd targets and failing writes: symlinks, FIFOs, devices, file-size limits
//===----------------------------------------------------------------------===//

class NpyWriteTargets : public NpyTestBase {
 protected:
  HostTensor small() const {
    return HostTensor::fromFloats(DType::F32, {3}, std::vector<float>{1, 2, 3});
  }
  /// What writeNpy writes for `t` into a regular file.
  std::string bytesFor(const HostTensor& t) {
    std::string p = path("reference.npy");
    writeNpy(p, t);
    std::string bytes = slurp(p);
    fs::remove(p);
    return bytes;
  }
};

TEST_F(NpyWriteTargets, ASymlinkIsFollowedAndItsTargetReplaced) {
  std::string target = put("real.npy", "old contents");
  std::string link = path("link.npy");
  fs::create_symlink("real.npy", link);
  writeNpy(link, small());
  EXPECT_TRUE(fs::is_symlink(link)) << "the link itself was replaced";
  EXPECT_EQ(fs::read_symlink(link), "real.npy");
  EXPECT_EQ(elements<float>(readNpy(target)), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(listing(), (std::vector<std::string>{"link.npy", "real.npy"}));
}

TEST_F(NpyWriteTargets, ADanglingSymlinkIsRefused) {
  std::string link = path("dangling.npy");
  fs::create_symlink("nowhere.npy", link);
  expectError([&] { writeNpy(link, small()); }, link, {"dangling symbolic link"});
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(listing(), std::vector<std::string>{"dangling.npy"});
}

TEST_F(NpyWriteTargets, AFifoIsWrittenIntoNotReplaced) {
  std::string expected = bytesFor(small());
  std::string fifo = path("pipe.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // so that the writer's open returns
  ASSERT_GE(reader, 0) << std::strerror(errno);
  writeNpy(fifo, small());
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::read(reader, buf, sizeof buf)) > 0;)
    got.append(buf, static_cast<size_t>(n));
  ::close(reader);
  EXPECT_TRUE(fs::is_fifo(fifo)) << "the FIFO was replaced by a file";
  EXPECT_EQ(got, expected);
  EXPECT_EQ(listing(), std::vector<std::string>{"pipe.npy"});
}

TEST_F(NpyWriteTargets, CharacterDevicesAreWrittenIntoNotReplaced) {
  // Private copies of /dev/null and /dev/full (never the real ones: a regression would replace
  // them for the whole machine).
  std::string null = path("null"), full = path("full");
  if (::mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0)
    GTEST_SKIP() << "cannot create device nodes here: " << std::strerror(errno);
  ASSERT_EQ(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0) << std::strerror(errno);
  writeNpy(null, small());
  EXPECT_TRUE(fs::is_character_file(null));
  expectError([&] { writeNpy(full, small()); }, full, {"write error", "No space left on device"});
  EXPECT_TRUE(fs::is_character_file(full));
  EXPECT_EQ(listing(), (std::vector<std::string>{"full", "null"}));
}

TEST_F(NpyWriteTargets, AReplacedFileKeepsItsPermissions) {
  std::string p = put("x.npy", "old contents");
  fs::permissions(p, fs::perms::owner_read | fs::perms::owner_write);
  writeNpy(p, small());
  EXPECT_EQ(fs::status(p).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_EQ(elements<float>(readNpy(p)), (std::vector<float>{1, 2, 3}));
}

TEST_F(NpyWriteTargets, AFileSizeLimitIsAnErrorNotASignal) {
  // Under `ulimit -f`, write(2) past the limit raises SIGXFSZ, which kills by default.
  std::string out = put("out.npy", "old contents");
  HostTensor big(DType::F32, {4096});  // 16 KiB of data, the limit is 4 KiB
  std::string how = tg::test::runInBoundedChild(
      [&] {
        try {
          writeNpy(out, big);
          return 1;
        } catch (const tg::Error& e) {
          std::fprintf(stderr, "child: %s\n", e.message().c_str());
          return e.message().rfind(out + ": write error", 0) == 0 &&
                         e.message().find("File too large") != std::string::npos
                     ? 0
                     : 2;
        }
      },
      {.fileSizeLimit = 4096});
  EXPECT_EQ(how, "");
  EXPECT_EQ(slurp(out), "old contents");
  EXPECT_EQ(listing(), std::vector<std::string>{"out.npy"}) << "a temporary file was left";
}

}  // namespace
