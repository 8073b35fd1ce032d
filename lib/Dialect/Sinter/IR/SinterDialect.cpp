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

#include "sinter/Dialect/Sinter/IR/SinterOpsDialect.cpp.inc"

void SinterDialect::initialize() {
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
