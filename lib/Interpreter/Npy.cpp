//===- Npy.cpp - NumPy .npy files of host tensors -------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The format: the magic "\x93NUMPY", a major and a minor version byte, the
// header length (2 bytes little-endian in version 1, 4 bytes in versions 2
// and 3), and the header: a Python dict literal with the keys 'descr',
// 'fortran_order' and 'shape', padded with spaces and ended by '\n'. The
// data follows in C order.
//
//===----------------------------------------------------------------------===//

#include "sinter/Interpreter/Npy.h"

#include "sinter/Dialect/Sinter/IR/SinterOps.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::sinter;

static constexpr StringLiteral kMagic("\x93NUMPY");

StringRef mlir::sinter::getNpyDescr(NpyElementType type) {
  switch (type) {
  case NpyElementType::F32:
    return "<f4";
  case NpyElementType::F64:
    return "<f8";
  case NpyElementType::I64:
    return "<i8";
  }
  llvm_unreachable("unknown npy element type");
}

static llvm::Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

//===----------------------------------------------------------------------===//
// Header
//===----------------------------------------------------------------------===//

namespace {
/// The fields of a .npy header.
struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  SmallVector<int64_t> shape;
};

/// Parses the Python dict literal of a .npy header.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : text(text) {}

  llvm::Expected<NpyHeader> parse() {
    NpyHeader header;
    bool seenDescr = false, seenOrder = false, seenShape = false;
    if (!consume('{'))
      return error("expected '{'");
    while (!consume('}')) {
      std::string key;
      if (!parseString(key) || !consume(':'))
        return error("expected a quoted key and ':'");
      if (key == "descr") {
        if (!parseString(header.descr))
          return error("expected a string for 'descr'");
        seenDescr = true;
      } else if (key == "fortran_order") {
        if (!parseBool(header.fortranOrder))
          return error("expected True or False for 'fortran_order'");
        seenOrder = true;
      } else if (key == "shape") {
        if (!parseShape(header.shape))
          return error("expected a tuple of non-negative integers for "
                       "'shape'");
        seenShape = true;
      } else {
        return error("unknown key '" + key + "'");
      }
      if (!consume(',') && !peek('}'))
        return error("expected ',' or '}'");
    }
    skipSpace();
    if (!text.empty())
      return error("unexpected text after the header dict");
    if (!seenDescr || !seenOrder || !seenShape)
      return error("the header needs 'descr', 'fortran_order' and 'shape'");
    return header;
  }

private:
  llvm::Error error(const Twine &message) {
    return makeError("malformed .npy header: " + message);
  }

  void skipSpace() { text = text.ltrim(" \t\n"); }

  bool peek(char c) {
    skipSpace();
    return text.starts_with(StringRef(&c, 1));
  }

  bool consume(char c) {
    if (!peek(c))
      return false;
    text = text.drop_front();
    return true;
  }

  bool parseString(std::string &value) {
    skipSpace();
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return false;
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return false;
    value = text.slice(1, end).str();
    text = text.drop_front(end + 1);
    return true;
  }

  bool parseBool(bool &value) {
    skipSpace();
    for (auto [word, meaning] : {std::pair{"True", true}, {"False", false}}) {
      if (text.consume_front(word)) {
        value = meaning;
        return true;
      }
    }
    return false;
  }

  bool parseShape(SmallVectorImpl<int64_t> &shape) {
    if (!consume('('))
      return false;
    while (!consume(')')) {
      skipSpace();
      size_t length = text.find_first_not_of("0123456789");
      if (length == 0 || length == StringRef::npos || length > 18)
        return false;
      int64_t dim = 0;
      if (text.take_front(length).getAsInteger(10, dim))
        return false;
      shape.push_back(dim);
      text = text.drop_front(length);
      if (!consume(',') && !peek(')'))
        return false;
    }
    return true;
  }

  StringRef text;
};
} // namespace

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Returns the element type of `descr`, or an error naming what it is.
static llvm::Expected<NpyElementType> getElementType(StringRef descr) {
  for (NpyElementType type :
       {NpyElementType::F32, NpyElementType::F64, NpyElementType::I64})
    if (descr == getNpyDescr(type))
      return type;
  return makeError("unsupported .npy dtype '" + descr +
                   "': Sinter reads little-endian float32 ('<f4'), "
                   "float64 ('<f8') and int64 ('<i8')");
}

/// Decodes `count` little-endian values of `type` from `data`.
static llvm::Error decodeValues(const char *data, NpyElementType type,
                                HostTensor &tensor) {
  namespace endian = llvm::support::endian;
  constexpr auto little = llvm::endianness::little;
  for (size_t i = 0; i < tensor.data.size(); ++i) {
    switch (type) {
    case NpyElementType::F32: {
      uint32_t bits = endian::read32<little>(data + 4 * i);
      float value;
      std::memcpy(&value, &bits, sizeof(value));
      tensor.data[i] = value;
      break;
    }
    case NpyElementType::F64: {
      uint64_t bits = endian::read64<little>(data + 8 * i);
      std::memcpy(&tensor.data[i], &bits, sizeof(double));
      break;
    }
    case NpyElementType::I64: {
      auto value = static_cast<int64_t>(endian::read64<little>(data + 8 * i));
      constexpr int64_t kExactLimit = int64_t(1) << 53;
      if (value > kExactLimit || value < -kExactLimit)
        return makeError("int64 value " + Twine(value) +
                         " is too large to hold exactly");
      tensor.data[i] = static_cast<double>(value);
      break;
    }
    }
  }
  return llvm::Error::success();
}

llvm::Expected<HostTensor> mlir::sinter::parseNpy(StringRef bytes) {
  namespace endian = llvm::support::endian;
  constexpr auto little = llvm::endianness::little;
  if (!bytes.starts_with(kMagic) || bytes.size() < kMagic.size() + 4)
    return makeError("not a .npy file (no \\x93NUMPY magic)");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3)
    return makeError("unsupported .npy version " + Twine(major));
  size_t prefix = kMagic.size() + 2 + lengthBytes;
  if (bytes.size() < prefix)
    return makeError("truncated .npy header");
  uint64_t headerLength = lengthBytes == 2
                              ? endian::read16<little>(bytes.data() + 8)
                              : endian::read32<little>(bytes.data() + 8);
  if (bytes.size() - prefix < headerLength)
    return makeError("truncated .npy header");
  llvm::Expected<NpyHeader> header =
      HeaderParser(bytes.substr(prefix, headerLength)).parse();
  if (!header)
    return header.takeError();
  llvm::Expected<NpyElementType> type = getElementType(header->descr);
  if (!type)
    return type.takeError();
  if (header->fortranOrder)
    return makeError("Fortran-order .npy data is not supported; save a "
                     "C-order array (numpy.ascontiguousarray)");
  std::optional<int64_t> count = getCheckedNumElements(header->shape);
  if (!count)
    return makeError("shape " + formatShape(header->shape) +
                     " is too large for the interpreter");
  uint64_t itemSize = *type == NpyElementType::F32 ? 4 : 8;
  StringRef data = bytes.drop_front(prefix + headerLength);
  if (data.size() != static_cast<uint64_t>(*count) * itemSize)
    return makeError("the data holds " + Twine(data.size()) +
                     " bytes but shape " + formatShape(header->shape) +
                     " of '" + header->descr + "' needs " +
                     Twine(*count * itemSize));
  HostTensor tensor(header->shape, *type == NpyElementType::I64);
  if (llvm::Error error = decodeValues(data.data(), *type, tensor))
    return std::move(error);
  return tensor;
}

llvm::Expected<HostTensor> mlir::sinter::readNpyFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return makeError(path + ": " + buffer.getError().message());
  llvm::Expected<HostTensor> tensor = parseNpy((*buffer)->getBuffer());
  if (!tensor)
    return makeError(path + ": " + llvm::toString(tensor.takeError()));
  return tensor;
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

/// Formats `shape` as a Python tuple: `()`, `(5,)`, `(2, 3)`.
static std::string formatTuple(ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (int64_t dim : shape)
    text += std::to_string(dim) + (shape.size() == 1 ? "," : ", ");
  if (shape.size() > 1)
    text.resize(text.size() - 2);
  return text + ")";
}

std::string mlir::sinter::serializeNpy(const HostTensor &tensor,
                                       NpyElementType type) {
  namespace endian = llvm::support::endian;
  constexpr auto little = llvm::endianness::little;
  std::string header =
      "{'descr': '" + getNpyDescr(type).str() +
      "', 'fortran_order': False, 'shape': " + formatTuple(tensor.shape) +
      ", }";
  // Pad so that the data starts at a multiple of 64 bytes.
  size_t prefix = kMagic.size() + 4;
  size_t total = llvm::alignTo(prefix + header.size() + 1, 64);
  header.append(total - prefix - header.size() - 1, ' ');
  header += '\n';

  std::string bytes(kMagic);
  bytes += '\x01';
  bytes += '\x00';
  char length[2];
  endian::write16<little>(length, static_cast<uint16_t>(header.size()));
  bytes.append(length, 2);
  bytes += header;
  size_t itemSize = type == NpyElementType::F32 ? 4 : 8;
  size_t start = bytes.size();
  bytes.resize(start + tensor.data.size() * itemSize);
  char *out = bytes.data() + start;
  for (size_t i = 0; i < tensor.data.size(); ++i) {
    double value = tensor.data[i];
    switch (type) {
    case NpyElementType::F32: {
      float single = static_cast<float>(value);
      uint32_t bits;
      std::memcpy(&bits, &single, sizeof(bits));
      endian::write32<little>(out + 4 * i, bits);
      break;
    }
    case NpyElementType::F64: {
      uint64_t bits;
      std::memcpy(&bits, &value, sizeof(bits));
      endian::write64<little>(out + 8 * i, bits);
      break;
    }
    case NpyElementType::I64:
      endian::write64<little>(
          out + 8 * i, static_cast<uint64_t>(static_cast<int64_t>(value)));
      break;
    }
  }
  return bytes;
}

llvm::Error mlir::sinter::writeNpyFile(StringRef path, const HostTensor &tensor,
                                       NpyElementType type) {
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return makeError(path + ": " + error.message());
  os << serializeNpy(tensor, type);
  os.close();
  if (os.has_error())
    return makeError(path + ": " + os.error().message());
  return llvm::Error::success();
}
