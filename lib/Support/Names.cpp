//===- Names.cpp - The names that reach generated code --------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Support/Names.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;

bool sinter::isIdentifier(StringRef name) {
  auto isAsciiIdentifierChar = [](char c) {
    return llvm::isAlnum(c) || c == '_';
  };
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name, isAsciiIdentifierChar);
}

/// The exact names that generated code cannot give a value.
static const llvm::StringSet<> &getReservedWords() {
  static const llvm::StringSet<> words = [] {
    llvm::StringSet<> set = {
        // C and C++ keywords (through C++20), and C's keyword macros.
        "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor",
        "bool", "break", "case", "catch", "char", "char8_t", "char16_t",
        "char32_t", "class", "compl", "concept", "const", "consteval",
        "constexpr", "constinit", "const_cast", "continue", "co_await",
        "co_return", "co_yield", "decltype", "default", "delete", "do",
        "double", "dynamic_cast", "else", "enum", "explicit", "export",
        "extern", "false", "float", "for", "friend", "goto", "if", "inline",
        "int", "long", "mutable", "namespace", "new", "noexcept", "not",
        "not_eq", "nullptr", "operator", "or", "or_eq", "private", "protected",
        "public", "register", "reinterpret_cast", "requires", "restrict",
        "return", "short", "signed", "sizeof", "static", "static_assert",
        "static_cast", "struct", "switch", "template", "this", "thread_local",
        "throw", "true", "try", "typedef", "typeid", "typename", "union",
        "unsigned", "using", "virtual", "void", "volatile", "wchar_t", "while",
        "xor", "xor_eq", "complex", "imaginary", "noreturn", "static_assert",
        // Macros, types and functions of the C and C++ libraries that
        // generated code includes.
        "NULL", "INFINITY", "NAN", "HUGE_VAL", "HUGE_VALF", "EOF", "errno",
        "assert", "offsetof", "main", "std", "size_t", "ptrdiff_t", "intptr_t",
        "uintptr_t", "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t",
        "uint16_t", "uint32_t", "uint64_t", "INT32_MAX", "INT32_MIN",
        "INT64_MAX", "INT64_MIN", "UINT32_MAX", "UINT64_MAX", "INT_MAX",
        "INT_MIN", "SIZE_MAX", "PTRDIFF_MAX", "FLT_MAX", "FLT_MIN", "abs",
        "labs", "llabs", "max", "min", "abort", "exit", "malloc", "calloc",
        "realloc", "free", "memcpy", "memset", "memmove", "printf", "snprintf",
        "isnan", "isinf", "isfinite", "signbit", "fpclassify",
        // CUDA built-in variables, vector types and device functions.
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3",
        "half", "nv_bfloat16", "make_float2", "make_float4", "rsqrt", "rsqrtf",
        "normcdf", "normcdff", "normcdfinv", "normcdfinvf", "erfinv", "erfinvf",
        "erfcinv", "erfcinvf", "erfcx", "erfcxf", "exp10", "exp10f", "sincos",
        "sincosf", "sincospi", "sincospif", "sinpi", "sinpif", "cospi",
        "cospif", "rcbrt", "rcbrtf", "saturate", "saturatef", "fdividef",
        "umul24", "mul24", "clz", "ffs", "popc", "brev",
        // PyTorch and pybind11 in the extension.
        "at", "c10", "torch", "py", "pybind11", "TORCH_CHECK",
        "TORCH_EXTENSION_NAME", "PYBIND11_MODULE",
        // Names of generated code: the kernels' and host code's locals
        // and helpers (CUDAEmitter.cpp, KernelEmitter.cpp and the kernel
        // generators), and the PyTorch extension's (TorchExtension.cpp).
        "dev", "model", "params", "ctx", "stream", "scratch", "cursor",
        "workspace", "product", "status", "bytes", "n", "begin", "q", "i", "l",
        "vec", "work", "tid", "warp", "lane", "shared", "sharedMemory", "r",
        "j", "g", "p", "s", "k", "column", "acc", "total", "partial", "slices",
        "splits", "rows", "blocks", "length", "threads", "cached", "lanes",
        "p0", "sharedBytes", "rowsPerBlock", "kThreads", "kRowsPerBlock",
        "gridBlocks", "teamReduce", "teamSync", "ProdOp", "ArgValue",
        "ArgMaxOp", "ArgMinOp", "shuffle", "shuffleDown", "created", "memory",
        "arena", "prepareScratch", "guard", "device", "pointers",
        "preparedMemory", "Model", "formatSizes", "getModelDevice",
        "checkTensor", "checkSizes",
        // The partial and final kernels of split reductions, whose
        // parameters sit beside the model's buffers and dims
        // (ColumnPartial.cpp, ColumnReduction.cpp).
        "q0", "step", "chunk", "first", "accumulator", "fold", "tickets",
        "stats", "variance", "sum_exp",
        // Row kernels whose rows a cluster shares (RowShared.cpp,
        // RowReduction.cpp).
        "exchange", "clusterSlots", "clusters", "end",
        // Row kernels that stream rows through L2 (RowStream.cpp,
        // RowReduction.cpp).
        "queue", "arrived", "lag", "item", "keep", "drop", "resident",
        // Rows walked as float4 groups between scalar edges (RowVectors.cpp).
        "vecHead", "vecGroups", "vecEdges",
        // Rows staged as the block's tile or each thread's (RowShared.cpp).
        "tile", "tileFloats", "tileRows", "blockCopy",
        // Strips of columns (ColumnPartial.cpp, ColumnStrips.cpp) and
        // columns a thread owns (ColumnPartial.cpp).
        "strip", "strips", "stripBlocks", "stripShared", "stripStatistic",
        "stripSecondStatistic", "stripUnit", "stripOffset", "stripColumn",
        "statistic", "secondStatistic", "owned", "chunks", "rowsOf", "c0",
        // Whole positions a warp (ColumnWarpRuns.cpp): the warp's run of
        // positions.
        "run"};
    // The C math library: every function in its double, float and long
    // double forms (CUDA declares them all on the device too).
    for (StringRef base :
         {"acos",      "acosh",     "asin",       "asinh",   "atan",
          "atan2",     "atanh",     "cbrt",       "ceil",    "copysign",
          "cos",       "cosh",      "erf",        "erfc",    "exp",
          "exp2",      "expm1",     "fabs",       "fdim",    "floor",
          "fma",       "fmax",      "fmin",       "fmod",    "frexp",
          "hypot",     "ilogb",     "ldexp",      "lgamma",  "llrint",
          "llround",   "log",       "log10",      "log1p",   "log2",
          "logb",      "lrint",     "lround",     "modf",    "nan",
          "nearbyint", "nextafter", "nexttoward", "pow",     "remainder",
          "remquo",    "rint",      "round",      "scalbln", "scalbn",
          "sin",       "sinh",      "sqrt",       "tan",     "tanh",
          "tgamma",    "trunc",     "j0",         "j1",      "jn",
          "y0",        "y1",        "yn"})
      for (StringRef suffix : {"", "f", "l"})
        set.insert((base + suffix).str());
    return set;
  }();
  return words;
}

/// Whether `name` starts with a prefix that a language or library owns:
/// renaming by a suffix cannot free such a name.
static bool hasReservedPrefix(StringRef name) {
  // C and C++ reserve "__" anywhere and '_' before a capital; a leading '_'
  // is reserved at file scope.
  if (name.starts_with("_") || name.contains("__"))
    return true;
  std::string folded = name.lower();
  for (StringRef prefix :
       {"sinter", "cuda", "cublas", "cudnn", "nvcuda", "curand", "atomic"})
    if (StringRef(folded).starts_with(prefix))
      return true;
  return false;
}

/// Whether `name` has the form of a local that generated code derives
/// (CodeWriter::freshName of a fixed stem or of a buffer's name): i0, v3,
/// acc1, red0, segment2, stats0, partial1, splits0, slot0, k2, p0, kernel1,
/// a0, b1, four0, state2, grid0, n1, statistic0, secondStatistic0,
/// <buffer>_row, <buffer>_out, and <buffer>_v<n>, _rv<n>, _fv<n>, _run<n>
/// and _strip<n>, each also with a trailing 4 (its float4).
static bool isGeneratedLocal(StringRef name) {
  auto isNumber = [](StringRef text) {
    return !text.empty() && llvm::all_of(text, llvm::isDigit);
  };
  for (StringRef prefix :
       {"i",     "v",       "acc",    "red",       "segment",
        "stats", "partial", "splits", "slot",      "k",
        "p",     "kernel",  "a",      "b",         "four",
        "state", "grid",    "n",      "statistic", "secondStatistic"}) {
    StringRef rest = name;
    if (rest.consume_front(prefix) && isNumber(rest))
      return true;
  }
  if (name.ends_with("_row") || name.ends_with("_out"))
    return true;
  for (StringRef infix : {"_v", "_rv", "_fv", "_run", "_strip"}) {
    size_t at = name.rfind(infix);
    if (at != StringRef::npos && isNumber(name.drop_front(at + infix.size())))
      return true;
  }
  return false;
}

bool sinter::isReservedName(StringRef name) {
  return getReservedWords().contains(name) || hasReservedPrefix(name) ||
         isGeneratedLocal(name);
}

std::string NamePool::getUnique(StringRef name) {
  // Identifier characters only, no "__", no leading '_' or digit, no
  // reserved prefix.
  std::string base;
  for (char c : name) {
    char mapped = llvm::isAlnum(c) ? c : '_';
    if (!(mapped == '_' && !base.empty() && base.back() == '_'))
      base += mapped;
  }
  if (base.empty() || base.front() == '_' || llvm::isDigit(base.front()) ||
      hasReservedPrefix(base))
    base = (base.empty() || base.front() != '_' ? "u_" : "u") + base;
  // The suffixed names "<stem>_<n>" have neither "__" nor a reserved prefix
  // nor a generated local's form, so the loop ends once <n> passes the
  // names in use.
  StringRef stem = StringRef(base).rtrim('_');
  std::string unique = base;
  for (unsigned suffix = 2; used.contains(unique) || isReservedName(unique);
       ++suffix)
    unique = (stem + "_" + Twine(suffix)).str();
  used.insert(unique);
  return unique;
}

/// Appends `c` as "\xNN".
static void appendHexEscape(std::string &text, unsigned char c) {
  text += "\\x";
  text += llvm::hexdigit(c >> 4, /*LowerCase=*/true);
  text += llvm::hexdigit(c & 15, /*LowerCase=*/true);
}

/// Whether `c` is printable ASCII (space through '~').
static bool isPrintableAscii(char c) { return c >= ' ' && c <= '~'; }

std::string sinter::escapeComment(StringRef text) {
  std::string escaped;
  for (size_t index = 0; index < text.size(); ++index) {
    char c = text[index];
    char previous = index ? text[index - 1] : '\0';
    if (!isPrintableAscii(c) || c == '\\' || (c == '?' && previous == '?'))
      appendHexEscape(escaped, c);
    else if (c == '/' && previous == '*')
      escaped += "\\/";
    else
      escaped += c;
  }
  return escaped;
}

std::string sinter::quoteCString(StringRef text) {
  std::string quoted = "\"";
  for (size_t index = 0; index < text.size(); ++index) {
    unsigned char c = text[index];
    if (c == '"' || c == '\\' || (c == '?' && index && text[index - 1] == '?'))
      quoted += '\\';
    if (isPrintableAscii(c)) {
      quoted += c;
      continue;
    }
    // Octal escapes take at most three digits, so the next character never
    // continues one (unlike "\x").
    quoted += '\\';
    quoted += static_cast<char>('0' + (c >> 6));
    quoted += static_cast<char>('0' + ((c >> 3) & 7));
    quoted += static_cast<char>('0' + (c & 7));
  }
  return quoted + "\"";
}

std::string sinter::quotePythonString(StringRef text) {
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      quoted += '\\';
    if (isPrintableAscii(c))
      quoted += c;
    else
      appendHexEscape(quoted, c);
  }
  return quoted + "\"";
}

bool sinter::isSafeFileName(StringRef name) {
  return !name.empty() && name.front() != '.' && llvm::all_of(name, [](char c) {
    return llvm::isAlnum(c) || c == '_' || c == '-' || c == '.';
  });
}
