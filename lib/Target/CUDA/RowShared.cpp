//===- RowShared.cpp - A row kernel's shared memory -----------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The shared memory of a row kernel's block: the segments of its segmented
// reductions, then the rows of its cached operands, which several passes
// read (or a cluster's slice of each: the plan's `cluster`, whose blocks
// combine their reductions through distributed shared memory). The rows
// are filled once per row from HBM, as float4 groups where the plan's rows
// are float4 and the buffers aligned, and the passes read them there
// (readLeaf; RowVectors.cpp for float4 groups).
//
//===----------------------------------------------------------------------===//

#include "RowKernel.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::cuda;

bool RowWriter::usesShared() const {
  return (!plan.cached.empty() && cachedCondition != "false") ||
         llvm::any_of(plan.reductions, [](const RowReduction &reduction) {
           return !reduction.isPerRow();
         });
}

std::string RowWriter::getSharedFloats(StringRef cached) const {
  // A tile row of each cached input and tiled output (in registers when
  // the tiles are each thread's).
  if (plan.hasThreadTiles())
    return "0";
  if (plan.tileRows)
    return std::to_string(
        *plan.staticRowLength *
        static_cast<int64_t>(plan.cached.size() + plan.tiledOutputs.size()));
  SmallVector<std::string> segments, rows;
  for (const RowReduction &reduction : plan.reductions)
    if (!reduction.isPerRow())
      segments.push_back(reduction.segments.str());
  for (auto &[buffer, perRow] : plan.cached)
    rows.push_back(plan.getCachedFloats(perRow));
  if (!rows.empty() && cached == "true")
    segments.append(rows.begin(), rows.end());
  else if (!rows.empty() && cached != "false")
    segments.push_back("(" + cached.str() + " ? " + llvm::join(rows, " + ") +
                       " : 0)");
  return segments.empty() ? "0" : llvm::join(segments, " + ");
}

void RowWriter::declareShared() {
  if (plan.cluster > 1) {
    const std::string cluster = std::to_string(plan.cluster);
    const std::string slice = std::to_string(plan.getRowSlice());
    writer.line("// A cluster of " + cluster +
                " blocks shares each row: this block holds and walks");
    writer.line("// its elements [begin, " + plan.getSliceEnd() + ")" +
                (plan.hasShortSlice() ? ", the last block fewer." : "."));
    writer.line("const int64_t begin = static_cast<int64_t>(blockIdx.x % " +
                cluster + ") * " + slice + ";");
    if (plan.hasShortSlice()) {
      const std::string length = std::to_string(*plan.staticRowLength);
      writer.line("const int64_t end = begin + " + slice + " < " + length +
                  " ? begin + " + slice + " : " + length + ";");
    }
    writer.line("__shared__ double clusterSlots[2];");
    writer.line("dev::ClusterExchange exchange{clusterSlots};");
  }
  bool hasSegments = llvm::any_of(
      plan.reductions, [](const RowReduction &r) { return !r.isPerRow(); });
  if (hasSegments) {
    writer.line("const int warp = tid / dev::kWarpSize;");
    writer.line("const int lane = tid % dev::kWarpSize;");
  }
  if (plan.tileRows) {
    declareTiles();
    return;
  }
  if (usesShared()) {
    // Cached float4 groups need 16-byte alignment.
    writer.line(plan.vectorCache ? "extern __shared__ __align__(16) float "
                                   "sharedMemory[];"
                                 : "extern __shared__ float sharedMemory[];");
    writer.line("float *const shared = sharedMemory + threadIdx.x / kThreads "
                "* (" +
                getSharedFloats(cachedCondition) + ");");
    std::string offset = "0";
    for (RowReduction &reduction : plan.reductions) {
      if (reduction.isPerRow())
        continue;
      reduction.storage = writer.freshName("segment");
      writer.line("float *const " + reduction.storage + " = shared + " +
                  offset + ";");
      offset += " + " + reduction.segments.str();
    }
    if (cachedCondition != "false") {
      for (auto &[buffer, perRow] : plan.cached) {
        std::string name = buffer->name + "_row";
        sharedRows[buffer->value] = name;
        writer.line("float *const " + name + " = shared + " + offset + ";");
        offset += " + " + plan.getCachedFloats(perRow);
      }
    }
  }
}

void RowWriter::writeCacheFill() {
  if (plan.cached.empty() || cachedCondition == "false")
    return;
  writer.openScope();
  // Float4 groups where the buffers are aligned (a shared row starts at a
  // multiple of four floats), four loads of each thread in flight.
  auto fill = [&](bool vector) {
    for (auto &[buffer, perRow] : plan.cached) {
      writer.openScope();
      Expr row("r", rowDepth);
      std::string start =
          emitter.bindIndex(mulIndex(row, sizeExpr(perRow))).text +
          (plan.isSliced(perRow) ? " + begin" : "");
      const std::string &cache = sharedRows[buffer->value];
      writer.line(vector ? "dev::storeFloat4(" + cache + " + 4 * q, " +
                               "dev::loadFloat4(" + buffer->name + " + " +
                               start + " + 4 * q));"
                         : cache + "[j] = " + buffer->name + "[" + start +
                               " + j];");
      writer.closeScope(
          vector ? "#pragma unroll 4\nfor (int64_t q = tid; q < " +
                       plan.getCachedFloats(perRow) + " / 4; q += kThreads) {"
          : plan.isSliced(perRow)
              ? "for (int64_t j = tid; j < " + plan.getFilledFloats(perRow) +
                    "; j += kThreads) {"
              : plan.getRowLoop(perRow));
    }
  };
  if (plan.vectorCache && cachedCondition == "true") {
    writer.openScope();
    fill(/*vector=*/true);
    writer.closeScope("if (vec) {", "");
    writer.openScope();
    fill(/*vector=*/false);
    writer.closeScope("} else {");
  } else {
    fill(/*vector=*/false);
  }
  writer.line("teamSync<kThreads>();");
  writer.closeScope(cachedCondition == "true"
                        ? "{ // Copy the rows read more than once."
                        : "if (" + cachedCondition +
                              ") { // Copy the rows read more than once.");
}

void RowWriter::declareTiles() {
  const int64_t length = *plan.staticRowLength;
  if (plan.hasThreadTiles()) {
    // The thread's tile of each cached input and tiled output; the rows'
    // names are declared for each row (openTileLoop).
    const std::string floats = std::to_string(plan.rowsPerThread * length);
    writer.line("// The thread's tiles of " +
                std::to_string(plan.rowsPerThread) +
                " rows, in registers: each cached input's, then each");
    writer.line("// output's of whole rows, then each statistic's (one a "
                "row).");
    auto declare = [&](const Buffer &buffer) {
      std::string tile = writer.freshName(buffer.name + "_tile");
      tiles[&buffer] = tile;
      writer.line("float " + tile + "[" + floats + "];");
      return writer.freshName(buffer.name + "_row");
    };
    for (auto &[buffer, perRow] : plan.cached)
      sharedRows[buffer->value] = declare(*buffer);
    for (const Buffer *output : plan.tiledOutputs)
      tiledOutputRows[output] = declare(*output);
    // A statistic a row: its rows' values, stored as one group.
    for (const Buffer *output : plan.tiledStatistics) {
      std::string tile = writer.freshName(output->name + "_tile");
      tiles[output] = tile;
      writer.line("float " + tile + "[" + std::to_string(plan.rowsPerThread) +
                  "];");
      tiledOutputRows[output] = writer.freshName(output->name + "_row");
    }
    return;
  }
  const std::string row = "threadIdx.x / kThreads * " + std::to_string(length);
  writer.line("// The block's tiles of kRowsPerBlock rows, 16-byte aligned: "
              "each cached");
  writer.line("// input's, then each output's of whole rows.");
  writer.line("extern __shared__ __align__(16) float sharedMemory[];");
  int64_t offset = 0;
  auto declare = [&](const Buffer &buffer) {
    std::string tile = writer.freshName(buffer.name + "_tile");
    tiles[&buffer] = tile;
    writer.line("float *const " + tile + " = sharedMemory + " +
                std::to_string(offset) + ";");
    offset += plan.tileRowsPerBlock * length;
    std::string rowName = writer.freshName(buffer.name + "_row");
    writer.line("float *const " + rowName + " = " + tile + " + " + row + ";");
    return rowName;
  };
  for (auto &[buffer, perRow] : plan.cached)
    sharedRows[buffer->value] = declare(*buffer);
  for (const Buffer *output : plan.tiledOutputs)
    tiledOutputRows[output] = declare(*output);
}

void RowWriter::openThreadTileLoop() {
  const std::string length = std::to_string(*plan.staticRowLength);
  const std::string rows = plan.rows.str();
  const std::string count = std::to_string(plan.rowsPerThread);
  writer.openScope(); // over the thread's tiles
  writer.line("const int64_t tileRows = " + rows + " - first < " + count +
              " ? " + rows + " - first : " + count + ";");
  writer.line("const int64_t tileFloats = tileRows * " + length + ";");
  for (auto &[buffer, perRow] : plan.cached)
    writer.line("dev::loadThreadTile(" + tiles.lookup(buffer) + ", " +
                buffer->name + " + first * " + length + ", tileFloats, vec);");
  writer.openScope(); // over the tile's rows
  writer.line("const int64_t r = first + g;");
  auto declareRow = [&](const Buffer *buffer, const std::string &row) {
    writer.line("float *const " + row + " = " + tiles.lookup(buffer) +
                " + g * " + length + ";");
  };
  for (auto &[buffer, perRow] : plan.cached)
    declareRow(buffer, sharedRows[buffer->value]);
  for (const Buffer *output : plan.tiledOutputs)
    declareRow(output, tiledOutputRows[output]);
  for (const Buffer *output : plan.tiledStatistics)
    writer.line("float *const " + tiledOutputRows[output] + " = " +
                tiles.lookup(output) + " + g;");
  writer.openScope(); // the row, if the tile has it
  rowDepth = writer.getDepth();
}

void RowWriter::closeThreadTileLoop() {
  const std::string length = std::to_string(*plan.staticRowLength);
  const std::string rows = plan.rows.str();
  const std::string count = std::to_string(plan.rowsPerThread);
  writer.closeScope("if (r < " + rows + ") {");
  writer.closeScope("#pragma unroll\nfor (int g = 0; g < " + count +
                    "; ++g) {");
  for (const Buffer *output : plan.tiledOutputs)
    writer.line("dev::storeThreadTile(" + output->name + " + first * " +
                length + ", " + tiles.lookup(output) + ", tileFloats, vec);");
  for (const Buffer *output : plan.tiledStatistics)
    writer.line("dev::storeThreadTile(" + output->name + " + first, " +
                tiles.lookup(output) + ", tileRows, vec);");
  writer.closeScope("for (int64_t first = (static_cast<int64_t>(blockIdx.x) "
                    "* (kRowsPerBlock / " +
                    count + ") + threadIdx.x) * " + count + "; first < " +
                    rows +
                    "; first += static_cast<int64_t>(gridDim.x) * "
                    "kRowsPerBlock) {");
}

void RowWriter::openTileLoop() {
  if (plan.hasThreadTiles())
    return openThreadTileLoop();
  const std::string length = std::to_string(*plan.staticRowLength);
  const std::string rows = plan.rows.str();
  writer.openScope(); // over the block's tiles
  writer.line("const int64_t first = tile * kRowsPerBlock;");
  writer.line("const int64_t tileFloats = (" + rows +
              " - first < kRowsPerBlock ? " + rows +
              " - first : kRowsPerBlock) * " + length + ";");
  for (auto &[buffer, perRow] : plan.cached)
    writer.line("dev::blockCopy(" + tiles.lookup(buffer) + ", " + buffer->name +
                " + first * " + length + ", tileFloats, vec);");
  writer.line("__syncthreads();");
  writer.line("const int64_t r = first + threadIdx.x / kThreads;");
  writer.openScope(); // the team's row, if the tile has it
  rowDepth = writer.getDepth();
}

void RowWriter::closeTileLoop() {
  if (plan.hasThreadTiles())
    return closeThreadTileLoop();
  const std::string length = std::to_string(*plan.staticRowLength);
  const std::string rows = plan.rows.str();
  writer.closeScope("if (r < " + rows + ") {");
  writer.line("__syncthreads(); // Every row of the tile is done.");
  for (const Buffer *output : plan.tiledOutputs)
    writer.line("dev::blockCopy(" + output->name + " + first * " + length +
                ", " + tiles.lookup(output) + ", tileFloats, vec);");
  writer.closeScope("for (int64_t tile = blockIdx.x; tile * kRowsPerBlock < " +
                    rows + "; tile += gridDim.x) {");
}
