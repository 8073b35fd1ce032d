//===- SinterOps.td - Sinter dialect operations ------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Every op follows PyTorch's definition of the function it is named after.
// Ops whose result type follows from their operands and attributes implement
// InferTypeOpInterface, so neither the textual form nor a builder ever spells
// that type. Dimensions carried in attributes are non-negative (the frontend
// normalizes negative Python-style indices).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTEROPS_TD
#define SINTER_DIALECT_SINTER_IR_SINTEROPS_TD

include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "sinter/Dialect/Sinter/IR/SinterEnums.td"
include "sinter/Dialect/Sinter/IR/SinterInterfaces.td"
include "sinter/Dialect/Sinter/IR/SinterAttrs.td"

include "sinter/Dialect/Sinter/IR/ShapeOps.td"
include "sinter/Dialect/Sinter/IR/LinearAlgebraOps.td"
include "sinter/Dialect/Sinter/IR/ElementwiseOps.td"
include "sinter/Dialect/Sinter/IR/ReductionOps.td"
include "sinter/Dialect/Sinter/IR/NormalizationOps.td"
include "sinter/Dialect/Sinter/IR/KernelOps.td"

#endif // SINTER_DIALECT_SINTER_IR_SINTEROPS_TD
