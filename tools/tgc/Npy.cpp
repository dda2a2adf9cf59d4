//===- Npy.cpp - numpy .npy file reading and writing for `tgc run` --------===//
//
// See Npy.h for the format and what is supported. The header is parsed by a small
// recursive-descent parser for the Python literals numpy writes (dicts, tuples, lists,
// strings, ints, True/False/None), so that key order, quoting and spacing may vary as they do
// between numpy versions and hand-written files.
//
//===----------------------------------------------------------------------===//
#include "tgc/Npy.h"

#include "tg/Support/Error.h"
#include "tg/Support/FileIO.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sys/stat.h>

namespace tg::tools {

static_assert(std::endian::native == std::endian::little,
              "Npy.cpp copies element bytes as they are: it assumes a little-endian host");

using tg::ref::HostTensor;

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kAlign = 64;
/// numpy leaves this many spare characters (less the digits of the first extent) so that the
/// first axis can grow in place; writing the same keeps our output identical to np.save's.
constexpr size_t kGrowthAxisMaxDigits = 21;

std::string errnoText(int err) { return std::strerror(err); }

/// The header as it may be quoted in a message: printable, and at most ~200 characters.
std::string quoteHeader(std::string_view header) {
  std::string out;
  for (char c : header.substr(0, 200)) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (u < 0x20 || u >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  // Trailing padding says nothing; keep it out of the message.
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() >= 2 && out.compare(out.size() - 2, 2, "\\n") == 0) out.resize(out.size() - 2);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (header.size() > 200) out += "...";
  return "\"" + out + "\"";
}

//===----------------------------------------------------------------------===//
// Python literal parsing
//===----------------------------------------------------------------------===//

struct PyValue {
  enum class Kind { Str, Bool, None, Int, Tuple, List, Dict };
  Kind kind = Kind::None;
  std::string str;                                   // Str
  bool boolean = false;                              // Bool
  int64_t integer = 0;                               // Int
  std::vector<PyValue> items;                        // Tuple, List
  /// Dict entries in file order, each with its key in `key` (a vector of pairs would hold an
  /// incomplete PyValue, which libstdc++ rejects under clang).
  std::vector<PyValue> dict;
  std::string key;                                   // an entry of a Dict
  std::string text;                                  // the literal as written, for messages
};

class LiteralParser {
 public:
  LiteralParser(const std::string& path, std::string_view header) : path_(path), s_(header) {}

  /// The whole header: one dict literal, then nothing but whitespace.
  PyValue parseHeader() {
    skipSpace();
    if (pos_ >= s_.size() || s_[pos_] != '{')
      throw tg::Error(path_ + ": malformed header: it is not a Python dict literal: " +
                      quoteHeader(s_));
    PyValue v = parseValue();
    skipSpace();
    if (pos_ != s_.size()) fail("unexpected text after the dict");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    bool atEnd = s_.find_first_not_of(" \t\n\r", pos_) == std::string_view::npos;
    if (atEnd && what.rfind("unexpected end", 0) != 0)
      throw tg::Error(path_ + ": malformed header: unexpected end of header (" + what +
                      ") in " + quoteHeader(s_));
    throw tg::Error(path_ + ": malformed header: " + what + " at offset " +
                    std::to_string(pos_) + " of " + quoteHeader(s_));
  }

  void skipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }

  /// Skips whitespace and consumes `c` if it comes next.
  bool eat(char c) {
    skipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  PyValue parseValue() {
    skipSpace();
    if (pos_ >= s_.size()) fail("unexpected end of header");
    size_t start = pos_;
    PyValue v;
    char c = s_[pos_];
    if (c == '\'' || c == '"') {
      v = parseString();
    } else if (c == '{') {
      v = parseDict();
    } else if (c == '(') {
      v = parseParen();
    } else if (c == '[') {
      v = parseList();
    } else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
      v = parseInt();
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      size_t end = pos_;
      while (end < s_.size() &&
             (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_'))
        ++end;
      std::string_view word = s_.substr(pos_, end - pos_);
      if (word == "True" || word == "False") {
        v.kind = PyValue::Kind::Bool;
        v.boolean = word == "True";
      } else if (word == "None") {
        v.kind = PyValue::Kind::None;
      } else {
        fail("unexpected '" + std::string(word) + "'");
      }
      pos_ = end;
    } else {
      fail(std::string("unexpected character '") + c + "'");
    }
    v.text = std::string(s_.substr(start, pos_ - start));
    return v;
  }

  PyValue parseString() {
    char quote = s_[pos_++];
    PyValue v;
    v.kind = PyValue::Kind::Str;
    while (true) {
      if (pos_ >= s_.size()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == quote) break;
      if (c == '\n') fail("unterminated string");
      if (c == '\\') {
        if (pos_ >= s_.size()) fail("unterminated string");
        c = s_[pos_++];
      }
      v.str += c;
    }
    return v;
  }

  PyValue parseInt() {
    size_t start = pos_;
    bool negative = false;
    if (s_[pos_] == '-' || s_[pos_] == '+') negative = s_[pos_++] == '-';
    if (pos_ >= s_.size() || s_[pos_] < '0' || s_[pos_] > '9') fail("expected a digit");
    uint64_t magnitude = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      uint64_t digit = static_cast<uint64_t>(s_[pos_] - '0');
      if (magnitude > (uint64_t{1} << 63) / 10 ||
          magnitude * 10 + digit > (uint64_t{1} << 63) - (negative ? 0 : 1)) {
        pos_ = start;
        fail("integer out of range");
      }
      magnitude = magnitude * 10 + digit;
      ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'L' || s_[pos_] == 'l')) ++pos_;  // Python 2 longs
    if (pos_ < s_.size() &&
        (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '.'))
      fail("not an integer");
    PyValue v;
    v.kind = PyValue::Kind::Int;
    v.integer = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
    return v;
  }

  /// "()" and "(a,)", "(a, b)", ... are tuples; "(a)" is just a.
  PyValue parseParen() {
    ++pos_;  // '('
    PyValue v;
    v.kind = PyValue::Kind::Tuple;
    if (eat(')')) return v;
    PyValue first = parseValue();
    if (eat(')')) return first;
    if (!eat(',')) fail("expected ',' or ')'");
    v.items.push_back(std::move(first));
    while (!eat(')')) {
      v.items.push_back(parseValue());
      if (eat(')')) break;
      if (!eat(',')) fail("expected ',' or ')'");
    }
    return v;
  }

  PyValue parseList() {
    ++pos_;  // '['
    PyValue v;
    v.kind = PyValue::Kind::List;
    while (!eat(']')) {
      v.items.push_back(parseValue());
      if (eat(']')) break;
      if (!eat(',')) fail("expected ',' or ']'");
    }
    return v;
  }

  PyValue parseDict() {
    ++pos_;  // '{'
    PyValue v;
    v.kind = PyValue::Kind::Dict;
    while (!eat('}')) {
      skipSpace();
      size_t keyPos = pos_;
      PyValue key = parseValue();
      if (key.kind != PyValue::Kind::Str) {
        pos_ = keyPos;
        fail("dict key " + key.text + " is not a string");
      }
      for (const PyValue& existing : v.dict)
        if (existing.key == key.str) {
          pos_ = keyPos;
          fail("duplicate key '" + key.str + "'");
        }
      if (!eat(':')) fail("expected ':'");
      PyValue value = parseValue();
      value.key = std::move(key.str);
      v.dict.push_back(std::move(value));
      if (eat('}')) break;
      if (!eat(',')) fail("expected ',' or '}'");
    }
    return v;
  }

  const std::string& path_;
  std::string_view s_;
  size_t pos_ = 0;
};

//===----------------------------------------------------------------------===//
// dtypes
//===----------------------------------------------------------------------===//

const char* descrOf(DType dtype) {
  switch (dtype) {
    case DType::F32: return "<f4";
    case DType::F16: return "<f2";
    case DType::BF16: return "|V2";
    case DType::I32: return "<i4";
    case DType::Bool: return "|b1";
  }
  return "?";
}

DType dtypeOfDescr(const std::string& path, const std::string& descr) {
  if (descr == "<f4") return DType::F32;
  if (descr == "<f2") return DType::F16;
  if (descr == "<i4") return DType::I32;
  if (descr == "|b1") return DType::Bool;
  if (descr == "|V2" || descr == "<V2") return DType::BF16;
  if (descr == "<f8")
    throw tg::Error(path + ": dtype '<f8' (float64) is not supported; convert the array with "
                           ".astype(np.float32) before saving it");
  if (descr == "<i8")
    throw tg::Error(path + ": dtype '<i8' (int64) is not supported; convert the array with "
                           ".astype(np.int32) before saving it");
  if (!descr.empty() && descr[0] == '>')
    throw tg::Error(path + ": big-endian dtype '" + descr +
                    "' is not supported (tg reads little-endian data only); save a "
                    "little-endian copy with .astype('<" + descr.substr(1) + "')");
  throw tg::Error(path + ": unsupported dtype '" + descr +
                  "' (tg reads '<f4' (f32), '<f2' (f16), '<i4' (i32), '|b1' (bool) and "
                  "'|V2'/'<V2' (bf16, from ml_dtypes.bfloat16))");
}

std::string shapeRepr(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1) s += ",";
  return s + ")";
}

/// Bytes a C-ordered array of `shape` and `dtype` takes; empty if that overflows int64.
std::optional<int64_t> byteSize(const Shape& shape, DType dtype) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  int64_t n = static_cast<int64_t>(dtype_size(dtype));
  bool zero = false;
  for (int64_t d : shape) zero |= d == 0;
  if (zero) return 0;
  for (int64_t d : shape) {
    if (n > max / d) return std::nullopt;
    n *= d;
  }
  return n;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

struct FileCloser {
  bool owned = true;
  void operator()(std::FILE* f) const {
    if (owned) std::fclose(f);
  }
};

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path) {
    errno = 0;
    file_.reset(std::fopen(path.c_str(), "rb"));
    if (!file_) throw tg::Error(path + ": cannot open for reading: " + errnoText(errno));
  }
  /// Reads `file`, which the caller keeps open (and closes).
  Reader(std::FILE* file, const std::string& path)
      : path_(path), file_(file, FileCloser{/*owned=*/false}) {}

  /// Reads up to `n` bytes into `out`; returns how many were read (fewer only at end of file).
  size_t read(void* out, size_t n) {
    size_t got = std::fread(out, 1, n, file_.get());
    if (got < n && std::ferror(file_.get()))
      throw tg::Error(path_ + ": read error: " + errnoText(errno));
    offset_ += got;
    return got;
  }

  /// Reads `n` bytes into a string, growing it as bytes arrive (a lying length field cannot
  /// make us allocate more than the file holds).
  std::string readString(size_t n) {
    std::string s;
    while (s.size() < n) {
      size_t chunk = std::min<size_t>(n - s.size(), 1 << 16);
      size_t old = s.size();
      s.resize(old + chunk);
      size_t got = read(s.data() + old, chunk);
      s.resize(old + got);
      if (got < chunk) break;
    }
    return s;
  }

  /// Bytes from the current offset to the end of the file, if it is a regular file.
  std::optional<uint64_t> remaining() const {
    struct stat st;
    if (::fstat(::fileno(file_.get()), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    uint64_t size = static_cast<uint64_t>(st.st_size);
    return size >= offset_ ? size - offset_ : 0;
  }

  /// Reads to the end of the file and returns how many bytes were there.
  uint64_t countRest() {
    uint64_t count = 0;
    char buf[1 << 12];
    while (size_t got = read(buf, sizeof buf)) count += got;
    return count;
  }

  uint64_t offset() const { return offset_; }

 private:
  const std::string& path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  uint64_t offset_ = 0;
};

const PyValue* findKey(const PyValue& dict, std::string_view key) {
  for (const PyValue& v : dict.dict)
    if (v.key == key) return &v;
  return nullptr;
}

}  // namespace

static HostTensor readNpyFrom(Reader& in, const std::string& path);

HostTensor readNpy(const std::string& path) {
  Reader in(path);
  return readNpyFrom(in, path);
}

HostTensor readNpy(std::FILE* file, const std::string& name) {
  Reader in(file, name);
  return readNpyFrom(in, name);
}

static HostTensor readNpyFrom(Reader& in, const std::string& path) {

  // Preamble: magic, version, header length.
  unsigned char pre[8];
  size_t got = in.read(pre, 8);
  if (got == 0) throw tg::Error(path + ": not a .npy file: the file is empty");
  if (got < kMagicLen || std::memcmp(pre, kMagic, kMagicLen) != 0)
    throw tg::Error(path + ": not a .npy file: it does not start with the magic string "
                           "\"\\x93NUMPY\"");
  if (got < 8) throw tg::Error(path + ": truncated .npy file: the format version is cut off");
  unsigned major = pre[6], minor = pre[7];
  if (!((major == 1 || major == 2 || major == 3) && minor == 0))
    throw tg::Error(path + ": unsupported .npy format version " + std::to_string(major) + "." +
                    std::to_string(minor) + " (tg reads versions 1.0, 2.0 and 3.0)");
  size_t lenBytes = major == 1 ? 2 : 4;
  unsigned char len[4] = {0, 0, 0, 0};
  if (in.read(len, lenBytes) < lenBytes)
    throw tg::Error(path + ": truncated .npy file: the header length is cut off");
  uint64_t headerLen = uint64_t{len[0]} | uint64_t{len[1]} << 8 | uint64_t{len[2]} << 16 |
                       uint64_t{len[3]} << 24;

  // Header: a Python dict literal.
  std::string header = in.readString(headerLen);
  if (header.size() < headerLen)
    throw tg::Error(path + ": truncated header: the preamble announces " +
                    std::to_string(headerLen) + " header bytes but only " +
                    std::to_string(header.size()) + " follow");
  PyValue dict = LiteralParser(path, header).parseHeader();
  if (dict.kind != PyValue::Kind::Dict)
    throw tg::Error(path + ": malformed header: it is not a Python dict literal: " +
                    quoteHeader(header));
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (!findKey(dict, key))
      throw tg::Error(path + ": malformed header: the '" + key + "' key is missing from " +
                      quoteHeader(header));
  for (const PyValue& entry : dict.dict)
    if (const std::string& key = entry.key; key != "descr" && key != "fortran_order" && key != "shape")
      throw tg::Error(path + ": malformed header: unexpected key '" + key +
                      "' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')");

  const PyValue& descr = *findKey(dict, "descr");
  if (descr.kind != PyValue::Kind::Str)
    throw tg::Error(path + ": unsupported 'descr' " + descr.text +
                    ": structured dtypes are not supported; save a plain array");
  DType dtype = dtypeOfDescr(path, descr.str);

  const PyValue& fortran = *findKey(dict, "fortran_order");
  if (fortran.kind != PyValue::Kind::Bool)
    throw tg::Error(path + ": malformed header: 'fortran_order' is " + fortran.text +
                    ", not True or False");
  if (fortran.boolean)
    throw tg::Error(path + ": the array is stored in Fortran (column-major) order, which tg "
                           "does not read; save a C-ordered copy with "
                           "np.save(path, np.ascontiguousarray(a))");

  const PyValue& shapeValue = *findKey(dict, "shape");
  Shape shape;
  bool shapeOk = shapeValue.kind == PyValue::Kind::Tuple;
  for (const PyValue& d : shapeValue.items) {
    if (!shapeOk) break;
    shapeOk = d.kind == PyValue::Kind::Int && d.integer >= 0;
    shape.push_back(d.integer);
  }
  if (!shapeOk)
    throw tg::Error(path + ": malformed header: 'shape' is " + shapeValue.text +
                    ", not a tuple of non-negative integers");

  std::optional<int64_t> need = byteSize(shape, dtype);
  if (!need)
    throw tg::Error(path + ": shape " + format_shape(shape) + " of " + dtype_name(dtype) +
                    " is too large");
  if (std::string err = tensor_size_error(dtype, shape); !err.empty())
    throw tg::Error(path + ": " + err);
  auto needBytes = static_cast<uint64_t>(*need);
  std::string what = "shape " + format_shape(shape) + " of " + dtype_name(dtype) + " needs " +
                     std::to_string(needBytes) + " data bytes";
  auto truncated = [&](uint64_t have) {
    return tg::Error(path + ": truncated data: " + what + " but only " + std::to_string(have) +
                     " follow the header");
  };
  // A lying shape must not make us allocate more than the file holds: a regular file's size
  // is checked first; a pipe's data is read in growing steps, so that memory follows the bytes
  // that actually arrive.
  HostTensor t;
  if (std::optional<uint64_t> rest = in.remaining()) {
    if (*rest < needBytes) throw truncated(*rest);
    t = HostTensor(dtype, shape);
    if (size_t n = in.read(t.mutableData(), needBytes); n < needBytes) throw truncated(n);
  } else {
    std::vector<std::byte> bytes;
    size_t step = size_t{1} << 20;
    while (bytes.size() < needBytes) {
      size_t old = bytes.size(), chunk = std::min<size_t>(needBytes - old, step);
      bytes.resize(old + chunk);
      size_t got = in.read(bytes.data() + old, chunk);
      if (got < chunk) throw truncated(old + got);
      step = std::min<size_t>(step * 2, size_t{1} << 30);
    }
    t = HostTensor::fromBytes(dtype, shape, std::move(bytes));
  }
  if (uint64_t extra = in.countRest())
    throw tg::Error(path + ": " + std::to_string(extra) + " unexpected bytes after the data (" +
                    what + ")");
  if (dtype == DType::Bool) {
    auto* b = t.mutableDataAs<uint8_t>();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) b[i] = b[i] != 0;
  }
  return t;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

namespace {

/// What np.save writes before the data: magic, version, header length, header, padding.
std::string npyPreamble(const std::string& path, const HostTensor& t) {
  const Shape& shape = t.shape();
  std::string header = std::string("{'descr': '") + descrOf(t.dtype()) +
                       "', 'fortran_order': False, 'shape': " + shapeRepr(shape) + ", }";
  if (!shape.empty()) {
    size_t digits = std::to_string(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) header.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  for (unsigned major : {1u, 2u}) {
    size_t lenBytes = major == 1 ? 2 : 4;
    size_t prefix = kMagicLen + 2 + lenBytes;
    size_t hlen = header.size() + 1;  // with the final '\n'
    size_t pad = kAlign - (prefix + hlen) % kAlign;
    size_t total = hlen + pad;
    if (major == 1 && total > 0xffff) continue;
    if (total > 0xffffffffu) break;
    std::string out(kMagic, kMagicLen);
    out += static_cast<char>(major);
    out += '\0';
    for (size_t i = 0; i < lenBytes; ++i) out += static_cast<char>((total >> (8 * i)) & 0xff);
    out += header;
    out.append(pad, ' ');
    out += '\n';
    return out;
  }
  throw tg::Error(path + ": cannot write: the .npy header for shape " + shapeRepr(shape) +
                  " is too large");
}

}  // namespace

void writeNpy(const std::string& path, const HostTensor& t) {
  if (!t.defined()) throw tg::Error(path + ": cannot write an undefined tensor");
  for (int64_t d : t.shape())
    if (d < 0)
      throw tg::Error(path + ": cannot write a tensor of shape " + format_shape(t.shape()));
  std::string preamble = npyPreamble(path, t);
  std::string_view data(reinterpret_cast<const char*>(t.data()), t.nbytes());
  if (tg::WriteFailure failed =
          tg::writeFileAtomically(path, {preamble, data}, tg::TargetPolicy::UserPath))
    throw tg::Error(failed.message);
}

}  // namespace tg::tools
