//===- FusionPlanner.h - The state of the fusion policy ---------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The planner behind decideFusion: its groups and their structure (Space),
// the dependence graph between groups and the HBM traffic estimates
// (FusionGraph.cpp), and the phases that grow and merge groups
// (FusionPolicy.cpp), asking FusionLegality.h what may join.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONPLANNER_H
#define SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONPLANNER_H

#include "FusionLegality.h"
#include "FusionPolicy.h"

#include "sinter/Dialect/Sinter/Transforms/CostModel.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::sinter::fusion {

/// The structure the values of a group share; it decides what may join.
struct Space {
  enum class Kind {
    /// A pointwise kernel: edges inside it do not broadcast.
    Elementwise,
    /// Thread blocks own whole rows, indexed by the leading `shape` dims.
    Rows,
    /// Statistics over the `reduced` dims of `shape`.
    Columns,
  };
  Kind kind = Kind::Elementwise;
  SmallVector<int64_t> shape;
  SmallVector<int64_t> reduced;
};

/// A group while the planner builds it. Every top-level op starts alone in
/// an unplaced group (no kind).
struct Group {
  std::optional<KernelKind> kind;
  Space space;
  /// The ops that belong to this group, each to exactly one group.
  llvm::SetVector<Operation *> members;
  /// Cheap ops of other groups that this group recomputes.
  llvm::SetVector<Operation *> recomputed;
  /// The matmul of a gemm or matvec group.
  Operation *matmul = nullptr;
  /// The op the group was created for (a matmul, a reduction, or the first
  /// op of a pointwise group).
  Operation *root = nullptr;
  /// An existing sinter.kernel, kept as it is.
  bool existing = false;
};

/// A set of ops that may join a group together.
struct Candidate {
  SmallVector<Operation *> ops;
};

class FusionPlanner {
public:
  FusionPlanner(Block &block, const CostModel &costs,
                const FusionOptions &options)
      : block(block), costs(costs), options(options) {}

  /// Creates one unplaced group per op; fails on ops no kernel computes.
  LogicalResult initialize();
  void formGemmGroups();
  void formReductionGroups();
  void formPointwiseGroups();
  void recomputeCheapProducers();
  FailureOr<SmallVector<FusionGroup>> finish();

private:
  // Structure.
  Operation *getNode(Operation *user) const;
  unsigned getGroup(Operation *op) const { return groupOf.lookup(op); }
  bool isPlaced(Operation *op) const {
    return groups[getGroup(op)].kind.has_value() ||
           groups[getGroup(op)].existing;
  }
  bool computes(unsigned group, Operation *op) const {
    return groups[group].members.contains(op) ||
           groups[group].recomputed.contains(op);
  }
  bool mustMaterialize(Operation *op) const;
  void getReaders(Value value, SmallVectorImpl<unsigned> &readers,
                  bool &returned) const;
  void getSuccessors(unsigned group, SmallVectorImpl<unsigned> &succ) const;
  bool wouldCreateCycle(ArrayRef<unsigned> merged) const;

  // Cost.
  using IsComputedFn = llvm::function_ref<bool(Operation *)>;
  int64_t estimateInputBytes(ArrayRef<Operation *> ops,
                             IsComputedFn isComputed) const;
  int64_t estimateTraffic(const llvm::SetVector<Operation *> &ops) const;
  int64_t estimateGroupTraffic(unsigned group) const;
  int64_t bytesSaved(unsigned group, ArrayRef<Operation *> ops) const;

  // Growth of root groups.
  unsigned createGroup(Operation *root, KernelKind kind, Space space);
  void moveTo(unsigned group, Operation *op);
  void collectCandidates(unsigned group, SmallVectorImpl<Candidate> &out);
  Candidate getProducerClosure(Operation *reduction) const;
  bool feedsMatmul(unsigned group, Operation *op) const;
  Legality canJoin(unsigned group, const Candidate &candidate) const;
  Legality fits(unsigned group, Operation *op, IsInternalFn isInternal) const;
  void explainRejection(unsigned group, const Legality &legality);
  void grow(unsigned group);

  // Pointwise merging and recomputation.
  Operation *getSoleElementwiseReader(Operation *op) const;
  bool canMergePointwise(unsigned producer, unsigned consumer) const;
  bool canRecompute(unsigned group, Operation *op) const;
  bool tryRecompute(unsigned group, Operation *op);

  Block &block;
  const CostModel &costs;
  const FusionOptions &options;
  /// The (op, group) pairs already explained by a remark.
  DenseSet<std::pair<Operation *, unsigned>> explained;
  /// Top-level ops in program order (constants and the terminator excluded).
  SmallVector<Operation *> nodes;
  DenseMap<Operation *, unsigned> position;
  SmallVector<Group> groups;
  DenseMap<Operation *, unsigned> groupOf;
  /// For each op, the groups that recompute it.
  DenseMap<Operation *, SmallVector<unsigned>> recomputedBy;
};

} // namespace mlir::sinter::fusion

#endif // SINTER_LIB_DIALECT_SINTER_TRANSFORMS_FUSIONPLANNER_H
