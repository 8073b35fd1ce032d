//===- SinterDialect.h - Sinter dialect declaration -------------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTERDIALECT_H
#define SINTER_DIALECT_SINTER_IR_SINTERDIALECT_H

#include "mlir/IR/Dialect.h"

#include "sinter/Dialect/Sinter/IR/SinterOpsDialect.h.inc"

#endif // SINTER_DIALECT_SINTER_IR_SINTERDIALECT_H
