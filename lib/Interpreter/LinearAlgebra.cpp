//===- LinearAlgebra.cpp - matmul of the interpreter ----------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// `op(lhs) @ op(rhs)` with double accumulation. The loop order follows the
// layout of op(rhs): when its rows are contiguous (no transpose_b) rows of
// the result accumulate scaled rows of rhs (i-k-j); when its columns are
// (transpose_b, the `linear` layout) each result element is a dot product of
// two contiguous vectors (i-j-k). Either way four rows of the result share
// every pass over rhs.
//
//===----------------------------------------------------------------------===//

#include "OpEvaluators.h"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::interp;

namespace {
/// A strided view of a matrix operand: element (r, c) is
/// data[r * rowStride + c * colStride].
struct MatrixView {
  const double *data = nullptr;
  int64_t rows = 0, cols = 0;
  int64_t rowStride = 0, colStride = 0;

  double at(int64_t r, int64_t c) const {
    return data[r * rowStride + c * colStride];
  }
};

/// The matrix of one batch entry of a rank-2 or rank-3 operand, transposed
/// when `transposed`.
struct MatrixOperand {
  const HostTensor *tensor;
  bool transposed;

  bool isBatched() const { return tensor->shape.size() == 3; }
  int64_t getBatch() const { return isBatched() ? tensor->shape[0] : 1; }
  int64_t getStoredRows() const { return tensor->shape.end()[-2]; }
  int64_t getStoredCols() const { return tensor->shape.back(); }

  MatrixView getView(int64_t batch) const {
    int64_t rows = getStoredRows(), cols = getStoredCols();
    int64_t entry = getBatch() == 1 ? 0 : batch;
    MatrixView view{tensor->data.data() + entry * rows * cols, rows, cols, cols,
                    1};
    if (transposed) {
      std::swap(view.rows, view.cols);
      std::swap(view.rowStride, view.colStride);
    }
    return view;
  }
};
} // namespace

/// c[r][:] += sum_k a(i + r, k) * b[k][:] for the `Rows` rows from `i`, b
/// with contiguous rows.
template <int Rows>
static void accumulateScaledRows(const MatrixView &a, const MatrixView &b,
                                 double *c, int64_t i) {
  int64_t n = b.cols;
  for (int64_t k = 0; k < a.cols; ++k) {
    const double *bRow = b.data + k * b.rowStride;
    double scale[Rows];
    for (int r = 0; r < Rows; ++r)
      scale[r] = a.at(i + r, k);
    for (int r = 0; r < Rows; ++r) {
      double *cRow = c + (i + r) * n;
      for (int64_t j = 0; j < n; ++j)
        cRow[j] += scale[r] * bRow[j];
    }
  }
}

/// c[i + r][j] = dot(a row i + r, b column j) for the `Rows` rows from `i`,
/// a with contiguous rows and b with contiguous columns.
template <int Rows>
static void computeDotProducts(const double *a, const MatrixView &b, double *c,
                               int64_t i) {
  int64_t depth = b.rows, n = b.cols;
  for (int64_t j = 0; j < n; ++j) {
    const double *bColumn = b.data + j * b.colStride;
    double sums[Rows] = {};
    for (int64_t k = 0; k < depth; ++k)
      for (int r = 0; r < Rows; ++r)
        sums[r] += a[(i + r) * depth + k] * bColumn[k];
    for (int r = 0; r < Rows; ++r)
      c[(i + r) * n + j] = sums[r];
  }
}

/// c = a @ b for one batch entry; c is zero-filled and contiguous.
static void multiply(const MatrixView &a, const MatrixView &b, double *c) {
  constexpr int kBlock = 4;
  int64_t m = a.rows;
  if (b.colStride == 1) {
    int64_t i = 0;
    for (; i + kBlock <= m; i += kBlock)
      accumulateScaledRows<kBlock>(a, b, c, i);
    for (; i < m; ++i)
      accumulateScaledRows<1>(a, b, c, i);
    return;
  }
  // b's columns are contiguous: take dot products with contiguous rows of a.
  std::vector<double> packed;
  const double *aRows = a.data;
  if (a.colStride != 1) {
    packed.resize(a.rows * a.cols);
    for (int64_t r = 0; r < a.rows; ++r)
      for (int64_t k = 0; k < a.cols; ++k)
        packed[r * a.cols + k] = a.at(r, k);
    aRows = packed.data();
  }
  int64_t i = 0;
  for (; i + kBlock <= m; i += kBlock)
    computeDotProducts<kBlock>(aRows, b, c, i);
  for (; i < m; ++i)
    computeDotProducts<1>(aRows, b, c, i);
}

FailureOr<HostTensor> interp::evaluateMatmul(MatmulOp op, const HostTensor &lhs,
                                             const HostTensor &rhs) {
  MatrixOperand a{&lhs, op.getTransposeA()};
  MatrixOperand b{&rhs, op.getTransposeB()};
  MatrixView aView = a.getView(0), bView = b.getView(0);
  if (aView.cols != bView.rows)
    return op.emitOpError("contraction dims differ at run time: ")
           << aView.cols << " vs " << bView.rows << " (operands "
           << formatShape(lhs.shape) << " and " << formatShape(rhs.shape)
           << ")";
  // The batch dims broadcast by the rule of elementwise ops
  // (broadcastRunTimeShapes); a rank-2 operand has none.
  auto typeBatch = [](Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    return type.getRank() == 3 ? SmallVector<int64_t>{type.getDimSize(0)}
                               : SmallVector<int64_t>();
  };
  auto runBatch = [](const MatrixOperand &operand) {
    return operand.isBatched() ? SmallVector<int64_t>{operand.getBatch()}
                               : SmallVector<int64_t>();
  };
  std::optional<SmallVector<int64_t>> batches = broadcastRunTimeShapes(
      typeBatch(op.getLhs()), runBatch(a), typeBatch(op.getRhs()), runBatch(b));
  if (!batches)
    return op.emitOpError("batch dims differ at run time: ")
           << a.getBatch() << " vs " << b.getBatch()
           << " (a symbolic dim broadcasts only against an equal size, even "
              "when it is 1)";
  int64_t batch = batches->empty() ? 1 : batches->front();

  SmallVector<int64_t> shape;
  if (a.isBatched() || b.isBatched())
    shape.push_back(batch);
  shape.append({aView.rows, bView.cols});
  FailureOr<HostTensor> result = allocateResult(op, shape);
  if (failed(result))
    return failure();
  int64_t matrixSize = aView.rows * bView.cols;
  for (int64_t entry = 0; entry < batch; ++entry)
    multiply(a.getView(entry), b.getView(entry),
             result->data.data() + entry * matrixSize);
  return result;
}
