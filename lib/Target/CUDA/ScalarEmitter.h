//===- ScalarEmitter.h - One element of a kernel value as C++ ---*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Inside a generated kernel every value of the kernel's region is computed
// element by element: `emit(v, coords)` returns a C++ expression holding
// element `coords` of `v`, declaring the variables it needs through the
// CodeWriter. Elementwise ops become scalar expressions with PyTorch's
// definitions (sinter/rt_device.cuh), broadcasting maps coordinates (0 on
// broadcast dims), transpose permutes them and reshape goes through the
// linear index. Values the kernel does not compute itself (its buffers,
// reduction and matmul results) are leaves: the kernel generator reads them.
// This is the TranslateToCpp pattern: one print function per op, chosen by a
// TypeSwitch.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_SCALAREMITTER_H
#define SINTER_LIB_TARGET_CUDA_SCALAREMITTER_H

#include "CodeWriter.h"
#include "Shapes.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::sinter::cuda {

/// The coordinates of one element of a tensor value, one index expression
/// per dim.
struct Coords {
  SmallVector<Expr, 4> indices;
  /// When the coordinates come from delinearizing `linear` over
  /// `linearShape`, both; linearizing over that shape again returns
  /// `linear` without arithmetic.
  std::optional<Expr> linear;
  Shape linearShape;
  /// In a float4 loop whose lanes are four consecutive elements along the
  /// last dim: the first lane's coordinates (their last index a multiple of
  /// 4) and the lane offset that the last index adds to them. Broadcasting
  /// keeps both unless it broadcasts the last dim, a reshape when both last
  /// dims are multiples of 4 (the lanes stay in one run of its input), so
  /// that a buffer read through them is read as one float4.
  std::shared_ptr<const Coords> laneBase;
  std::optional<Expr> laneOffset;

  /// The depth of the deepest index.
  unsigned getDepth() const;
};

/// Coordinates `base` with `offset` added to the last index, which keep
/// `base` as their first lane's (see Coords::laneBase).
Coords addLaneOffset(const Coords &base, const Expr &offset, Expr lastIndex);

/// The dense constants of a generated file, declared once each as
/// `__device__` arrays.
class ConstantPool {
public:
  explicit ConstantPool(std::string prefix) : prefix(std::move(prefix)) {}

  /// Returns the name of the array holding `value` (f32 elements).
  std::string getArray(DenseElementsAttr value);

  /// The declarations, in order of first use.
  std::string getDeclarations() const;

private:
  std::string prefix;
  llvm::DenseMap<Attribute, std::string> names;
  std::vector<std::pair<std::string, DenseElementsAttr>> arrays;
};

/// Index arithmetic over shapes.
/// The linear (row-major) index of `coords` in `shape`.
Expr linearize(const Coords &coords, ArrayRef<DimExpr> shape);
/// The coordinates of linear index `linear` in `shape`.
Coords delinearize(const Expr &linear, ArrayRef<DimExpr> shape);
/// The coordinates in `shape` of the element whose kept dims (those not in
/// `reducedDims`) have the linear index `keptLinear` and whose reduced dims
/// have `reducedLinear`. Where adjacent dims of one kind form a run, the
/// coordinates also carry the linear index in `shape` as one division and
/// remainder a run (H and W of [N, C, H, W] reduced over N, H, W: one
/// division by H * W rather than three by H and W, which are 64-bit and,
/// for sizes not powers of two, dozens of instructions each).
Coords interleaveCoords(const Expr &keptLinear, const Expr &reducedLinear,
                        ArrayRef<DimExpr> shape, ArrayRef<int64_t> reducedDims);
/// The coordinates, in a value of shape `operandShape`, of the element that
/// broadcasts to `coords` of a value of shape `resultShape`.
Coords broadcastCoords(const Coords &coords, ArrayRef<DimExpr> resultShape,
                       ArrayRef<DimExpr> operandShape);
/// The C expression of a size.
Expr sizeExpr(const DimExpr &size);

/// Emits the elements of the values of one kernel region.
class ScalarEmitter {
public:
  /// Reads element `coords` of a leaf value.
  using LeafReader = std::function<FailureOr<Expr>(Value, const Coords &)>;

  ScalarEmitter(CodeWriter &writer, const ShapeAnalysis &shapes,
                ConstantPool &constants, LeafReader readLeaf)
      : writer(writer), shapes(shapes), constants(constants),
        readLeaf(std::move(readLeaf)) {}

  /// Makes `value` a leaf: `emit` asks the leaf reader for it.
  void addLeaf(Value value) { leaves.insert(value); }
  /// Whether a normalization's factor x - mean is kept exact, as a pair
  /// (the default), or rounded to one float: rows held in registers spill
  /// the pairs' registers.
  void setExactNormalization(bool exact) { exactFactor = exact; }
  /// Tells the emitter that region argument `argument` receives `outer`;
  /// arguments that receive constants are emitted as those constants.
  void mapArgument(Value argument, Value outer) {
    outerValues[argument] = outer;
  }

  /// Returns an expression (a variable or a literal) holding element
  /// `coords` of `value`, declaring what it needs. Emits an error at the op
  /// and fails on an op that cannot be computed elementwise.
  FailureOr<Expr> emit(Value value, const Coords &coords);

  /// Returns the constant defining `value`, looking through region
  /// arguments mapped to outer values, or null.
  Operation *getConstantDef(Value value) const;

  /// The shape of `value`.
  const Shape &getShape(Value value) const { return shapes.getShape(value); }

  /// Binds an index expression to a variable.
  Expr bindIndex(const Expr &index) {
    return writer.bind(index, "int64_t", "i");
  }

  CodeWriter &getWriter() { return writer; }

private:
  /// An elementwise value being emitted: the expressions of its operands
  /// so far, and the deepest scope they read.
  struct PendingValue {
    Value value;
    Coords coords;
    std::string key;
    SmallVector<std::string> operands;
    unsigned depth = 0;
    /// For a normalization, the values it reads with their coordinates:
    /// those of its sub and its rsqrt's add (see getNormalization); empty
    /// for other ops, which read their operands. The depths of the operands'
    /// expressions.
    SmallVector<std::pair<Value, Coords>, 4> inputs;
    SmallVector<unsigned> depths;
  };

  /// The form of `mul(x - mean, rsqrt(var + eps))` (the sub or the add may
  /// be missing): whether the other factor is a sub that is kept exact,
  /// whether the rsqrt reads an add, both computed in the kernel, and
  /// whether the rsqrt is the first factor.
  struct Normalization {
    bool sub = false;
    bool add = false;
    bool rsqrtFirst = false;
  };
  /// The normalization `op` computes, if it is one.
  std::optional<Normalization> getNormalization(Operation *op) const;
  /// The values normalization `op` reads at `coords` (PendingValue::inputs).
  SmallVector<std::pair<Value, Coords>, 4>
  getNormalizationInputs(Operation *op, const Coords &coords);
  /// Emits normalization `form` from the expressions of its inputs: x -
  /// mean exact and rsqrt(var + eps) to 44 bits as pairs, their product
  /// rounded once.
  std::string emitNormalization(const Normalization &form,
                                const PendingValue &pending);

  /// Follows shape ops from element `coords` of `value`; returns the
  /// expression when it needs no operands (a leaf, a constant, a value
  /// emitted before), or nothing after filling `pending` with the
  /// elementwise op whose operands come first.
  FailureOr<std::optional<Expr>> resolve(Value value, Coords coords,
                                         PendingValue &pending);
  FailureOr<Expr> emitConstant(Operation *constant, Value value,
                               const Coords &coords);
  /// The coordinates at which elementwise `op` (or concat) at `coords`
  /// reads operand `operand`: broadcast, or for a concat the input's own
  /// index, clamped into its range.
  Coords getOperandCoords(Operation *op, unsigned operand,
                          const Coords &coords);
  /// The coordinates in a reshape's input of element `coords` of its
  /// result (keeping the lanes of a float4 loop where they stay in a run).
  Coords reshapeCoords(const Coords &coords, ArrayRef<DimExpr> result,
                       ArrayRef<DimExpr> input);
  std::optional<double> getSplatValue(Value value) const;

  CodeWriter &writer;
  const ShapeAnalysis &shapes;
  ConstantPool &constants;
  LeafReader readLeaf;
  bool exactFactor = true;
  llvm::DenseSet<Value> leaves;
  llvm::DenseMap<Value, Value> outerValues;
  /// Value -> coordinates key -> expression, for one call of `emit`.
  llvm::DenseMap<Value, llvm::StringMap<Expr>> memo;
};

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_SCALAREMITTER_H
