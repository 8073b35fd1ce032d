//===- SinterDialect.cpp - Sinter dialect ---------------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#include "sinter/Dialect/Sinter/IR/SinterDialect.h"
#include "sinter/Dialect/Sinter/IR/SinterOps.h"

using namespace mlir;
using namespace mlir::sinter;

#include "mlir/IR/DialectImplementation.h"

#include "llvm/ADT/TypeSwitch.h"

#include "sinter/Dialect/Sinter/IR/SinterOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "sinter/Dialect/Sinter/IR/SinterAttrs.cpp.inc"

void SinterDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "sinter/Dialect/Sinter/IR/SinterAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "sinter/Dialect/Sinter/IR/SinterOps.cpp.inc"
      >();
}

Operation *SinterDialect::materializeConstant(OpBuilder &builder,
                                              Attribute value, Type type,
                                              Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, elements);
}
