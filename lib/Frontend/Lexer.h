//===- Lexer.h - Tokens of the .sinter language -----------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Splits a .sinter buffer into tokens. Newlines are tokens (they end
// statements) except inside parentheses and brackets, as in Python. The
// lexer never fails: a character it does not know becomes an Error token that
// the parser reports at its location.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_FRONTEND_LEXER_H
#define SINTER_LIB_FRONTEND_LEXER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

namespace mlir::sinter::frontend {

/// One token: its kind and its spelling, a view into the source buffer.
struct Token {
  enum class Kind {
    Eof,
    Newline,
    Identifier,
    Integer,
    Float,
    String,
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Colon,
    Equal,
    Dot,
    Plus,
    Minus,
    Star,
    Slash,
    At,
    /// `+=`, `-=`, `*=`, `/=`, `@=`: an augmented assignment.
    AugmentedAssign,
    /// `<`, `<=`, `>`, `>=`, `==`, `!=`.
    Compare,
    /// `...`.
    Ellipsis,
    /// A character or sequence the language does not have; `message` of the
    /// lexer says why.
    Error,
  };

  Kind kind = Kind::Eof;
  llvm::StringRef spelling;

  bool is(Kind k) const { return kind == k; }
  llvm::SMLoc getLoc() const {
    return llvm::SMLoc::getFromPointer(spelling.data());
  }
};

/// Returns how a token of kind `kind` reads in a message ("'('", "a name").
llvm::StringRef describeTokenKind(Token::Kind kind);

/// Produces the tokens of one buffer on demand.
class Lexer {
public:
  explicit Lexer(llvm::StringRef buffer)
      : buffer(buffer), current(buffer.begin()) {}

  /// Returns the next token; Eof forever at the end of the buffer.
  Token lex();

  /// Why the last Error token was produced.
  llvm::StringRef getErrorMessage() const { return errorMessage; }

private:
  Token makeToken(Token::Kind kind, const char *start) const;
  Token makeError(const char *start, const char *end, std::string message);
  void skipWhitespaceAndComments();
  Token lexNumber(const char *start);
  Token lexString(const char *start);
  Token lexIdentifier(const char *start);

  llvm::StringRef buffer;
  const char *current;
  /// Open parentheses and brackets; newlines inside them are whitespace.
  unsigned nesting = 0;
  std::string errorMessage;
};

} // namespace mlir::sinter::frontend

#endif // SINTER_LIB_FRONTEND_LEXER_H
