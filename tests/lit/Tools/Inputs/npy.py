"""Tiny .npy writer/reader for the lit tests of `tgc run` (standard library only).

  npy.py write OUT.npy DTYPE SHAPE V0 V1 ...   (DTYPE: <f4 <i4; SHAPE: 2x3 or 4 or scalar)
  npy.py print IN.npy                          (prints dtype, shape and values, one line)
"""
import ast
import struct
import sys


def write(path, dtype, shape_text, values):
    shape = () if shape_text == "scalar" else tuple(int(d) for d in shape_text.split("x"))
    code = {"<f4": "f", "<i4": "i"}[dtype]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, repr(shape))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    data = b"".join(struct.pack("<" + code, (float if code == "f" else int)(v)) for v in values)
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + data)


def show(path):
    raw = open(path, "rb").read()
    assert raw[:6] == b"\x93NUMPY", "bad magic"
    major = raw[6]
    if major == 1:
        (hlen,) = struct.unpack("<H", raw[8:10])
        start = 10
    else:
        (hlen,) = struct.unpack("<I", raw[8:12])
        start = 12
    header = ast.literal_eval(raw[start:start + hlen].decode())
    data = raw[start + hlen:]
    code = {"<f4": "f", "<i4": "i", "|b1": "?"}[header["descr"]]
    size = struct.calcsize(code)
    values = [struct.unpack("<" + code, data[i:i + size])[0] for i in range(0, len(data), size)]
    print(header["descr"], header["shape"], " ".join("%g" % v for v in values))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        show(sys.argv[2])
