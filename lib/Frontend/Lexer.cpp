//===- Lexer.cpp - Tokens of the .sinter language -------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "Lexer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir::sinter::frontend;
using llvm::StringRef;

/// Longest name the language accepts; longer ones are certainly mistakes and
/// would only make messages unreadable.
static constexpr size_t kMaxIdentifierLength = 1024;
/// Longest number or string literal.
static constexpr size_t kMaxLiteralLength = 512;

StringRef mlir::sinter::frontend::describeTokenKind(Token::Kind kind) {
  switch (kind) {
  case Token::Kind::Eof:
    return "end of file";
  case Token::Kind::Newline:
    return "end of line";
  case Token::Kind::Identifier:
    return "a name";
  case Token::Kind::Integer:
    return "an integer";
  case Token::Kind::Float:
    return "a number";
  case Token::Kind::String:
    return "a string";
  case Token::Kind::LBrace:
    return "'{'";
  case Token::Kind::RBrace:
    return "'}'";
  case Token::Kind::LParen:
    return "'('";
  case Token::Kind::RParen:
    return "')'";
  case Token::Kind::LBracket:
    return "'['";
  case Token::Kind::RBracket:
    return "']'";
  case Token::Kind::Comma:
    return "','";
  case Token::Kind::Colon:
    return "':'";
  case Token::Kind::Equal:
    return "'='";
  case Token::Kind::Dot:
    return "'.'";
  case Token::Kind::Plus:
    return "'+'";
  case Token::Kind::Minus:
    return "'-'";
  case Token::Kind::Star:
    return "'*'";
  case Token::Kind::Slash:
    return "'/'";
  case Token::Kind::At:
    return "'@'";
  case Token::Kind::AugmentedAssign:
    return "an augmented assignment ('+=', '-=', '*=', '/=', '@=')";
  case Token::Kind::Compare:
    return "a comparison";
  case Token::Kind::Ellipsis:
    return "'...'";
  case Token::Kind::Error:
    return "an invalid token";
  }
  llvm_unreachable("unknown token kind");
}

static bool isIdentifierStart(char c) { return llvm::isAlpha(c) || c == '_'; }
static bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_'; }

Token Lexer::makeToken(Token::Kind kind, const char *start) const {
  return Token{kind, StringRef(start, current - start)};
}

Token Lexer::makeError(const char *start, const char *end,
                       std::string message) {
  current = end;
  errorMessage = std::move(message);
  return Token{Token::Kind::Error, StringRef(start, end - start)};
}

void Lexer::skipWhitespaceAndComments() {
  const char *end = buffer.end();
  while (current != end) {
    char c = *current;
    if (c == '#') {
      while (current != end && *current != '\n')
        ++current;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' ||
               (c == '\n' && nesting > 0)) {
      ++current;
    } else {
      return;
    }
  }
}

/// Formats `c` for a message: the character itself when printable, else its
/// byte value.
static std::string describeChar(char c) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (llvm::isPrint(c))
    os << "'" << c << "'";
  else
    os << "byte " << llvm::format_hex(static_cast<unsigned char>(c), 4);
  return text;
}

Token Lexer::lexNumber(const char *start) {
  const char *end = buffer.end();
  bool isFloat = false;
  auto skipDigits = [&] {
    const char *digitsStart = current;
    while (current != end && llvm::isDigit(*current))
      ++current;
    return current != digitsStart;
  };
  skipDigits();
  if (current != end && *current == '.') {
    isFloat = true;
    ++current;
    skipDigits();
  }
  bool badExponent = false;
  if (current != end && (*current == 'e' || *current == 'E')) {
    isFloat = true;
    ++current;
    if (current != end && (*current == '+' || *current == '-'))
      ++current;
    badExponent = !skipDigits();
  }
  // A number glued to letters ("2x", "1e") is one bad token, not two.
  const char *tokenEnd = current;
  while (tokenEnd != end && isIdentifierChar(*tokenEnd))
    ++tokenEnd;
  size_t length = tokenEnd - start;
  if (length > kMaxLiteralLength)
    return makeError(start, tokenEnd,
                     "number literal is " + std::to_string(length) +
                         " characters long; the limit is " +
                         std::to_string(kMaxLiteralLength));
  if (badExponent || tokenEnd != current)
    return makeError(start, tokenEnd,
                     "invalid number '" + StringRef(start, length).str() + "'");
  return makeToken(isFloat ? Token::Kind::Float : Token::Kind::Integer, start);
}

Token Lexer::lexString(const char *start) {
  const char *end = buffer.end();
  char quote = *start;
  while (current != end && *current != quote && *current != '\n')
    ++current;
  if (current == end || *current == '\n')
    return makeError(start, current, "unterminated string");
  ++current;
  if (static_cast<size_t>(current - start) > kMaxLiteralLength)
    return makeError(start, current,
                     "string literal is longer than " +
                         std::to_string(kMaxLiteralLength) + " characters");
  return makeToken(Token::Kind::String, start);
}

Token Lexer::lexIdentifier(const char *start) {
  const char *end = buffer.end();
  while (current != end && isIdentifierChar(*current))
    ++current;
  size_t length = current - start;
  if (length > kMaxIdentifierLength)
    return makeError(start, current,
                     "name is " + std::to_string(length) +
                         " characters long; the limit is " +
                         std::to_string(kMaxIdentifierLength));
  return makeToken(Token::Kind::Identifier, start);
}

Token Lexer::lex() {
  skipWhitespaceAndComments();
  const char *start = current;
  if (current == buffer.end())
    return makeToken(Token::Kind::Eof, start);
  char c = *current++;
  auto peekIs = [&](char next) {
    return current != buffer.end() && *current == next;
  };
  // `+=` and friends.
  if (llvm::StringRef("+-*/@").contains(c) && peekIs('=')) {
    ++current;
    return makeToken(Token::Kind::AugmentedAssign, start);
  }
  switch (c) {
  case '\n':
    return makeToken(Token::Kind::Newline, start);
  case '{':
    return makeToken(Token::Kind::LBrace, start);
  case '}':
    // A brace never appears inside an expression: forget unclosed
    // parentheses so that the statements after them still end at newlines.
    nesting = 0;
    return makeToken(Token::Kind::RBrace, start);
  case '(':
    ++nesting;
    return makeToken(Token::Kind::LParen, start);
  case '[':
    ++nesting;
    return makeToken(Token::Kind::LBracket, start);
  case ')':
  case ']':
    if (nesting > 0)
      --nesting;
    return makeToken(c == ')' ? Token::Kind::RParen : Token::Kind::RBracket,
                     start);
  case ',':
    return makeToken(Token::Kind::Comma, start);
  case ':':
    return makeToken(Token::Kind::Colon, start);
  case '=':
    if (peekIs('=')) {
      ++current;
      return makeToken(Token::Kind::Compare, start);
    }
    return makeToken(Token::Kind::Equal, start);
  case '<':
  case '>':
    if (peekIs('='))
      ++current;
    return makeToken(Token::Kind::Compare, start);
  case '!':
    if (!peekIs('='))
      return makeError(start, current,
                       "invalid character '!'; 'not' and '!' are not "
                       "supported");
    ++current;
    return makeToken(Token::Kind::Compare, start);
  case '+':
    return makeToken(Token::Kind::Plus, start);
  case '-':
    return makeToken(Token::Kind::Minus, start);
  case '@':
    return makeToken(Token::Kind::At, start);
  case '*':
    if (peekIs('*'))
      return makeError(start, current + 1,
                       "'**' is not supported; use pow(x, y)");
    return makeToken(Token::Kind::Star, start);
  case '/':
    if (peekIs('/'))
      return makeError(start, current + 1,
                       "'//' is not supported; '/' is true division");
    return makeToken(Token::Kind::Slash, start);
  case '.':
    if (current != buffer.end() && llvm::isDigit(*current))
      return lexNumber(start);
    if (StringRef(current, buffer.end() - current).starts_with("..")) {
      current += 2;
      return makeToken(Token::Kind::Ellipsis, start);
    }
    return makeToken(Token::Kind::Dot, start);
  case '"':
  case '\'':
    return lexString(start);
  default:
    break;
  }
  if (llvm::isDigit(c))
    return lexNumber(start);
  if (isIdentifierStart(c))
    return lexIdentifier(start);
  return makeError(start, current, "invalid character " + describeChar(c));
}
