//===- AST.h - Syntax tree of the .sinter language --------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the parser produces and the lowering consumes: the models of a file,
// their statements and expressions, each with the source location of its
// first character. Expression trees are at most kMaxExpressionDepth deep, so
// everything that walks them recursively is bounded.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_FRONTEND_AST_H
#define SINTER_LIB_FRONTEND_AST_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mlir::sinter::frontend {

/// What to write for an elementwise choice or a boolean expression: masks
/// are 0/1 tensors, so where() chooses and arithmetic combines them.
constexpr llvm::StringLiteral kElementwiseChoiceHint =
    "an elementwise choice is written where(cond, a, b), e.g. "
    "where(x > 0, x, 0.1 * x); comparisons give 0/1 masks, so 'a and b' is "
    "(a > 0) * (b > 0), 'a or b' is maximum(a > 0, b > 0) and 'not m' is "
    "1 - m";

/// Deepest expression tree the parser builds (a long chain `a + b + ...` is
/// as deep as it has operators).
constexpr unsigned kMaxExpressionDepth = 1024;

struct Expr;
using ExprPtr = std::unique_ptr<Expr>;

/// One argument of a call: positional when `name` is empty.
struct Argument {
  std::string name;
  llvm::SMLoc nameLoc;
  ExprPtr value;
};

/// One item of a subscript `x[...]`: an index expression, or a slice
/// `start:stop:step` whose parts may each be absent.
struct Subscript {
  llvm::SMLoc loc;
  bool isSlice = false;
  /// The index (not a slice), or the slice's start, stop and step.
  ExprPtr index, start, stop, step;
};

/// An expression. Which fields are meaningful depends on `kind`.
struct Expr {
  enum class Kind {
    /// `integer` (when `isInteger`) or `number`.
    Number,
    /// `boolean`.
    Bool,
    /// `text` without the quotes.
    String,
    /// A reference to `text`.
    Name,
    /// `[operands...]`.
    List,
    /// `None`.
    None,
    /// `qualifier.text(arguments...)`; a method call `x.text(...)` has the
    /// receiver `x` as its first positional argument and `isMethod` set.
    Call,
    /// `operands[0] op operands[1]`, `op` one of + - * / @.
    Binary,
    /// `operands[0] text operands[1]`, `text` one of < <= > >= == !=.
    Compare,
    /// `-operands[0]`.
    Negate,
    /// `operands[0].T`.
    Transpose,
    /// `operands[0].text` other than `.T` (`.shape`, `.values`, ...).
    Attribute,
    /// `operands[0][subscripts...]`.
    Index,
  };

  Expr(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}

  Kind kind;
  llvm::SMLoc loc;
  /// Height of the tree rooted here (1 for a leaf).
  unsigned depth = 1;
  double number = 0.0;
  int64_t integer = 0;
  bool isInteger = false;
  bool boolean = false;
  char op = 0;
  /// A name, a string, a function, an attribute or a comparison operator.
  std::string text;
  /// The module a name or function is qualified with: "torch", "F" (also
  /// for `torch.nn.functional`) or "math"; empty when unqualified.
  std::string qualifier;
  /// A call written as a method of its first argument.
  bool isMethod = false;
  /// The source text of the whole expression, as written.
  llvm::StringRef source;
  std::vector<ExprPtr> operands;
  std::vector<Argument> arguments;
  std::vector<Subscript> subscripts;
};

/// One dimension of a declared type: a size or the name of a `dim`.
struct DimSpec {
  int64_t size = 0;
  std::string name;
  llvm::SMLoc loc;
};

/// `f32[B, 8192]`.
struct TypeSpec {
  std::string elementType;
  llvm::SMLoc loc;
  std::vector<DimSpec> dims;
};

/// One statement of a model body.
struct Statement {
  enum class Kind {
    /// `dim name = dimValue`.
    Dim,
    /// `input name: type`.
    Input,
    /// `param name: type [= value]`, `value` a call of an init hint.
    Param,
    /// `name = value`, or `targets... = value` when `targets` has two or
    /// more names (unpacking a tuple). `name op= value` is parsed as
    /// `name = name op value`.
    Assign,
    /// `return results...`.
    Return,
  };

  Statement(Kind kind, llvm::SMLoc loc) : kind(kind), loc(loc) {}

  Kind kind;
  llvm::SMLoc loc;
  std::string name;
  llvm::SMLoc nameLoc;
  /// The names of an unpacking assignment `a, b = ...`, in order.
  std::vector<std::pair<std::string, llvm::SMLoc>> targets;
  int64_t dimValue = 0;
  TypeSpec type;
  ExprPtr value;
  std::vector<ExprPtr> results;
};

/// `model name { body }`.
struct ModelDecl {
  std::string name;
  llvm::SMLoc loc;
  std::vector<Statement> body;
};

/// The models of one file, in order.
struct SourceFile {
  std::vector<ModelDecl> models;
};

} // namespace mlir::sinter::frontend

#endif // SINTER_LIB_FRONTEND_AST_H
