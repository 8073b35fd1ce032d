//===- ExpressionParser.cpp - Expressions of .sinter text -----------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The expression half of the syntax parser: Python's precedence (comparison,
// sum, term, unary, postfix), calls, methods, subscripts, tuples and the
// qualified names of torch, torch.nn.functional (F) and math. Each node
// records its source text, so that messages print numbers as written.
//
//===----------------------------------------------------------------------===//

#include "SyntaxParserImpl.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"

using namespace mlir;
using namespace mlir::sinter::frontend;
using namespace mlir::sinter::frontend::detail;
using llvm::SMLoc;

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

/// Sets the source text of `expr`: from `start` to the end of the last
/// consumed token.
static void setSource(Expr &expr, const char *start, const char *end) {
  expr.source = StringRef(start, end - start);
}

FailureOr<ExprPtr> SyntaxParser::parseExpr() {
  FailureOr<ExprPtr> expr = parseComparison();
  if (failed(expr))
    return failure();
  if (token.is(Token::Kind::Identifier)) {
    StringRef word = token.spelling;
    if (word == "if")
      return emitError(token.getLoc())
             << "conditional expressions ('a if cond else b') are not "
                "supported; "
             << kElementwiseChoiceHint;
    if (word == "and" || word == "or" || word == "not" || word == "in" ||
        word == "is")
      return emitError(token.getLoc())
             << "'" << word
             << "' is not supported (comparisons give 0/1 masks, not "
                "booleans); "
             << kElementwiseChoiceHint;
    if (word == "for")
      return emitError(token.getLoc())
             << "comprehensions ('... for ... in ...') are not supported; "
                "write each element, or use a reduction or reshape";
  }
  return expr;
}

FailureOr<ExprPtr> SyntaxParser::parseComparison() {
  const char *start = token.spelling.begin();
  FailureOr<ExprPtr> lhs = parseBinary(0);
  if (failed(lhs) || !token.is(Token::Kind::Compare))
    return lhs;
  std::string op = token.spelling.str();
  SMLoc loc = token.getLoc();
  consume();
  FailureOr<ExprPtr> rhs = parseBinary(0);
  if (failed(rhs))
    return failure();
  if (token.is(Token::Kind::Compare))
    return emitError(token.getLoc())
           << "chained comparisons ('a < b < c') are not supported";
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(*lhs));
  operands.push_back(std::move(*rhs));
  FailureOr<ExprPtr> node =
      makeNode(Expr::Kind::Compare, loc, std::move(operands));
  if (succeeded(node)) {
    (*node)->text = std::move(op);
    setSource(**node, start, previousEnd);
  }
  return node;
}

FailureOr<ExprPtr> SyntaxParser::parseBinary(unsigned level) {
  const char *start = token.spelling.begin();
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
    if (succeeded(lhs)) {
      (*lhs)->op = op;
      setSource(**lhs, start, previousEnd);
    }
  }
  return lhs;
}

FailureOr<ExprPtr> SyntaxParser::parseUnary() {
  const char *start = token.spelling.begin();
  if (!token.is(Token::Kind::Minus) && !token.is(Token::Kind::Plus)) {
    FailureOr<ExprPtr> operand = parsePostfix();
    if (succeeded(operand))
      setSource(**operand, start, previousEnd);
    return operand;
  }
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
  FailureOr<ExprPtr> node =
      makeNode(Expr::Kind::Negate, loc, std::move(operands));
  if (succeeded(node))
    setSource(**node, start, previousEnd);
  return node;
}

FailureOr<ExprPtr> SyntaxParser::parsePostfix() {
  FailureOr<ExprPtr> base = parsePrimary();
  while (succeeded(base)) {
    if (token.is(Token::Kind::LBracket)) {
      base = parseIndex(std::move(*base));
      continue;
    }
    if (token.is(Token::Kind::LParen))
      return emitError(token.getLoc())
             << "only functions can be called; '(' after "
             << ((*base)->kind == Expr::Kind::Name ? "a value"
                                                   : "an expression")
             << " is not a call";
    if (!token.is(Token::Kind::Dot))
      break;
    consume();
    if (!token.is(Token::Kind::Identifier))
      return emitUnexpected("an attribute or method name after '.'");
    std::string name = token.spelling.str();
    SMLoc loc = token.getLoc();
    consume();
    std::vector<ExprPtr> operands;
    operands.push_back(std::move(*base));
    if (name == "T") {
      base = makeNode(Expr::Kind::Transpose, loc, std::move(operands));
      continue;
    }
    if (!token.is(Token::Kind::LParen)) {
      base = makeNode(Expr::Kind::Attribute, loc, std::move(operands));
      if (succeeded(base))
        (*base)->text = std::move(name);
      continue;
    }
    // `x.f(args)` is `f(x, args)`.
    if (failed(enterNesting(loc)))
      return failure();
    NestingScope scope(nesting);
    FailureOr<ExprPtr> call = parseCall(std::move(name), loc);
    if (failed(call))
      return failure();
    Argument receiver;
    receiver.value = std::move(operands.front());
    (*call)->depth = std::max((*call)->depth, receiver.value->depth + 1);
    (*call)->arguments.insert((*call)->arguments.begin(), std::move(receiver));
    (*call)->isMethod = true;
    if ((*call)->depth > kMaxExpressionDepth)
      return emitError(loc) << "expression is more than " << kMaxExpressionDepth
                            << " levels deep; split it into statements";
    base = std::move(call);
  }
  return base;
}

LogicalResult SyntaxParser::parseSubscript(Subscript &subscript) {
  subscript.loc = token.getLoc();
  auto atEnd = [&] {
    return token.is(Token::Kind::Colon) || token.is(Token::Kind::Comma) ||
           token.is(Token::Kind::RBracket);
  };
  auto parsePart = [&](ExprPtr &part) -> LogicalResult {
    if (atEnd())
      return success();
    FailureOr<ExprPtr> value = parseExpr();
    if (failed(value))
      return failure();
    part = std::move(*value);
    return success();
  };
  if (token.is(Token::Kind::Ellipsis)) {
    consume();
    auto node = std::make_unique<Expr>(Expr::Kind::Name, subscript.loc);
    node->text = "...";
    subscript.index = std::move(node);
    return success();
  }
  if (failed(parsePart(subscript.start)))
    return failure();
  if (!consumeIf(Token::Kind::Colon)) {
    subscript.index = std::move(subscript.start);
    if (!subscript.index)
      return emitUnexpected("an index or a slice");
    return success();
  }
  subscript.isSlice = true;
  if (failed(parsePart(subscript.stop)))
    return failure();
  if (consumeIf(Token::Kind::Colon))
    return parsePart(subscript.step);
  return success();
}

FailureOr<ExprPtr> SyntaxParser::parseIndex(ExprPtr base) {
  SMLoc loc = token.getLoc();
  if (failed(enterNesting(loc)))
    return failure();
  NestingScope scope(nesting);
  consume(); // '['
  std::vector<ExprPtr> operands;
  operands.push_back(std::move(base));
  FailureOr<ExprPtr> node =
      makeNode(Expr::Kind::Index, loc, std::move(operands));
  if (failed(node))
    return failure();
  do {
    if (token.is(Token::Kind::RBracket))
      break;
    Subscript &subscript = (*node)->subscripts.emplace_back();
    if (failed(parseSubscript(subscript)))
      return failure();
    for (const ExprPtr *part :
         {&subscript.index, &subscript.start, &subscript.stop, &subscript.step})
      if (*part)
        (*node)->depth = std::max((*node)->depth, (*part)->depth + 1);
  } while (consumeIf(Token::Kind::Comma));
  if (failed(expect(Token::Kind::RBracket, "to close the subscript")))
    return failure();
  if ((*node)->depth > kMaxExpressionDepth)
    return emitError(loc) << "expression is more than " << kMaxExpressionDepth
                          << " levels deep; split it into statements";
  return node;
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

FailureOr<ExprPtr> SyntaxParser::parseParenthesized() {
  SMLoc loc = token.getLoc();
  consume(); // '('
  std::vector<ExprPtr> elements;
  bool isTuple = token.is(Token::Kind::RParen);
  while (!consumeIf(Token::Kind::RParen)) {
    FailureOr<ExprPtr> element = parseExpr();
    if (failed(element))
      return failure();
    elements.push_back(std::move(*element));
    if (consumeIf(Token::Kind::Comma)) {
      isTuple = true;
      continue;
    }
    if (failed(expect(Token::Kind::RParen, "to close the parenthesis")))
      return failure();
    break;
  }
  if (!isTuple)
    return std::move(elements.front());
  return makeNode(Expr::Kind::List, loc, std::move(elements));
}

FailureOr<ExprPtr> SyntaxParser::parseQualified(StringRef module, SMLoc loc) {
  std::string qualifier = module == "math" ? "math" : "torch";
  if (module == "F" || module == "nn")
    qualifier = "F";
  // The path after the module: torch.nn.functional.NAME, nn.functional.NAME.
  SmallVector<std::string> path{module.str()};
  while (consumeIf(Token::Kind::Dot)) {
    if (!token.is(Token::Kind::Identifier))
      return emitUnexpected("a name after '" + llvm::join(path, ".") + ".'");
    path.push_back(token.spelling.str());
    SMLoc nameLoc = token.getLoc();
    consume();
    std::string spelled = llvm::join(path, ".");
    if (spelled == "torch.nn" || spelled == "nn" ||
        spelled == "torch.nn.functional" || spelled == "nn.functional") {
      qualifier = "F";
      if (!token.is(Token::Kind::Dot))
        return emitError(nameLoc) << "'" << spelled
                                  << "' is a module; call its functions, as "
                                     "in torch.nn.functional.relu(x)";
      continue;
    }
    if ((path.size() == 3 && path[0] == "torch" && path[1] == "nn") ||
        (path.size() == 2 && path[0] == "nn"))
      return emitError(nameLoc)
             << "'" << spelled
             << "' is a module class; write its function, as in "
                "F.relu(x) or linear(x, w, b)";
    if (token.is(Token::Kind::Dot))
      return emitError(nameLoc)
             << "unknown module '" << spelled
             << "'; functions are written NAME(...), F.NAME(...), "
                "torch.NAME(...) or torch.nn.functional.NAME(...)";
    if (token.is(Token::Kind::LParen)) {
      if (failed(enterNesting(loc)))
        return failure();
      NestingScope scope(nesting);
      FailureOr<ExprPtr> call = parseCall(path.back(), nameLoc);
      if (succeeded(call)) {
        (*call)->loc = loc;
        (*call)->qualifier = qualifier;
      }
      return call;
    }
    auto node = std::make_unique<Expr>(Expr::Kind::Name, loc);
    node->text = path.back();
    node->qualifier = qualifier;
    return node;
  }
  return emitUnexpected("'.' after '" + module.str() + "'");
}

FailureOr<ExprPtr> SyntaxParser::parsePrimary() {
  SMLoc loc = token.getLoc();
  switch (token.kind) {
  case Token::Kind::Integer:
  case Token::Kind::Float: {
    const char *start = token.spelling.begin();
    FailureOr<ExprPtr> number = parseNumber();
    if (succeeded(number))
      setSource(**number, start, previousEnd);
    return number;
  }
  case Token::Kind::String: {
    auto node = std::make_unique<Expr>(Expr::Kind::String, loc);
    node->text = token.spelling.drop_front().drop_back().str();
    consume();
    return node;
  }
  case Token::Kind::Identifier: {
    std::string name = token.spelling.str();
    consume();
    if (name == "true" || name == "false" || name == "True" ||
        name == "False") {
      auto node = std::make_unique<Expr>(Expr::Kind::Bool, loc);
      node->boolean = name == "true" || name == "True";
      return node;
    }
    if (name == "None")
      return std::make_unique<Expr>(Expr::Kind::None, loc);
    if (llvm::is_contained({"torch", "F", "math", "nn"}, name) &&
        token.is(Token::Kind::Dot))
      return parseQualified(name, loc);
    if (name == "lambda")
      return emitError(loc) << "'lambda' is not supported; a model is one "
                               "straight-line function";
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
    return parseParenthesized();
  }
  default:
    return emitUnexpected("an expression");
  }
}
