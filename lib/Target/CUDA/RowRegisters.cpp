//===- RowRegisters.cpp - Rows held in registers --------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Where the plan says `registers`, each thread of a row's team holds the
// float4 groups q = tid + k * kThreads of the row, k = 0, 1, ... (a static
// count): the inputs that several passes read are loaded into registers once
// per row, and every loop over the row is unrolled over the same groups, so
// that it reads them from there. Short rows share a warp this way
// (subwarp_per_row: a group of 1 to 16 lanes per row), longer ones use a warp
// or a block. Groups load with float4 when the host finds the buffers 16-byte
// aligned and with four scalar loads otherwise, in the same loop.
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

unsigned RowWriter::openRegisterRowLoop(int64_t length) {
  writer.openScope(); // over the thread's groups
  if ((length / 4) % plan.team != 0)
    writer.openScope(); // the groups the row has
  return writer.getDepth();
}

void RowWriter::closeRegisterRowLoop(int64_t length) {
  int64_t groups = length / 4;
  if (groups % plan.team != 0)
    writer.closeScope(std::string("if (") + kRegisterGroup + " < " +
                      std::to_string(groups) + ") {");
  writer.closeScope("#pragma unroll\nfor (int k = 0; k < " +
                    std::to_string(llvm::divideCeil(groups, plan.team)) +
                    "; ++k) {");
}

void RowWriter::writeRegisterFill() {
  int64_t length = *plan.staticRowLength;
  SmallVector<const Buffer *> held;
  for (auto &[buffer, perRow] : plan.cached)
    if (perRow == DimExpr::constant(length))
      held.push_back(buffer);
  if (held.empty())
    return;
  std::string floats = std::to_string(4 * plan.groupsPerThread());
  for (const Buffer *buffer : held) {
    std::string name = writer.freshName(buffer->name + "_r");
    writer.line("float " + name + "[" + floats + "];");
    registerRows[buffer->value] = name;
  }
  Expr rowBase = emitter.bindIndex(
      mulIndex(Expr("r", rowDepth), sizeExpr(DimExpr::constant(length))));
  openRegisterRowLoop(length);
  for (const Buffer *buffer : held) {
    const std::string &name = registerRows[buffer->value];
    std::string four = writer.freshName(buffer->name + "_f");
    writer.line("const float4 " + four + " = dev::loadFour(" + buffer->name +
                " + " + rowBase.text + " + 4 * " + kRegisterGroup + ", vec);");
    writer.line(name + "[4 * k] = " + four + ".x;");
    writer.line(name + "[4 * k + 1] = " + four + ".y;");
    writer.line(name + "[4 * k + 2] = " + four + ".z;");
    writer.line(name + "[4 * k + 3] = " + four + ".w;");
  }
  closeRegisterRowLoop(length);
}
