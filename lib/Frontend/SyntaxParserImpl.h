//===- SyntaxParserImpl.h - The recursive-descent parser --------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The parser behind parseSourceFile (SyntaxParser.h), shared by its two
// halves: SyntaxParser.cpp (models, statements, types) and
// ExpressionParser.cpp (expressions). The grammar is in SyntaxParser.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_FRONTEND_SYNTAXPARSERIMPL_H
#define SINTER_LIB_FRONTEND_SYNTAXPARSERIMPL_H

#include "Lexer.h"
#include "SyntaxParser.h"

#include "mlir/IR/Diagnostics.h"

namespace mlir::sinter::frontend::detail {

/// Deepest nesting of parentheses, brackets, calls and unary operators.
constexpr unsigned kMaxNesting = 256;

class SyntaxParser {
public:
  SyntaxParser(const llvm::SourceMgr &sourceMgr, MLIRContext *context)
      : sourceMgr(sourceMgr), context(context),
        lexer(
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer()) {
    consume();
  }

  FailureOr<SourceFile> parseFile();

private:
  //===--- Tokens and errors ---------------------------------------------===//

  void consume() {
    previousEnd = token.spelling.end();
    token = lexer.lex();
  }
  /// Returns the token after the current one without consuming anything.
  Token peek() const {
    Lexer copy = lexer;
    return copy.lex();
  }
  bool consumeIf(Token::Kind kind) {
    if (!token.is(kind))
      return false;
    consume();
    return true;
  }
  InFlightDiagnostic emitError(llvm::SMLoc loc) {
    return mlir::emitError(getSourceLocation(context, sourceMgr, loc));
  }
  /// Reports that the current token is not what was `expected`.
  LogicalResult emitUnexpected(StringRef expected);
  LogicalResult expect(Token::Kind kind, StringRef where);
  void skipNewlines() {
    while (consumeIf(Token::Kind::Newline)) {
    }
  }

  //===--- Declarations --------------------------------------------------===//

  LogicalResult parseModel(ModelDecl &model);
  LogicalResult parseStatement(std::vector<Statement> &body);
  LogicalResult parseName(std::string &name, llvm::SMLoc &loc, StringRef what);
  LogicalResult parseDimStatement(Statement &statement);
  LogicalResult parseType(TypeSpec &type);
  LogicalResult parseDimSpec(DimSpec &dim);
  LogicalResult parseInteger(int64_t &value);

  //===--- Expressions ---------------------------------------------------===//

  FailureOr<ExprPtr> parseExpr();
  /// `sum [COMPARE sum]`, or the error for `a if c else b`, `and`, `or`.
  FailureOr<ExprPtr> parseComparison();
  /// Parses a left-associative chain of the operators of precedence
  /// `level` (see isBinaryOperator).
  FailureOr<ExprPtr> parseBinary(unsigned level);
  FailureOr<ExprPtr> parseUnary();
  FailureOr<ExprPtr> parsePostfix();
  FailureOr<ExprPtr> parsePrimary();
  FailureOr<ExprPtr> parseNumber();
  FailureOr<ExprPtr> parseList();
  FailureOr<ExprPtr> parseCall(std::string callee, llvm::SMLoc loc);
  /// Parses the rest of `torch.`, `F.`, `math.` or `torch.nn.functional.`
  /// after the first name, `module`, has been consumed.
  FailureOr<ExprPtr> parseQualified(StringRef module, llvm::SMLoc loc);
  /// Parses `[subscripts]` after `base`.
  FailureOr<ExprPtr> parseIndex(ExprPtr base);
  LogicalResult parseSubscript(Subscript &subscript);
  /// Parses `(...)`: a parenthesized expression or a tuple.
  FailureOr<ExprPtr> parseParenthesized();
  /// Parses `NAME (',' NAME)* = expr` or `NAME op= expr` after NAME.
  LogicalResult parseAssignment(Statement &statement);
  /// Parses `expr (',' expr)*` up to `close`, which it consumes.
  LogicalResult parseExprList(Token::Kind close, std::vector<ExprPtr> &list);
  /// Builds a node over `operands`, failing when the tree gets too deep.
  FailureOr<ExprPtr> makeNode(Expr::Kind kind, llvm::SMLoc loc,
                              std::vector<ExprPtr> operands);
  /// Counts one more level of nesting; fails beyond kMaxNesting.
  LogicalResult enterNesting(llvm::SMLoc loc);

  const llvm::SourceMgr &sourceMgr;
  MLIRContext *context;
  Lexer lexer;
  Token token;
  /// Where the last consumed token ends: the end of an expression's source.
  const char *previousEnd = nullptr;
  unsigned nesting = 0;
};

/// Leaves one level of nesting when destroyed.
struct NestingScope {
  explicit NestingScope(unsigned &nesting) : nesting(nesting) {}
  ~NestingScope() { --nesting; }
  unsigned &nesting;
};

} // namespace mlir::sinter::frontend::detail

#endif // SINTER_LIB_FRONTEND_SYNTAXPARSERIMPL_H
