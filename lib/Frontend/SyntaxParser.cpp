//===- SyntaxParser.cpp - .sinter text to syntax tree ---------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// A recursive-descent parser with Python's expression precedence:
//
//   file       := (NEWLINE | model)* EOF
//   model      := 'model' NAME '{' (statement NEWLINE)* '}'
//   statement  := 'dim' NAME '=' INT | 'input' NAME ':' type
//               | 'param' NAME ':' type ['=' expr] | 'return' expr (',' expr)*
//               | NAME '=' expr
//   type       := NAME '[' [dim (',' dim)*] ']'        dim := INT | NAME
//   expr       := term (('+' | '-') term)*            (parseBinary(0))
//   term       := unary (('*' | '/' | '@') unary)*    (parseBinary(1))
//   unary      := ('-' | '+') unary | postfix
//   postfix    := primary ('.' NAME)*
//   primary    := NUMBER | STRING | NAME | NAME '(' args ')' | '[' exprs ']'
//               | '(' expr ')'
//
// Recursion is bounded by kMaxNesting and tree depth by kMaxExpressionDepth,
// so no input can exhaust the stack.
//
//===----------------------------------------------------------------------===//

#include "SyntaxParser.h"
#include "Lexer.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Error.h"

using namespace mlir;
using namespace mlir::sinter::frontend;
using llvm::SMLoc;

/// Deepest nesting of parentheses, brackets, calls and unary operators.
static constexpr unsigned kMaxNesting = 256;

Location mlir::sinter::frontend::getSourceLocation(
    MLIRContext *context, const llvm::SourceMgr &sourceMgr, SMLoc loc) {
  unsigned bufferId = sourceMgr.FindBufferContainingLoc(loc);
  if (bufferId == 0)
    return UnknownLoc::get(context);
  auto [line, column] = sourceMgr.getLineAndColumn(loc, bufferId);
  StringRef file = sourceMgr.getMemoryBuffer(bufferId)->getBufferIdentifier();
  return FileLineColLoc::get(context, file, line, column);
}

/// Words that start a statement or a model, or are literals; they cannot
/// name a value.
static bool isKeyword(StringRef word) {
  return llvm::is_contained(
      {"model", "dim", "input", "param", "return", "true", "false"}, word);
}

namespace {

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

  void consume() { token = lexer.lex(); }
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
  InFlightDiagnostic emitError(SMLoc loc) {
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
  LogicalResult parseName(std::string &name, SMLoc &loc, StringRef what);
  LogicalResult parseDimStatement(Statement &statement);
  LogicalResult parseType(TypeSpec &type);
  LogicalResult parseDimSpec(DimSpec &dim);
  LogicalResult parseInteger(int64_t &value);

  //===--- Expressions ---------------------------------------------------===//

  FailureOr<ExprPtr> parseExpr() { return parseBinary(0); }
  /// Parses a left-associative chain of the operators of precedence
  /// `level` (see isBinaryOperator).
  FailureOr<ExprPtr> parseBinary(unsigned level);
  FailureOr<ExprPtr> parseUnary();
  FailureOr<ExprPtr> parsePostfix();
  FailureOr<ExprPtr> parsePrimary();
  FailureOr<ExprPtr> parseNumber();
  FailureOr<ExprPtr> parseList();
  FailureOr<ExprPtr> parseCall(std::string callee, SMLoc loc);
  /// Parses `expr (',' expr)*` up to `close`, which it consumes.
  LogicalResult parseExprList(Token::Kind close, std::vector<ExprPtr> &list);
  /// Builds a node over `operands`, failing when the tree gets too deep.
  FailureOr<ExprPtr> makeNode(Expr::Kind kind, SMLoc loc,
                              std::vector<ExprPtr> operands);
  /// Counts one more level of nesting; fails beyond kMaxNesting.
  LogicalResult enterNesting(SMLoc loc);

  const llvm::SourceMgr &sourceMgr;
  MLIRContext *context;
  Lexer lexer;
  Token token;
  unsigned nesting = 0;
};

/// Leaves one level of nesting when destroyed.
struct NestingScope {
  explicit NestingScope(unsigned &nesting) : nesting(nesting) {}
  ~NestingScope() { --nesting; }
  unsigned &nesting;
};

} // namespace

LogicalResult SyntaxParser::emitUnexpected(StringRef expected) {
  if (token.is(Token::Kind::Error))
    return emitError(token.getLoc()) << lexer.getErrorMessage();
  InFlightDiagnostic diag = emitError(token.getLoc())
                            << "expected " << expected << ", found ";
  if (token.is(Token::Kind::Identifier))
    diag << "'" << token.spelling << "'";
  else
    diag << describeTokenKind(token.kind);
  return diag;
}

LogicalResult SyntaxParser::expect(Token::Kind kind, StringRef where) {
  if (consumeIf(kind))
    return success();
  return emitUnexpected((describeTokenKind(kind) + " " + where).str());
}

LogicalResult SyntaxParser::enterNesting(SMLoc loc) {
  if (++nesting <= kMaxNesting)
    return success();
  return emitError(loc) << "expression nests too deeply (more than "
                        << kMaxNesting << " levels)";
}

//===----------------------------------------------------------------------===//
// Declarations
//===----------------------------------------------------------------------===//

FailureOr<SourceFile> SyntaxParser::parseFile() {
  StringRef buffer =
      sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  SMLoc start = SMLoc::getFromPointer(buffer.begin());
  if (buffer.size() > kMaxSourceSize)
    return emitError(start) << "input is " << buffer.size()
                            << " bytes; the limit for a .sinter file is "
                            << kMaxSourceSize << " bytes";

  SourceFile file;
  llvm::StringMap<SMLoc> modelLocs;
  skipNewlines();
  while (!token.is(Token::Kind::Eof)) {
    if (!token.is(Token::Kind::Identifier) || token.spelling != "model")
      return emitUnexpected("'model'");
    ModelDecl model;
    if (failed(parseModel(model)))
      return failure();
    auto [it, inserted] = modelLocs.try_emplace(model.name, model.loc);
    if (!inserted) {
      emitError(model.loc) << "redefinition of model '" << model.name << "'"
                           << "; a file names each model once";
      return failure();
    }
    file.models.push_back(std::move(model));
    skipNewlines();
  }
  if (file.models.empty())
    return emitError(start)
           << "no model in the file; a model reads 'model NAME { ... }'";
  return file;
}

LogicalResult SyntaxParser::parseName(std::string &name, SMLoc &loc,
                                      StringRef what) {
  if (!token.is(Token::Kind::Identifier))
    return emitUnexpected(what);
  if (isKeyword(token.spelling))
    return emitError(token.getLoc())
           << "'" << token.spelling << "' is a keyword and cannot be used as "
           << what;
  name = token.spelling.str();
  loc = token.getLoc();
  consume();
  return success();
}

LogicalResult SyntaxParser::parseModel(ModelDecl &model) {
  consume(); // 'model'
  if (failed(parseName(model.name, model.loc, "a model name")) ||
      failed(expect(Token::Kind::LBrace, "after the model name")))
    return failure();
  while (true) {
    skipNewlines();
    if (consumeIf(Token::Kind::RBrace))
      return success();
    if (token.is(Token::Kind::Eof))
      return emitError(token.getLoc())
             << "expected '}' to close model '" << model.name << "'";
    if (failed(parseStatement(model.body)))
      return failure();
    if (!token.is(Token::Kind::RBrace) && !consumeIf(Token::Kind::Newline))
      return emitUnexpected("end of line after the statement");
  }
}

LogicalResult SyntaxParser::parseStatement(std::vector<Statement> &body) {
  StringRef word = token.is(Token::Kind::Identifier) ? token.spelling : "";
  SMLoc loc = token.getLoc();
  auto kind = llvm::StringSwitch<std::optional<Statement::Kind>>(word)
                  .Case("dim", Statement::Kind::Dim)
                  .Case("input", Statement::Kind::Input)
                  .Case("param", Statement::Kind::Param)
                  .Case("return", Statement::Kind::Return)
                  .Default(std::nullopt);
  if (!token.is(Token::Kind::Identifier) || word == "model" || word == "true" ||
      word == "false")
    return emitUnexpected("a statement ('dim', 'input', 'param', 'return' or "
                          "'NAME = EXPR')");

  Statement &statement =
      body.emplace_back(kind.value_or(Statement::Kind::Assign), loc);
  if (!kind) {
    statement.name = word.str();
    statement.nameLoc = loc;
    consume();
    if (!token.is(Token::Kind::Equal))
      return emitUnexpected("'=' after '" + statement.name +
                            "' (a statement is 'dim', 'input', 'param', "
                            "'return' or 'NAME = EXPR')");
    consume();
    FailureOr<ExprPtr> value = parseExpr();
    if (failed(value))
      return failure();
    statement.value = std::move(*value);
    return success();
  }

  consume(); // the keyword
  switch (*kind) {
  case Statement::Kind::Dim:
    return parseDimStatement(statement);
  case Statement::Kind::Input:
  case Statement::Kind::Param: {
    StringRef what =
        *kind == Statement::Kind::Input ? "an input name" : "a param name";
    if (failed(parseName(statement.name, statement.nameLoc, what)) ||
        failed(expect(Token::Kind::Colon, "before the type")) ||
        failed(parseType(statement.type)))
      return failure();
    if (*kind == Statement::Kind::Input || !consumeIf(Token::Kind::Equal))
      return success();
    FailureOr<ExprPtr> init = parseExpr();
    if (failed(init))
      return failure();
    statement.value = std::move(*init);
    return success();
  }
  case Statement::Kind::Return:
    do {
      FailureOr<ExprPtr> result = parseExpr();
      if (failed(result))
        return failure();
      statement.results.push_back(std::move(*result));
    } while (consumeIf(Token::Kind::Comma));
    return success();
  case Statement::Kind::Assign:
    break;
  }
  llvm_unreachable("assignments are parsed above");
}

LogicalResult SyntaxParser::parseInteger(int64_t &value) {
  if (!token.is(Token::Kind::Integer))
    return emitUnexpected("an integer");
  if (token.spelling.getAsInteger(10, value))
    return emitError(token.getLoc())
           << "integer " << token.spelling << " is too large (the limit is "
           << std::numeric_limits<int64_t>::max() << ")";
  consume();
  return success();
}

LogicalResult SyntaxParser::parseDimStatement(Statement &statement) {
  if (failed(parseName(statement.name, statement.nameLoc, "a dim name")) ||
      failed(expect(Token::Kind::Equal, "after the dim name")))
    return failure();
  SMLoc valueLoc = token.getLoc();
  bool negative = consumeIf(Token::Kind::Minus);
  if (token.is(Token::Kind::Float))
    return emitError(valueLoc)
           << "dim '" << statement.name << "' must be an integer, got "
           << token.spelling;
  if (failed(parseInteger(statement.dimValue)))
    return failure();
  if (negative || statement.dimValue < 1)
    return emitError(valueLoc)
           << "dim '" << statement.name << "' must be at least 1, got "
           << (negative ? "-" : "") << statement.dimValue;
  return success();
}

LogicalResult SyntaxParser::parseType(TypeSpec &type) {
  type.loc = token.getLoc();
  if (!token.is(Token::Kind::Identifier))
    return emitUnexpected("a type such as f32[B, 4096]");
  type.elementType = token.spelling.str();
  consume();
  if (failed(expect(Token::Kind::LBracket, "after the element type")))
    return failure();
  if (consumeIf(Token::Kind::RBracket))
    return success();
  do {
    if (token.is(Token::Kind::RBracket))
      break;
    if (failed(parseDimSpec(type.dims.emplace_back())))
      return failure();
  } while (consumeIf(Token::Kind::Comma));
  return expect(Token::Kind::RBracket, "to close the shape");
}

LogicalResult SyntaxParser::parseDimSpec(DimSpec &dim) {
  dim.loc = token.getLoc();
  if (token.is(Token::Kind::Identifier)) {
    dim.name = token.spelling.str();
    consume();
    return success();
  }
  bool negative = consumeIf(Token::Kind::Minus);
  if (!token.is(Token::Kind::Integer))
    return emitUnexpected("a dimension (an integer or a dim name)");
  if (failed(parseInteger(dim.size)))
    return failure();
  if (negative || dim.size < 1)
    return emitError(dim.loc) << "dimension size must be at least 1, got "
                              << (negative ? "-" : "") << dim.size;
  return success();
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

FailureOr<ExprPtr> SyntaxParser::makeNode(Expr::Kind kind, SMLoc loc,
                                          std::vector<ExprPtr> operands) {
  auto node = std::make_unique<Expr>(kind, loc);
  for (const ExprPtr &operand : operands)
    node->depth = std::max(node->depth, operand->depth + 1);
  if (node->depth > kMaxExpressionDepth)
    return emitError(loc) << "expression is more than " << kMaxExpressionDepth
                          << " levels deep; split it into statements";
  node->operands = std::move(operands);
  return node;
}

/// Whether `kind` is a binary operator of precedence `level`: 0 for + and -,
/// 1 for * / @ (Python's levels; unary minus binds tighter than both).
static bool isBinaryOperator(Token::Kind kind, unsigned level) {
  if (level == 0)
    return kind == Token::Kind::Plus || kind == Token::Kind::Minus;
  return kind == Token::Kind::Star || kind == Token::Kind::Slash ||
         kind == Token::Kind::At;
}

FailureOr<ExprPtr> SyntaxParser::parseBinary(unsigned level) {
  auto parseOperand = [&] {
    return level == 0 ? parseBinary(1) : parseUnary();
  };
  FailureOr<ExprPtr> lhs = parseOperand();
  while (succeeded(lhs) && isBinaryOperator(token.kind, level)) {
    char op = token.spelling.front();
    SMLoc loc = token.getLoc();
    consume();
    FailureOr<ExprPtr> rhs = parseOperand();
    if (failed(rhs))
      return failure();
    std::vector<ExprPtr> operands;
    operands.push_back(std::move(*lhs));
    operands.push_back(std::move(*rhs));
    lhs = makeNode(Expr::Kind::Binary, loc, std::move(operands));
    if (succeeded(lhs))
      (*lhs)->op = op;
  }
  return lhs;
}

FailureOr<ExprPtr> SyntaxParser::parseUnary() {
  if (!token.is(Token::Kind::Minus) && !token.is(Token::Kind::Plus))
    return parsePostfix();
  SMLoc loc = token.getLoc();
  bool negate = token.is(Token::Kind::Minus);
  consume();
  if (failed(enterNesting(loc)))
    return failure();
  NestingScope scope(nesting);
  FailureOr<ExprPtr> operand = parseUnary();
  if (failed(operand) || !negate)
    return operand;
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(*operand));
  return makeNode(Expr::Kind::Negate, loc, std::move(operands));
}

FailureOr<ExprPtr> SyntaxParser::parsePostfix() {
  FailureOr<ExprPtr> base = parsePrimary();
  while (succeeded(base) && token.is(Token::Kind::Dot)) {
    consume();
    if (!token.is(Token::Kind::Identifier))
      return emitUnexpected("'T' after '.'");
    if (token.spelling != "T")
      return emitError(token.getLoc())
             << "unknown attribute '." << token.spelling
             << "'; only '.T' (the transpose of a 2-D tensor) exists";
    SMLoc loc = token.getLoc();
    consume();
    std::vector<ExprPtr> operands;
    operands.push_back(std::move(*base));
    base = makeNode(Expr::Kind::Transpose, loc, std::move(operands));
  }
  return base;
}

FailureOr<ExprPtr> SyntaxParser::parseNumber() {
  auto node = std::make_unique<Expr>(Expr::Kind::Number, token.getLoc());
  if (token.is(Token::Kind::Integer)) {
    if (failed(parseInteger(node->integer)))
      return failure();
    node->isInteger = true;
    node->number = static_cast<double>(node->integer);
    return node;
  }
  llvm::APFloat value(llvm::APFloat::IEEEdouble());
  auto status = value.convertFromString(token.spelling,
                                        llvm::APFloat::rmNearestTiesToEven);
  if (!status) {
    llvm::consumeError(status.takeError());
    return emitError(token.getLoc())
           << "invalid number '" << token.spelling << "'";
  }
  if (*status & llvm::APFloat::opOverflow)
    return emitError(token.getLoc())
           << "number " << token.spelling << " is too large for a double";
  node->number = value.convertToDouble();
  consume();
  return node;
}

LogicalResult SyntaxParser::parseExprList(Token::Kind close,
                                          std::vector<ExprPtr> &list) {
  while (!consumeIf(close)) {
    FailureOr<ExprPtr> element = parseExpr();
    if (failed(element))
      return failure();
    list.push_back(std::move(*element));
    if (!consumeIf(Token::Kind::Comma))
      return expect(close, "or ','");
  }
  return success();
}

FailureOr<ExprPtr> SyntaxParser::parseList() {
  SMLoc loc = token.getLoc();
  consume(); // '['
  std::vector<ExprPtr> elements;
  if (failed(parseExprList(Token::Kind::RBracket, elements)))
    return failure();
  return makeNode(Expr::Kind::List, loc, std::move(elements));
}

FailureOr<ExprPtr> SyntaxParser::parseCall(std::string callee, SMLoc loc) {
  consume(); // '('
  auto call = std::make_unique<Expr>(Expr::Kind::Call, loc);
  call->text = std::move(callee);
  while (!consumeIf(Token::Kind::RParen)) {
    Argument &argument = call->arguments.emplace_back();
    if (token.is(Token::Kind::Identifier) && peek().is(Token::Kind::Equal)) {
      argument.name = token.spelling.str();
      argument.nameLoc = token.getLoc();
      consume();
      consume();
    }
    FailureOr<ExprPtr> value = parseExpr();
    if (failed(value))
      return failure();
    argument.value = std::move(*value);
    call->depth = std::max(call->depth, argument.value->depth + 1);
    if (!consumeIf(Token::Kind::Comma))
      return failed(expect(Token::Kind::RParen, "or ',' in the arguments"))
                 ? FailureOr<ExprPtr>(failure())
                 : FailureOr<ExprPtr>(std::move(call));
  }
  return call;
}

FailureOr<ExprPtr> SyntaxParser::parsePrimary() {
  SMLoc loc = token.getLoc();
  switch (token.kind) {
  case Token::Kind::Integer:
  case Token::Kind::Float:
    return parseNumber();
  case Token::Kind::String: {
    auto node = std::make_unique<Expr>(Expr::Kind::String, loc);
    node->text = token.spelling.drop_front().drop_back().str();
    consume();
    return node;
  }
  case Token::Kind::Identifier: {
    std::string name = token.spelling.str();
    consume();
    if (name == "true" || name == "false") {
      auto node = std::make_unique<Expr>(Expr::Kind::Bool, loc);
      node->boolean = name == "true";
      return node;
    }
    if (!token.is(Token::Kind::LParen)) {
      auto node = std::make_unique<Expr>(Expr::Kind::Name, loc);
      node->text = std::move(name);
      return node;
    }
    if (failed(enterNesting(loc)))
      return failure();
    NestingScope scope(nesting);
    return parseCall(std::move(name), loc);
  }
  case Token::Kind::LBracket: {
    if (failed(enterNesting(loc)))
      return failure();
    NestingScope scope(nesting);
    return parseList();
  }
  case Token::Kind::LParen: {
    if (failed(enterNesting(loc)))
      return failure();
    NestingScope scope(nesting);
    consume();
    FailureOr<ExprPtr> inner = parseExpr();
    if (failed(inner) ||
        failed(expect(Token::Kind::RParen, "to close the parenthesis")))
      return failure();
    return inner;
  }
  default:
    return emitUnexpected("an expression");
  }
}

FailureOr<SourceFile>
mlir::sinter::frontend::parseSourceFile(const llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context) {
  return SyntaxParser(sourceMgr, context).parseFile();
}
