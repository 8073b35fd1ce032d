//===- RowVectors.cpp - float4 loops over a row, rows in registers --------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The row writer's float4 loops: four consecutive elements of every buffer
// with whole rows per step, read with one 16-byte load and written with one
// store. Outside registers, the loop strides over the row's float4 groups
// under `if (vec)` (of a row cached in shared memory, there, where every
// reduction covers whole rows), and a scalar loop takes unaligned buffers.
//
// Where the plan says `registers`, each thread of a row's team holds the
// float4 groups q = tid + k * kThreads of the row, k = 0, 1, ... (a static
// count): the inputs that several passes read are loaded into registers once
// per row, and every loop over the row is unrolled over the same groups, so
// that it reads them from there. Short rows share a warp this way
// (subwarp_per_row: a group of 1 to 16 lanes per row), longer ones use a warp
// or a block. Groups load with float4 when the host finds the buffers 16-byte
// aligned and with four scalar loads otherwise, in the same loop; a norm's
// weight (a param of one row's elements) is read as float4 groups too.
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
    std::string name = writer.freshName(buffer->name + "_rv");
    writer.line("float " + name + "[" + floats + "];");
    registerRows[buffer->value] = name;
  }
  Expr rowBase = emitter.bindIndex(
      mulIndex(Expr("r", rowDepth), sizeExpr(DimExpr::constant(length))));
  openRegisterRowLoop(length);
  for (const Buffer *buffer : held) {
    const std::string &name = registerRows[buffer->value];
    std::string four = writer.freshName(buffer->name + "_fv");
    writer.line("const float4 " + four + " = dev::loadFour(" + buffer->name +
                " + " + rowBase.text + " + 4 * " + kRegisterGroup + ", vec);");
    writer.line(name + "[4 * k] = " + four + ".x;");
    writer.line(name + "[4 * k + 1] = " + four + ".y;");
    writer.line(name + "[4 * k + 2] = " + four + ".z;");
    writer.line(name + "[4 * k + 3] = " + four + ".w;");
  }
  closeRegisterRowLoop(length);
}

bool RowWriter::isRowParamLane(const Buffer &buffer, const Coords &coords) {
  return (plan.registerRows || plan.getRowSlices() > 1) && lanePosition &&
         !buffer.isIndex &&
         getNumElements(buffer.shape) ==
             DimExpr::constant(*plan.staticRowLength) &&
         (linearize(coords, buffer.shape).text == lanePosition->text ||
          (coords.laneBase && vectorGroup &&
           linearize(*coords.laneBase, buffer.shape).text ==
               vectorGroup->text));
}

std::optional<Expr> RowWriter::readVectorLane(const Buffer &buffer,
                                              const Coords &coords) {
  if (!laneLinear || !llvm::is_contained(plan.vectorBuffers, buffer.name))
    return std::nullopt;
  bool rowParam = isRowParamLane(buffer, coords);
  if (!rowParam && (!coords.linear || coords.linear->text != laneLinear->text ||
                    ArrayRef<DimExpr>(coords.linearShape) !=
                        ArrayRef<DimExpr>(buffer.shape)))
    return std::nullopt;
  auto held = registerRows.find(buffer.value);
  if (held != registerRows.end())
    return Expr(held->second + "[4 * k + l]", writer.getDepth());
  auto it = vectors.find(buffer.name);
  if (it == vectors.end()) {
    std::string name = writer.freshName(buffer.name + "_v");
    // A row param's group starts at the group's offset in the row.
    std::string address =
        buffer.name + " + " + (rowParam ? vectorGroup : vectorLinear)->text;
    // Rows in registers have no scalar loop: unaligned groups load scalars.
    // A streamed slice is read under the pass's L2 policy, a cached row from
    // shared memory (its group at the offset in the block's slice).
    auto cache = sharedRows.find(buffer.value);
    if (plan.vectorCache && cachedCondition == "true" && !rowParam &&
        cache != sharedRows.end())
      address =
          cache->second + " + " + vectorGroup->text +
          (plan.isSliced(DimExpr::constant(*plan.staticRowLength)) ? " - begin"
                                                                   : "");
    std::string load =
        rowParam && llvm::is_contained(plan.heldParams, buffer.value)
            ? getHeldParam(buffer, address) + "[k]"
        : plan.registerRows ? "dev::loadFour(" + address + ", vec)"
        : !loadPolicy.empty() && !rowParam
            ? "dev::loadFloat4WithPolicy(" + address + ", " + loadPolicy + ")"
            : "dev::loadFloat4(" + address + ")";
    writer.lineAt(vectorDepth, "const float4 " + name + "4 = " + load + ";");
    writer.lineAt(vectorDepth, "const float " + name + "[4] = {" + name +
                                   "4.x, " + name + "4.y, " + name + "4.z, " +
                                   name + "4.w};");
    it = vectors.insert({buffer.name, name}).first;
  }
  return Expr(it->second + "[l]", writer.getDepth());
}

std::string RowWriter::getHeldParam(const Buffer &buffer,
                                    const std::string &address) {
  auto it = heldParamArrays.find(buffer.value);
  if (it != heldParamArrays.end())
    return it->second;
  // Loaded before the loop over rows, at the same groups (its address
  // depends on the group only).
  std::string name = writer.freshName(buffer.name + "_held");
  int64_t groups = *plan.staticRowLength / 4;
  std::string load = "dev::loadFour(" + address + ", vec)";
  if (groups % plan.team != 0)
    load = std::string(kRegisterGroup) + " < " + std::to_string(groups) +
           " ? " + load + " : make_float4(0.f, 0.f, 0.f, 0.f)";
  unsigned depth = rowDepth - 1;
  writer.lineAt(depth, "float4 " + name + "[" +
                           std::to_string(plan.groupsPerThread()) + "];");
  writer.lineAt(depth, "#pragma unroll");
  writer.lineAt(depth, "for (int k = 0; k < " +
                           std::to_string(plan.groupsPerThread()) + "; ++k)");
  writer.lineAt(depth, "  " + name + "[k] = " + load + ";");
  return heldParamArrays.insert({buffer.value, name}).first->second;
}

LogicalResult
RowWriter::writeVectorRowLoop(int64_t length,
                              function_ref<LogicalResult(const Expr &)> body,
                              function_ref<void()> finish) {
  if (plan.registerRows) {
    vectorDepth = openRegisterRowLoop(length);
  } else {
    writer.openScope(); // if (vec)
    writer.openScope(); // over groups of four
    vectorDepth = writer.getDepth();
  }
  Expr rowBase = emitter.bindIndex(
      mulIndex(Expr("r", rowDepth), sizeExpr(DimExpr::constant(length))));
  const bool edges = plan.hasEdges(DimExpr::constant(length));
  if (edges && !edgesDeclared) {
    // The row's float4 groups start at its first 16-byte boundary.
    const std::string size = std::to_string(length);
    writer.lineAt(rowDepth, "const int64_t vecHead = (4 - (" + rowBase.text +
                                " & 3)) & 3;");
    writer.lineAt(rowDepth,
                  "const int64_t vecGroups = (" + size + " - vecHead) / 4;");
    writer.lineAt(rowDepth,
                  "const int64_t vecEdges = " + size + " - 4 * vecGroups;");
    edgesDeclared = true;
  }
  // The first element of the float4 group.
  std::string group = plan.registerRows ? std::string("4 * ") + kRegisterGroup
                      : edges           ? "vecHead + 4 * q"
                                        : "4 * q";
  vectorGroup = Expr(group, vectorDepth);
  vectorLinear = addIndex(rowBase, *vectorGroup);
  writer.openScope(); // over the lanes
  Expr position(group + " + l", writer.getDepth());
  laneLinear = addIndex(rowBase, position);
  lanePosition = position;
  LogicalResult written = body(position);
  laneLinear.reset();
  lanePosition.reset();
  vectors.clear();
  if (failed(written))
    return failure();
  writer.closeScope("#pragma unroll\nfor (int l = 0; l < 4; ++l) {");
  finish();
  if (plan.registerRows) {
    closeRegisterRowLoop(length);
    vectorLinear.reset();
    return success();
  }
  // Unrolled so that each thread has four float4 loads in flight (the order
  // of the combines, and so the result, stays the same).
  // A streamed slice's groups are those from `begin`.
  writer.closeScope(
      edges ? "#pragma unroll 4\nfor (int64_t q = tid; q < vecGroups; q += "
              "kThreads) {"
      : plan.isSliced(DimExpr::constant(length))
          ? "#pragma unroll 4\nfor (int64_t q = begin / 4 + tid; q < begin / 4 "
            "+ " +
                std::to_string(plan.getRowSlice() / 4) + "; q += kThreads) {"
          : "#pragma unroll 4\nfor (int64_t q = tid; q < " +
                std::to_string(length / 4) + "; q += kThreads) {");
  vectorLinear.reset();
  writer.closeScope("if (vec) { // float4 loads");
  // The scalar loop follows in a scope the caller closes
  // (getScalarRowScope).
  writer.openScope();
  return success();
}

void RowWriter::openScalarRowLoop(const DimExpr &length) {
  writer.openScope();
  if (plan.hasEdges(length))
    writer.line(
        "const int64_t j = vec && k >= vecHead ? k + 4 * vecGroups : k;");
}

std::string RowWriter::getScalarRowScope(const DimExpr &length) const {
  return plan.hasEdges(length)
             ? "{ // Scalars: the edges where vec, else every element."
             : "if (!vec) {";
}

LogicalResult RowWriter::writeVectorOutputs(ArrayRef<const Buffer *> outputs,
                                            int64_t length) {
  // Rows of `length` are contiguous: element 4 * q + l of row r is at
  // r * length + 4 * q + l in every output.
  std::string rowBase;
  return writeVectorRowLoop(
      length,
      [&](const Expr &position) -> LogicalResult {
        rowBase = vectorLinear->text;
        for (const Buffer *output : outputs) {
          writer.lineAt(vectorDepth, "float " + output->name + "_out[4];");
          FailureOr<Expr> element =
              emitter.emit(output->value, rowCoords(output->shape, position));
          if (failed(element))
            return failure();
          writer.line(output->name + "_out[l] = " + element->text + ";");
        }
        return success();
      },
      [&] {
        for (const Buffer *output : outputs) {
          std::string out = output->name + "_out";
          std::string four = "make_float4(" + out + "[0], " + out + "[1], " +
                             out + "[2], " + out + "[3])";
          writer.line(plan.registerRows
                          ? "dev::storeFour(" + output->name + " + " + rowBase +
                                ", " + four + ", vec);"
                          : std::string(plan.rowSlices > 1
                                            ? "dev::storeFloat4Streaming("
                                            : "dev::storeFloat4(") +
                                output->name + " + " + rowBase + ", " + four +
                                ");");
        }
      });
}
