//===- CodeWriter.cpp - Nested scopes of generated C++ --------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "CodeWriter.h"

#include "sinter/Support/Numbers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

bool cuda::isSimpleExpression(StringRef text) {
  if (text.empty())
    return false;
  auto isIdentifierChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  if (llvm::isAlpha(text.front()) || text.front() == '_')
    return llvm::all_of(text, isIdentifierChar);
  // A numeric literal, possibly negative: digits, '.', exponent, suffix.
  StringRef body = text.front() == '-' ? text.drop_front() : text;
  return !body.empty() &&
         (llvm::isDigit(body.front()) || body.front() == '.') &&
         llvm::all_of(body, [](char c) {
           return llvm::isAlnum(c) || c == '.' || c == '+' || c == '-';
         });
}

std::string cuda::formatFloatLiteral(double value) {
  float single = static_cast<float>(value);
  if (std::isnan(single))
    return "NAN";
  if (std::isinf(single))
    return single > 0 ? "INFINITY" : "-INFINITY";
  std::string text = formatShortest(single);
  if (text.find_first_of(".en") == std::string::npos)
    text += ".0";
  return text + "f";
}

std::string cuda::formatList(StringRef head, ArrayRef<std::string> items,
                             StringRef tail, unsigned indent) {
  constexpr size_t kColumns = 80;
  size_t margin = 2 * indent;
  std::string line = head.str() + llvm::join(items, ", ") + tail.str();
  if (margin + line.size() <= kColumns || items.empty())
    return line;
  std::string continuation(margin + 4, ' ');
  std::string text = head.str() + "\n" + continuation;
  size_t column = continuation.size();
  for (auto [index, item] : llvm::enumerate(items)) {
    std::string piece = item + (index + 1 < items.size() ? "," : tail.str());
    if (column > continuation.size() && column + 1 + piece.size() > kColumns) {
      text += "\n" + continuation;
      column = continuation.size();
    } else if (column > continuation.size()) {
      text += " ";
      ++column;
    }
    text += piece;
    column += piece.size();
  }
  return text;
}

std::string cuda::formatLaunch(StringRef kernel, StringRef grid,
                               StringRef block, StringRef sharedBytes,
                               ArrayRef<std::string> arguments, unsigned indent,
                               int64_t cluster) {
  SmallVector<std::string> items = {kernel.str(), grid.str(), block.str(),
                                    sharedBytes.str(), "stream"};
  if (cluster > 1)
    items.push_back(std::to_string(cluster));
  llvm::append_range(items, arguments);
  return formatList(cluster > 1 ? "sinter::launchClustered("
                                : "sinter::launchDependent(",
                    items, ");", indent);
}

std::string cuda::formatKernel(StringRef declarator, StringRef name,
                               ArrayRef<std::string> parameters,
                               StringRef body) {
  return declarator.str() + "\n" +
         formatList(name.str() + "(", parameters, ") {", 0) +
         "\n  dev::beginDependentGrid();\n" + body.str() + "}\n";
}

/// Wraps `text` in parentheses unless it is a name or a literal.
static std::string parenthesize(const std::string &text) {
  return isSimpleExpression(text) ? text : "(" + text + ")";
}

Expr cuda::addIndex(const Expr &a, const Expr &b) {
  if (a.isZero())
    return b;
  if (b.isZero())
    return a;
  return Expr(a.text + " + " + b.text, maxDepth(a, b));
}

Expr cuda::mulIndex(const Expr &a, const Expr &b) {
  if (a.isZero() || b.isZero())
    return Expr("0");
  if (a.text == "1")
    return b;
  if (b.text == "1")
    return a;
  return Expr(parenthesize(a.text) + " * " + parenthesize(b.text),
              maxDepth(a, b));
}

Expr cuda::divIndex(const Expr &a, const Expr &b) {
  if (a.isZero() || b.text == "1")
    return a;
  return Expr(parenthesize(a.text) + " / " + parenthesize(b.text),
              maxDepth(a, b));
}

Expr cuda::remIndex(const Expr &a, const Expr &b) {
  if (a.isZero() || b.text == "1")
    return Expr("0");
  return Expr(parenthesize(a.text) + " % " + parenthesize(b.text),
              maxDepth(a, b));
}

CodeWriter::CodeWriter() { scopes.emplace_back(); }

void CodeWriter::lineAt(unsigned depth, const Twine &text) {
  assert(depth <= getDepth() && "no such scope");
  scopes[depth].lines.push_back({0, text.str(), ""});
}

void CodeWriter::openScope() { scopes.emplace_back(); }

void CodeWriter::closeScope(StringRef header, StringRef footer) {
  assert(scopes.size() > 1 && "the function scope stays open");
  Scope inner = std::move(scopes.back());
  scopes.pop_back();
  Scope &outer = scopes.back();
  SmallVector<StringRef> headerLines;
  if (!header.empty())
    header.split(headerLines, '\n');
  for (StringRef text : headerLines)
    outer.lines.push_back({0, text.str(), ""});
  for (Line &line : inner.lines) {
    ++line.indent;
    outer.lines.push_back(std::move(line));
  }
  if (!footer.empty())
    outer.lines.push_back({0, footer.str(), ""});
}

std::string CodeWriter::freshName(StringRef prefix) {
  unsigned &counter = counters[prefix];
  return (prefix + Twine(counter++)).str();
}

Expr CodeWriter::bind(const Expr &e, StringRef type, StringRef prefix) {
  if (isSimpleExpression(e.text))
    return e;
  std::string key = (type + "|" + e.text).str();
  for (unsigned depth = getDepth() + 1; depth-- > 0;) {
    auto it = scopes[depth].bound.find(key);
    if (it != scopes[depth].bound.end())
      return Expr(it->second, depth);
  }
  unsigned depth = std::min(e.depth, getDepth());
  std::string name = freshName(prefix);
  lineAt(depth, "const " + type + " " + name + " = " + e.text + ";");
  scopes[depth].lines.back().declares = name;
  scopes[depth].bound[key] = name;
  return Expr(name, depth);
}

/// The identifiers that `text` mentions (words of letters, digits and '_'
/// not starting with a digit), once each.
static llvm::StringSet<> getIdentifiers(StringRef text) {
  llvm::StringSet<> names;
  auto isIdentifierChar = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  for (size_t pos = 0; pos < text.size();) {
    if (!isIdentifierChar(text[pos])) {
      ++pos;
      continue;
    }
    size_t end = pos;
    while (end < text.size() && isIdentifierChar(text[end]))
      ++end;
    if (!llvm::isDigit(text[pos]))
      names.insert(text.slice(pos, end));
    pos = end;
  }
  return names;
}

std::string CodeWriter::finish(unsigned indent) const {
  assert(scopes.size() == 1 && "scopes left open");
  const std::vector<Line> &lines = scopes.front().lines;
  // Drop dead declarations until none is left: removing one may kill the
  // declarations it read. Each line's identifiers are counted once, so that
  // this takes time linear in the body.
  std::vector<llvm::StringSet<>> mentions;
  llvm::StringMap<unsigned> readers;
  for (const Line &line : lines) {
    mentions.push_back(getIdentifiers(line.text));
    for (const auto &name : mentions.back())
      if (name.getKey() != line.declares)
        ++readers[name.getKey()];
  }
  llvm::StringMap<size_t> declarations;
  for (auto [index, line] : llvm::enumerate(lines))
    if (!line.declares.empty())
      declarations[line.declares] = index;
  std::vector<bool> dead(lines.size(), false);
  SmallVector<size_t> worklist;
  for (auto [index, line] : llvm::enumerate(lines))
    if (!line.declares.empty() && readers.lookup(line.declares) == 0)
      worklist.push_back(index);
  while (!worklist.empty()) {
    size_t index = worklist.pop_back_val();
    if (dead[index])
      continue;
    dead[index] = true;
    for (const auto &name : mentions[index]) {
      if (name.getKey() == lines[index].declares)
        continue;
      auto it = declarations.find(name.getKey());
      if (--readers[name.getKey()] == 0 && it != declarations.end())
        worklist.push_back(it->second);
    }
  }
  std::string text;
  for (auto [index, line] : llvm::enumerate(lines)) {
    if (dead[index])
      continue;
    if (!line.text.empty())
      text += std::string(2 * (indent + line.indent), ' ') + line.text;
    text += "\n";
  }
  return text;
}
