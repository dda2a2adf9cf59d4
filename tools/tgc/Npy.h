//===- Npy.h - numpy .npy file reading and writing for `tgc run` ----------===//
//
// `tgc run` reads its inputs from and writes its outputs to numpy .npy files (like
// iree-run-module). The format is numpy's "NEP 1" layout: the magic string "\x93NUMPY", a
// major/minor version byte pair, a little-endian header length (2 bytes in version 1.0, 4 bytes
// in 2.0 and 3.0), a Python dict literal
//     {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a final '\n', then the elements in row-major order.
//
// Supported 'descr' dtype strings (little-endian, C order only):
//     '<f4' -> F32     '<f2' -> F16     '<i4' -> I32     '|b1' -> Bool
//     '|V2' or '<V2' -> BF16
// numpy has no native bfloat16. Arrays of `ml_dtypes.bfloat16` are saved by np.save as a
// 2-byte void type ('<V2' with recent numpy, '|V2' with others); tg reads both as BF16 and
// writes BF16 as '|V2'. Read such a file back in Python with
//     np.load(path).view(ml_dtypes.bfloat16)
// and write one for tg with np.save(path, a.astype(ml_dtypes.bfloat16)).
//
// Deliberately rejected, each with a message naming the file and the fix: float64 ('<f8'; use
// a.astype(np.float32)), int64 ('<i8'; use a.astype(np.int32)), any other dtype, big-endian
// dtypes ('>f4'), structured dtypes, Fortran-ordered arrays (use np.ascontiguousarray(a)),
// format versions other than 1.0/2.0/3.0, and every malformed file: bad magic, truncated
// preamble or header, a header that is not a dict literal with exactly the keys 'descr',
// 'fortran_order' and 'shape', a shape that is not a tuple of non-negative ints, data shorter
// than the shape needs, or bytes left over after the data. Bool bytes other than 0 are read
// as true (stored as 1). 0-d arrays (shape ()) and zero-size arrays are supported.
//
// writeNpy writes what np.save writes, byte for byte for every dtype but BF16: version 1.0
// (2.0 only if the header would not fit in 65535 bytes), numpy's spare spaces for growing the
// first axis, padding with spaces and a final '\n' so that the data starts at a multiple of 64
// bytes. It writes through tg::writeFileAtomically (tg/Support/FileIO.h) as a path the user
// named: a temporary file in the same directory, renamed onto `path` after every write, the
// fsync and the close succeeded, so a failure (a full disk, `ulimit -f`) never leaves a
// half-written or temporary file and leaves an existing file as it was. A symbolic link is
// followed and the file it names replaced (the link stays); a FIFO or a character device
// (`--output /dev/stdout`, /dev/null) is written into directly; a directory, a dangling link, a
// socket or a block device is refused.
//
// Every failure throws tg::Error whose message starts with "<path>: ".
//
//===----------------------------------------------------------------------===//
#pragma once

#include "tg/Reference/HostTensor.h"

#include <cstdio>
#include <string>

namespace tg::tools {

/// Reads a .npy file into a HostTensor (see the supported dtypes above).
tg::ref::HostTensor readNpy(const std::string& path);
/// The same from an open stream (a regular file's size is checked before allocating, other
/// streams are read as the data arrives); `name` starts every message. The caller closes it.
tg::ref::HostTensor readNpy(std::FILE* file, const std::string& name);

/// Writes `t` to `path` as a .npy file: atomically (a temporary file, then rename) where `path`
/// is or names a regular file, directly into a FIFO or character device.
void writeNpy(const std::string& path, const tg::ref::HostTensor& t);

}  // namespace tg::tools
