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
//               | NAME (',' NAME)* '=' expr | NAME AUGASSIGN expr
//   type       := NAME '[' [dim (',' dim)*] ']'        dim := INT | NAME
//   expr       := sum [COMPARE sum]                   (parseComparison)
//   sum        := term (('+' | '-') term)*            (parseBinary(0))
//   term       := unary (('*' | '/' | '@') unary)*    (parseBinary(1))
//   unary      := ('-' | '+') unary | postfix
//   postfix    := primary ('.' NAME ['(' args ')'] | '[' subscripts ']')*
//   primary    := NUMBER | STRING | NAME | NAME '(' args ')' | '[' exprs ']'
//               | '(' expr ')' | '(' [expr (',' expr)* [',']] ')'
//               | ('torch' | 'F' | 'math') '.' ... NAME ['(' args ')']
//
// `x.f(args)` is the call `f(x, args)`; a tuple is a list. Python constructs
// the language does not have (control flow, comprehensions, `a if c else b`)
// are recognized so that the error names them and what to write instead.
//
// Recursion is bounded by kMaxNesting and tree depth by kMaxExpressionDepth,
// so no input can exhaust the stack.
//
//===----------------------------------------------------------------------===//

#include "SyntaxParserImpl.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Error.h"

using namespace mlir;
using namespace mlir::sinter::frontend;
using namespace mlir::sinter::frontend::detail;
using llvm::SMLoc;

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
  return llvm::is_contained({"model", "dim", "input", "param", "return", "true",
                             "false", "True", "False", "None"},
                            word);
}

/// What to write instead of a Python statement the language does not have,
/// or "" when `word` does not start one.
static StringRef getUnsupportedStatementHint(StringRef word) {
  return llvm::StringSwitch<StringRef>(word)
      .Cases({"if", "elif", "else"}, "a model is straight-line code; for "
                                     "an elementwise choice use "
                                     "where(cond, a, b)")
      .Cases({"for", "while"},
             "a model is straight-line code; write each step as a statement "
             "(reductions such as sum(x, dim=1) replace loops over a dim)")
      .Cases({"def", "class", "lambda"},
             "a file holds 'model NAME { ... }' blocks; the functions are "
             "the builtins (sinterc --list-builtins)")
      .Cases({"import", "from"},
             "nothing needs importing: builtins may be written as relu, "
             "F.relu, torch.relu or torch.nn.functional.relu")
      .Default("");
}

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
  if (StringRef hint = getUnsupportedStatementHint(word); !hint.empty())
    return emitError(loc) << "Python '" << word
                          << "' statements are not supported: " << hint;
  if (!token.is(Token::Kind::Identifier) || (isKeyword(word) && !kind))
    return emitUnexpected("a statement ('dim', 'input', 'param', 'return' or "
                          "'NAME = EXPR')");

  Statement &statement =
      body.emplace_back(kind.value_or(Statement::Kind::Assign), loc);
  if (!kind)
    return parseAssignment(statement);

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

LogicalResult SyntaxParser::parseAssignment(Statement &statement) {
  statement.name = token.spelling.str();
  statement.nameLoc = token.getLoc();
  consume();
  // `a, b = ...` unpacks a tuple.
  if (token.is(Token::Kind::Comma)) {
    statement.targets.emplace_back(statement.name, statement.nameLoc);
    while (consumeIf(Token::Kind::Comma)) {
      std::string name;
      SMLoc nameLoc;
      if (failed(parseName(name, nameLoc, "a name to assign")))
        return failure();
      statement.targets.emplace_back(std::move(name), nameLoc);
    }
  }
  // `h += x` is `h = h + x`.
  if (statement.targets.empty() && token.is(Token::Kind::AugmentedAssign)) {
    SMLoc opLoc = token.getLoc();
    char op = token.spelling.front();
    consume();
    FailureOr<ExprPtr> rhs = parseExpr();
    if (failed(rhs))
      return failure();
    auto lhs = std::make_unique<Expr>(Expr::Kind::Name, statement.nameLoc);
    lhs->text = statement.name;
    lhs->source =
        StringRef(statement.nameLoc.getPointer(), statement.name.size());
    std::vector<ExprPtr> operands;
    operands.push_back(std::move(lhs));
    operands.push_back(std::move(*rhs));
    FailureOr<ExprPtr> value =
        makeNode(Expr::Kind::Binary, opLoc, std::move(operands));
    if (failed(value))
      return failure();
    (*value)->op = op;
    (*value)->source = StringRef(statement.nameLoc.getPointer(),
                                 previousEnd - statement.nameLoc.getPointer());
    statement.value = std::move(*value);
    return success();
  }
  if (token.is(Token::Kind::LBracket) || token.is(Token::Kind::Dot))
    return emitError(token.getLoc())
           << "assignment to part of a tensor ('" << statement.name
           << (token.is(Token::Kind::Dot) ? ".NAME" : "[...]")
           << " = ...') is not supported: tensors are values; build the new "
              "tensor with arithmetic, clamp() or maximum() and assign it to "
              "a name";
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

FailureOr<SourceFile>
mlir::sinter::frontend::parseSourceFile(const llvm::SourceMgr &sourceMgr,
                                        MLIRContext *context) {
  return SyntaxParser(sourceMgr, context).parseFile();
}
