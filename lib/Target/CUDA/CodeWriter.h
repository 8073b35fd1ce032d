//===- CodeWriter.h - Nested scopes of generated C++ ------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Generated kernels are loop nests. The CodeWriter builds one function body
// as a stack of scopes (the function, a row loop, a column loop, ...). Each
// expression carries the depth of the innermost scope whose variables it
// reads, and `bind` declares it in that scope rather than the current one:
// per-row values are computed once per row and loop-invariant loads leave
// the loop (hoisting), and an expression bound twice is declared once
// (common subexpression elimination). A scope's lines are written into its
// parent when it closes, under the loop header, so everything hoisted into
// the parent comes before the loop.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_CODEWRITER_H
#define SINTER_LIB_TARGET_CUDA_CODEWRITER_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/Twine.h"

#include <string>
#include <utility>
#include <vector>

namespace mlir::sinter::cuda {

/// A C++ expression and the depth of the innermost scope whose variables it
/// reads (0: the function's own scope).
struct Expr {
  std::string text;
  unsigned depth = 0;

  Expr() = default;
  Expr(std::string text, unsigned depth = 0)
      : text(std::move(text)), depth(depth) {}
  /// True for the literal 0.
  bool isZero() const { return text == "0"; }
};

/// Returns the deeper of two depths, for an expression reading both.
inline unsigned maxDepth(const Expr &a, const Expr &b) {
  return std::max(a.depth, b.depth);
}

/// True for a name or a literal, which is never worth a variable.
bool isSimpleExpression(StringRef text);

/// Returns the shortest decimal form of `value` rounded to float that reads
/// back as the same float, as a C++ float literal ("0.5f", "1e-05f",
/// "INFINITY", "NAN").
std::string formatFloatLiteral(double value);

/// Returns `head item, item, ... tail` on one line when it fits in 80
/// columns at `indent` levels of two spaces; otherwise breaks after `head`
/// and packs the items on lines indented four spaces more, as clang-format
/// lays out long signatures and calls. The first line is not indented.
std::string formatList(StringRef head, ArrayRef<std::string> items,
                       StringRef tail, unsigned indent);

/// The statement that launches `kernel` over `grid` blocks of `block`
/// threads with `sharedBytes` of dynamic shared memory on `stream`, passing
/// `arguments`: sinter::launchDependent (sinter/rt_launch.cuh, programmatic
/// dependent launch), or sinter::launchClustered for clusters of `cluster`
/// blocks, as formatList lays it out at `indent` levels. The kernel must
/// come from formatKernel.
std::string formatLaunch(StringRef kernel, StringRef grid, StringRef block,
                         StringRef sharedBytes, ArrayRef<std::string> arguments,
                         unsigned indent, int64_t cluster = 1);

/// The definition of kernel `name`: `declarator` (`__global__ void ...`,
/// after any template header) on its own line, the signature as formatList
/// lays it out, then `body` (indented, one statement a line) after the
/// statement every kernel that formatLaunch launches begins with,
/// dev::beginDependentGrid.
std::string formatKernel(StringRef declarator, StringRef name,
                         ArrayRef<std::string> parameters, StringRef body);

/// Integer index arithmetic on expressions, with the identities that keep
/// generated indices short (x * 1, x + 0, 0 * x, x / 1, x % 1).
Expr addIndex(const Expr &a, const Expr &b);
Expr mulIndex(const Expr &a, const Expr &b);
Expr divIndex(const Expr &a, const Expr &b);
Expr remIndex(const Expr &a, const Expr &b);

/// Builds the body of one generated function.
class CodeWriter {
public:
  CodeWriter();

  /// The depth of the innermost open scope.
  unsigned getDepth() const { return scopes.size() - 1; }

  /// Writes a line in the innermost scope.
  void line(const Twine &text) { lineAt(getDepth(), text); }
  /// Writes a line in the scope at `depth` (at most the current depth).
  void lineAt(unsigned depth, const Twine &text);

  /// Opens a scope one deeper (a loop or block body).
  void openScope();
  /// Closes the innermost scope: writes `header`, its lines indented, then
  /// `footer` into the enclosing scope. `header` may hold several lines or
  /// none ("").
  void closeScope(StringRef header, StringRef footer = "}");

  /// Declares `const <type> <name> = <e.text>;` in the scope at `e.depth`
  /// and returns the name at that depth; returns `e` itself when it is a
  /// name or a literal, and the existing name when the same type and text
  /// are already declared in a scope that is visible.
  Expr bind(const Expr &e, StringRef type, StringRef prefix);

  /// Returns a new variable name `<prefix><n>`.
  std::string freshName(StringRef prefix);

  /// Returns the body written so far, every line indented by `indent`
  /// levels of two spaces, without the declarations of `bind` that nothing
  /// reads (binding is eager; dead ones would be compiler warnings). Only
  /// valid with just the function scope open.
  std::string finish(unsigned indent) const;

private:
  struct Line {
    unsigned indent;
    std::string text;
    /// The variable the line declares through `bind`, or "".
    std::string declares;
  };
  struct Scope {
    std::vector<Line> lines;
    llvm::StringMap<std::string> bound;
  };
  std::vector<Scope> scopes;
  llvm::StringMap<unsigned> counters;
};

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_CODEWRITER_H
