//===- FusionPolicy.cpp - Which ops share a kernel ------------------------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// Decides the fusion groups of one function (DESIGN.md, "Kernel formation"),
// in four phases:
//
//  1. Every matmul roots a gemm (or matvec) group. Its epilogue grows over the
//     ops that stay within the rows of the GEMM output: elementwise consumers,
//     row and column broadcasts (bias [N], per-row values), reductions along
//     N and what broadcasts their results back over the same rows (x -
//     mean(x), group_norm whose groups lie inside rows after a reshape).
//  2. Every remaining reduction roots a row_reduction group (reduced dims are
//     a trailing run) or a column_reduction group (any other geometry:
//     leading, middle, strided, all dims). A row group grows like an epilogue,
//     over its elementwise producers and the consumers that broadcast its
//     results back over the same rows (softmax, layer_norm, rms_norm). A column
//     group computes statistics: other reductions over the same columns with
//     the elementwise ops that compute their inputs (variance after mean), and
//     elementwise consumers of the reduced values; what broadcasts statistics
//     back to full size is left to a pointwise kernel. A reduction over
//     neither run (batch_norm's [0, 2], a full reduction) shares its kernel
//     only with elementwise producers of its input's shape.
//  3. The remaining elementwise and shape ops form pointwise groups, merged
//     along edges that do not broadcast.
//  4. A kernel recomputes a cheap producer from another kernel instead of
//     reading its result when that saves HBM traffic (x - mean(x) in the
//     normalization after column statistics), and takes a reshape of a value
//     it reads as a view rather than reading a copy.
//
// Within a phase, a group grows by the candidate that saves the most HBM
// bytes (estimateTraffic of the separate kernels minus that of the merged
// one), among those that are legal (the small predicates below) and create
// no cycle between kernels. A matmul or a reduction is never computed twice.
//
//===----------------------------------------------------------------------===//

#include "FusionPolicy.h"

#include "sinter/Dialect/Sinter/Transforms/CostModel.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SetVector.h"

#include <set>

using namespace mlir;
using namespace mlir::sinter;

//===----------------------------------------------------------------------===//
// Legality: small predicates on ops and shapes
//===----------------------------------------------------------------------===//

/// Whether a value computed in the candidate kernel (rather than read from
/// HBM).
using IsInternalFn = llvm::function_ref<bool(Value)>;

static ArrayRef<int64_t> getShape(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

static bool isStatic(ArrayRef<int64_t> shape) {
  return llvm::none_of(shape, ShapedType::isDynamic);
}

/// Whether `op` is cheap enough to share a kernel with anything and to be
/// recomputed by another kernel: elementwise and shape ops. Matmuls and
/// reductions are heavy: computed once, by one kernel.
static bool isCheapOp(Operation *op) {
  return isElementwiseOp(op) || isa<ReshapeOp, TransposeOp>(op);
}

/// Whether `shape` begins with the row dims `rows` (`?` matches `?`).
static bool startsWithRows(ArrayRef<int64_t> shape, ArrayRef<int64_t> rows) {
  return shape.size() >= rows.size() && shape.take_front(rows.size()) == rows;
}

/// Whether elementwise `op` computes each row of its result from the same
/// row of every operand computed in the kernel: the result keeps the rows,
/// and internal operands have the result's rank (so that broadcasting aligns
/// row dims with row dims) and keep the rows too. Operands read from HBM may
/// broadcast in any way (bias [N], per-row [M, 1], full [M, N]).
static bool broadcastsOverSameRows(Operation *op, ArrayRef<int64_t> rows,
                                   IsInternalFn isInternal) {
  ArrayRef<int64_t> result = getShape(op->getResult(0));
  if (!startsWithRows(result, rows))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return !isInternal(operand) || (getShape(operand).size() == result.size() &&
                                    startsWithRows(getShape(operand), rows));
  });
}

/// Whether reduction `op` reduces inside rows: only dims after the rows.
static bool reducesWithinRows(Operation *op, ArrayRef<int64_t> rows) {
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  return reduction && startsWithRows(getShape(op->getOperand(0)), rows) &&
         llvm::all_of(reduction.getDims(), [&](int64_t dim) {
           return dim >= static_cast<int64_t>(rows.size());
         });
}

/// Whether `op` keeps every element in its row: a reshape that keeps the row
/// dims and regroups only (static) dims after them, e.g. [B, C] -> [B, G,
/// C/G], or a transpose that leaves the row dims in place.
static bool staysWithinRows(Operation *op, ArrayRef<int64_t> rows) {
  if (!isa<ReshapeOp, TransposeOp>(op))
    return false;
  ArrayRef<int64_t> input = getShape(op->getOperand(0));
  ArrayRef<int64_t> result = getShape(op->getResult(0));
  if (!startsWithRows(input, rows) || !startsWithRows(result, rows))
    return false;
  if (isa<ReshapeOp>(op))
    return isStatic(input.drop_front(rows.size())) &&
           isStatic(result.drop_front(rows.size()));
  ArrayRef<int64_t> perm = cast<TransposeOp>(op).getPerm();
  return llvm::equal(perm.take_front(rows.size()),
                     llvm::seq<int64_t>(0, rows.size()));
}

/// Whether `op` can be computed by a kernel whose thread blocks own whole
/// rows (`rows` are the leading dims that index them): GEMM epilogues and row
/// reductions.
static bool fitsRows(Operation *op, ArrayRef<int64_t> rows,
                     IsInternalFn isInternal) {
  if (isElementwiseOp(op))
    return broadcastsOverSameRows(op, rows, isInternal);
  if (isa<ReductionOpInterface>(op))
    return reducesWithinRows(op, rows);
  return staysWithinRows(op, rows);
}

/// Whether `shape` is a statistic over the columns of `full`, whose leading
/// `numReduced` dims are reduced: the trailing dims of `full`, with the
/// leading ones kept as 1 or dropped.
static bool isColumnStatistic(ArrayRef<int64_t> shape, ArrayRef<int64_t> full,
                              unsigned numReduced) {
  ArrayRef<int64_t> columns = full.drop_front(numReduced);
  if (shape.size() < columns.size() || shape.size() > full.size() ||
      shape.take_back(columns.size()) != columns)
    return false;
  return llvm::all_of(shape.drop_back(columns.size()),
                      [](int64_t size) { return size == 1; });
}

/// Whether `op` can be computed by a column-statistics kernel over `full`
/// (leading `numReduced` dims reduced): another reduction over the same
/// columns, or an elementwise op on statistics; with `allowFullSize`, also an
/// elementwise op that computes a full-size reduction input from full-size
/// values and statistics (the centered values of a variance).
static bool fitsColumns(Operation *op, ArrayRef<int64_t> full,
                        unsigned numReduced, IsInternalFn isInternal,
                        bool allowFullSize) {
  if (auto reduction = dyn_cast<ReductionOpInterface>(op))
    return getShape(op->getOperand(0)) == full &&
           llvm::equal(reduction.getDims(), llvm::seq<int64_t>(0, numReduced));
  if (!isElementwiseOp(op))
    return false;
  auto isStatistic = [&](Value value) {
    return isColumnStatistic(getShape(value), full, numReduced);
  };
  auto isFullSize = [&](Value value) { return getShape(value) == full; };
  Value result = op->getResult(0);
  bool resultIsStatistic = isStatistic(result);
  if (!resultIsStatistic && !(allowFullSize && isFullSize(result)))
    return false;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return !isInternal(operand) || isStatistic(operand) ||
           (!resultIsStatistic && isFullSize(operand));
  });
}

/// Whether elementwise `op` maps its internal operands element for element
/// onto its result of shape `full`: all a reduction without row or column
/// structure can share its kernel with.
static bool fitsSameShape(Operation *op, ArrayRef<int64_t> full,
                          IsInternalFn isInternal) {
  return isElementwiseOp(op) && getShape(op->getResult(0)) == full &&
         llvm::all_of(op->getOperands(), [&](Value operand) {
           return !isInternal(operand) || getShape(operand) == full;
         });
}

/// Whether `user` reads `value` element for element, so that one thread of a
/// pointwise kernel computes both: a shape op, or an elementwise op that does
/// not broadcast `value`.
static bool readsElementwise(Operation *user, Value value) {
  if (isa<ReshapeOp, TransposeOp>(user))
    return true;
  return isElementwiseOp(user) &&
         getShape(value) == getShape(user->getResult(0));
}

/// The row dims of reduction `op` if it reduces a trailing run of dims and
/// keeps at least one leading dim.
static std::optional<SmallVector<int64_t>> getReductionRows(Operation *op) {
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  ArrayRef<int64_t> input = getShape(op->getOperand(0));
  SmallVector<int64_t> dims(reduction.getDims());
  llvm::sort(dims);
  int64_t first =
      static_cast<int64_t>(input.size()) - static_cast<int64_t>(dims.size());
  if (dims.empty() || first <= 0 ||
      !llvm::equal(dims, llvm::seq<int64_t>(first, input.size())))
    return std::nullopt;
  return SmallVector<int64_t>(input.take_front(first));
}

/// The number of leading dims reduction `op` reduces, if it reduces exactly
/// a leading run and keeps the last dim (column statistics).
static std::optional<unsigned> getColumnReducedCount(Operation *op) {
  auto reduction = dyn_cast<ReductionOpInterface>(op);
  int64_t rank = getShape(op->getOperand(0)).size();
  SmallVector<int64_t> dims(reduction.getDims());
  llvm::sort(dims);
  if (dims.empty() || static_cast<int64_t>(dims.size()) >= rank ||
      !llvm::equal(dims, llvm::seq<int64_t>(0, dims.size())))
    return std::nullopt;
  return dims.size();
}

/// The kind of the kernel reduction `op` roots: a row kernel when it reduces
/// trailing dims (threads cooperate along contiguous rows), a column kernel
/// (threads split the reduced elements over many blocks) for every other
/// geometry, a whole-tensor reduction included.
static KernelKind getReductionKind(Operation *op) {
  return cast<ReductionOpInterface>(op).getGeometry() ==
                 ReductionGeometry::trailing
             ? KernelKind::row_reduction
             : KernelKind::column_reduction;
}

/// Whether `op` may feed `matmul` inside a gemm kernel: only a reshape that
/// nothing else reads, a view of the operand that the library GEMM reads from
/// memory.
static bool isMatmulOperandView(Operation *op, Operation *matmul) {
  return isa<ReshapeOp>(op) &&
         llvm::all_of(op->getUsers(),
                      [&](Operation *user) { return user == matmul; });
}

/// The kind of the kernel a matmul roots: matvec when M or N is 1.
static KernelKind getMatmulKind(MatmulOp matmul) {
  ArrayRef<int64_t> shape = getShape(matmul.getResult());
  bool vector = shape[shape.size() - 1] == 1 || shape[shape.size() - 2] == 1;
  return vector ? KernelKind::matvec : KernelKind::gemm;
}

//===----------------------------------------------------------------------===//
// The planner
//===----------------------------------------------------------------------===//

namespace {
/// The structure the values of a group share; it decides what may join.
struct Space {
  enum class Kind {
    /// A pointwise kernel: edges inside it do not broadcast.
    Elementwise,
    /// Thread blocks own whole rows, indexed by the leading `shape` dims.
    Rows,
    /// Statistics over the leading `numReduced` dims of `shape`.
    Columns,
    /// A reduction without row or column structure over `shape`.
    SameShape,
  };
  Kind kind = Kind::Elementwise;
  SmallVector<int64_t> shape;
  unsigned numReduced = 0;
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
  /// An existing sinter.kernel, kept as it is.
  bool existing = false;
};

/// A set of ops that may join a group together.
struct Candidate {
  SmallVector<Operation *> ops;
  /// Whether full-size values may join a column-statistics group (the inputs
  /// of a reduction), not only statistics.
  bool allowFullSize = false;
};

class FusionPlanner {
public:
  FusionPlanner(Block &block, const CostModel &costs)
      : block(block), costs(costs) {}

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
  bool canJoin(unsigned group, const Candidate &candidate) const;
  bool fits(unsigned group, Operation *op, IsInternalFn isInternal,
            bool allowFullSize) const;
  void grow(unsigned group);

  // Pointwise merging and recomputation.
  Operation *getSoleElementwiseReader(Operation *op) const;
  bool canMergePointwise(unsigned producer, unsigned consumer) const;
  bool canRecompute(unsigned group, Operation *op) const;
  bool tryRecompute(unsigned group, Operation *op);

  Block &block;
  const CostModel &costs;
  /// Top-level ops in program order (constants and the terminator excluded).
  SmallVector<Operation *> nodes;
  DenseMap<Operation *, unsigned> position;
  SmallVector<Group> groups;
  DenseMap<Operation *, unsigned> groupOf;
  /// For each op, the groups that recompute it.
  DenseMap<Operation *, SmallVector<unsigned>> recomputedBy;
};
} // namespace

LogicalResult FusionPlanner::initialize() {
  for (Operation &op : block.without_terminator()) {
    // Constants are embedded in the kernels that read them; fills are
    // written by the host code, and kernels read them like inputs.
    if (isa<ConstantOp, FillOp>(op))
      continue;
    if (isCompositeOp(&op))
      return op.emitError() << "'" << op.getName()
                            << "' must be decomposed before kernel formation "
                               "(run sinter-decompose first)";
    bool existing = isa<KernelOp>(op);
    if (!existing && !isCheapOp(&op) && !isa<MatmulOp>(op) &&
        !isa<ReductionOpInterface>(&op))
      return op.emitError() << "'" << op.getName()
                            << "' cannot be computed by a sinter.kernel";
    position[&op] = nodes.size();
    nodes.push_back(&op);
    groupOf[&op] = groups.size();
    Group &group = groups.emplace_back();
    group.members.insert(&op);
    group.existing = existing;
  }
  return success();
}

/// The top-level op that `user` is or is nested in, or null for the
/// terminator.
Operation *FusionPlanner::getNode(Operation *user) const {
  Operation *op = block.findAncestorOpInBlock(*user);
  return op && position.count(op) ? op : nullptr;
}

/// Whether the results of `op` must be in HBM whatever kernels compute:
/// returned by the function, or read by a matmul (a library GEMM reads its
/// operands from memory).
bool FusionPlanner::mustMaterialize(Operation *op) const {
  return llvm::any_of(op->getUsers(), [&](Operation *user) {
    Operation *node = getNode(user);
    return !node || isa<MatmulOp>(node);
  });
}

/// The groups that read `value` from HBM (those that use it without computing
/// it), and whether the function returns it.
void FusionPlanner::getReaders(Value value, SmallVectorImpl<unsigned> &readers,
                               bool &returned) const {
  Operation *producer = value.getDefiningOp();
  auto addReader = [&](unsigned group) {
    if (!computes(group, producer) && !llvm::is_contained(readers, group))
      readers.push_back(group);
  };
  for (Operation *user : value.getUsers()) {
    Operation *node = getNode(user);
    if (!node) {
      returned = true;
      continue;
    }
    addReader(getGroup(node));
    for (unsigned group : recomputedBy.lookup(node))
      addReader(group);
  }
}

/// The groups that read a value `group` computes.
void FusionPlanner::getSuccessors(unsigned group,
                                  SmallVectorImpl<unsigned> &succ) const {
  for (Operation *op : groups[group].members)
    for (Value result : op->getResults()) {
      bool returned = false;
      SmallVector<unsigned> readers;
      getReaders(result, readers, returned);
      for (unsigned reader : readers)
        if (reader != group && !llvm::is_contained(succ, reader))
          succ.push_back(reader);
    }
}

/// Whether making one kernel of the groups `merged` would create a cycle
/// between kernels: a path that leaves them through another group and comes
/// back.
bool FusionPlanner::wouldCreateCycle(ArrayRef<unsigned> merged) const {
  SmallVector<unsigned> worklist;
  for (unsigned group : merged) {
    SmallVector<unsigned> succ;
    getSuccessors(group, succ);
    for (unsigned next : succ)
      if (!llvm::is_contained(merged, next))
        worklist.push_back(next);
  }
  DenseSet<unsigned> visited;
  while (!worklist.empty()) {
    unsigned group = worklist.pop_back_val();
    if (llvm::is_contained(merged, group))
      return true;
    if (!visited.insert(group).second)
      continue;
    getSuccessors(group, worklist);
  }
  return false;
}

/// The bytes a kernel computing `ops` reads: each value from outside once
/// (constants are embedded and move nothing), except that the library GEMM of
/// a matmul reads its operands itself.
int64_t FusionPlanner::estimateInputBytes(ArrayRef<Operation *> ops,
                                          IsComputedFn isComputed) const {
  DenseSet<Value> epilogueInputs, gemmInputs;
  int64_t bytes = 0;
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (producer && (isa<ConstantOp>(producer) || isComputed(producer)))
        continue;
      auto &inputs = isa<MatmulOp>(op) ? gemmInputs : epilogueInputs;
      if (inputs.insert(operand).second)
        bytes += costs.getBytes(operand);
    }
  return bytes;
}

/// The HBM bytes a kernel computing exactly `ops` moves: what it reads, and
/// each value it computes that is used outside (or returned) once.
int64_t
FusionPlanner::estimateTraffic(const llvm::SetVector<Operation *> &ops) const {
  int64_t bytes = estimateInputBytes(
      ops.getArrayRef(), [&](Operation *op) { return ops.contains(op); });
  for (Operation *op : ops)
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            Operation *node = getNode(user);
            return !node || !ops.contains(node);
          }))
        bytes += costs.getBytes(result);
  return bytes;
}

/// The HBM bytes group `group` moves, recomputed ops included.
int64_t FusionPlanner::estimateGroupTraffic(unsigned group) const {
  const Group &g = groups[group];
  SmallVector<Operation *> ops(g.members.begin(), g.members.end());
  ops.append(g.recomputed.begin(), g.recomputed.end());
  int64_t bytes = estimateInputBytes(
      ops, [&](Operation *op) { return computes(group, op); });
  for (Operation *op : g.members)
    for (Value result : op->getResults()) {
      bool returned = false;
      SmallVector<unsigned> readers;
      getReaders(result, readers, returned);
      if (returned || !readers.empty())
        bytes += costs.getBytes(result);
    }
  return bytes;
}

/// The HBM bytes saved by computing `ops` in `group` rather than in a kernel
/// of their own.
int64_t FusionPlanner::bytesSaved(unsigned group,
                                  ArrayRef<Operation *> ops) const {
  const llvm::SetVector<Operation *> &members = groups[group].members;
  llvm::SetVector<Operation *> alone(ops.begin(), ops.end());
  llvm::SetVector<Operation *> merged = members;
  merged.insert(ops.begin(), ops.end());
  return estimateTraffic(members) + estimateTraffic(alone) -
         estimateTraffic(merged);
}

unsigned FusionPlanner::createGroup(Operation *root, KernelKind kind,
                                    Space space) {
  unsigned group = getGroup(root);
  groups[group].kind = kind;
  groups[group].space = std::move(space);
  if (isa<MatmulOp>(root))
    groups[group].matmul = root;
  return group;
}

void FusionPlanner::moveTo(unsigned group, Operation *op) {
  groups[getGroup(op)].members.remove(op);
  groups[group].members.insert(op);
  groupOf[op] = group;
}

/// Whether `op` fits the structure of `group` (see Space).
bool FusionPlanner::fits(unsigned group, Operation *op, IsInternalFn isInternal,
                         bool allowFullSize) const {
  const Space &space = groups[group].space;
  switch (space.kind) {
  case Space::Kind::Rows:
    return fitsRows(op, space.shape, isInternal);
  case Space::Kind::Columns:
    return fitsColumns(op, space.shape, space.numReduced, isInternal,
                       allowFullSize);
  case Space::Kind::SameShape:
    return fitsSameShape(op, space.shape, isInternal);
  case Space::Kind::Elementwise:
    return false;
  }
  llvm_unreachable("unknown space");
}

/// Whether `op` computes an operand of the matmul of `group`, directly or
/// through a member (a view of the operand): the library GEMM reads its
/// operands from memory, so only views may do that inside the kernel.
bool FusionPlanner::feedsMatmul(unsigned group, Operation *op) const {
  const Group &g = groups[group];
  return g.matmul && llvm::any_of(op->getUsers(), [&](Operation *user) {
           return user == g.matmul ||
                  (g.members.contains(user) &&
                   llvm::is_contained(user->getUsers(), g.matmul));
         });
}

/// Whether the ops of `candidate` may join `group`: none is placed yet or is
/// a matmul (matmuls only root groups), whatever feeds the matmul of a gemm
/// group is a view of its operand, and every other op fits the group's
/// space. Without allowFullSize, a candidate is a consumer, which a
/// column-statistics or same-shape group does not take.
bool FusionPlanner::canJoin(unsigned group, const Candidate &candidate) const {
  const Group &g = groups[group];
  auto isInternal = [&](Value value) {
    Operation *producer = value.getDefiningOp();
    return producer && (g.members.contains(producer) ||
                        llvm::is_contained(candidate.ops, producer));
  };
  return llvm::all_of(candidate.ops, [&](Operation *op) {
    if (isa<MatmulOp>(op) || isPlaced(op))
      return false;
    if (feedsMatmul(group, op))
      return isMatmulOperandView(op, g.matmul);
    return fits(group, op, isInternal, candidate.allowFullSize);
  });
}

/// The cheap unplaced ops that compute the input of `reduction` from placed
/// values and values that are materialized anyway, followed by `reduction`
/// itself: a sibling statistic that may join a group.
Candidate FusionPlanner::getProducerClosure(Operation *reduction) const {
  Candidate candidate{{}, /*allowFullSize=*/true};
  llvm::SetVector<Operation *> closure;
  SmallVector<Operation *> worklist = {reduction};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      if (!producer || !position.count(producer) || isPlaced(producer) ||
          !isCheapOp(producer) || mustMaterialize(producer))
        continue;
      if (closure.insert(producer))
        worklist.push_back(producer);
    }
  }
  candidate.ops.assign(closure.begin(), closure.end());
  llvm::sort(candidate.ops, [&](Operation *a, Operation *b) {
    return position.lookup(a) < position.lookup(b);
  });
  candidate.ops.push_back(reduction);
  return candidate;
}

/// The sets of ops that may join `group` next: single consumers and
/// producers of its values, and (for groups with rows or columns) unplaced
/// reductions with the ops computing their inputs.
void FusionPlanner::collectCandidates(unsigned group,
                                      SmallVectorImpl<Candidate> &out) {
  const Group &g = groups[group];
  llvm::SetVector<Operation *> consumers, producers;
  for (Operation *op : g.members) {
    for (Operation *user : op->getUsers())
      if (Operation *node = getNode(user); node && !isPlaced(node))
        consumers.insert(node);
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp();
          producer && position.count(producer) && !isPlaced(producer) &&
          isCheapOp(producer))
        producers.insert(producer);
  }
  for (Operation *op : consumers)
    out.push_back({{op}, /*allowFullSize=*/false});
  for (Operation *op : producers)
    out.push_back({{op}, /*allowFullSize=*/true});
  if (g.space.kind != Space::Kind::Rows && g.space.kind != Space::Kind::Columns)
    return;
  for (Operation *node : nodes)
    if (!isPlaced(node) && isa<ReductionOpInterface>(node) &&
        !consumers.contains(node))
      out.push_back(getProducerClosure(node));
}

/// Grows `group` by the legal, acyclic candidate that saves the most bytes,
/// until none saves any.
void FusionPlanner::grow(unsigned group) {
  while (true) {
    SmallVector<Candidate> candidates;
    collectCandidates(group, candidates);
    std::optional<Candidate> best;
    int64_t bestSaved = 0;
    for (Candidate &candidate : candidates) {
      if (!canJoin(group, candidate))
        continue;
      int64_t saved = bytesSaved(group, candidate.ops);
      if (saved <= bestSaved)
        continue;
      SmallVector<unsigned> merged = {group};
      for (Operation *op : candidate.ops)
        merged.push_back(getGroup(op));
      if (wouldCreateCycle(merged))
        continue;
      best = candidate;
      bestSaved = saved;
    }
    if (!best)
      return;
    for (Operation *op : best->ops)
      moveTo(group, op);
  }
}

void FusionPlanner::formGemmGroups() {
  for (Operation *node : nodes)
    if (auto matmul = dyn_cast<MatmulOp>(node)) {
      ArrayRef<int64_t> result = getShape(matmul.getResult());
      Space space{Space::Kind::Rows, SmallVector<int64_t>(result.drop_back()),
                  0};
      grow(createGroup(node, getMatmulKind(matmul), std::move(space)));
    }
}

void FusionPlanner::formReductionGroups() {
  for (Operation *node : nodes) {
    if (isPlaced(node) || !isa<ReductionOpInterface>(node))
      continue;
    KernelKind kind = getReductionKind(node);
    SmallVector<int64_t> input(getShape(node->getOperand(0)));
    Space space{Space::Kind::SameShape, input, 0};
    if (std::optional<SmallVector<int64_t>> rows = getReductionRows(node))
      space = Space{Space::Kind::Rows, *rows, 0};
    else if (std::optional<unsigned> count = getColumnReducedCount(node))
      space = Space{Space::Kind::Columns, input, *count};
    grow(createGroup(node, kind, std::move(space)));
  }
}

/// Whether pointwise groups `producer` and `consumer` may become one kernel:
/// every value of `producer` that `consumer` uses is read element for
/// element.
bool FusionPlanner::canMergePointwise(unsigned producer,
                                      unsigned consumer) const {
  for (Operation *op : groups[producer].members)
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers()) {
        Operation *node = getNode(user);
        if (node && getGroup(node) == consumer &&
            !readsElementwise(node, result))
          return false;
      }
  return !wouldCreateCycle({producer, consumer});
}

/// The one op that reads `op`'s results, if `op` has one result and every
/// use of it is in that op, which reads it element for element.
Operation *FusionPlanner::getSoleElementwiseReader(Operation *op) const {
  if (op->getNumResults() != 1 || op->getResult(0).use_empty())
    return nullptr;
  Operation *reader = nullptr;
  for (Operation *user : op->getUsers()) {
    Operation *node = getNode(user);
    if (!node || (reader && node != reader))
      return nullptr;
    reader = node;
  }
  return readsElementwise(reader, op->getResult(0)) ? reader : nullptr;
}

void FusionPlanner::formPointwiseGroups() {
  for (Operation *node : nodes)
    if (!isPlaced(node))
      createGroup(node, KernelKind::pointwise, Space());

  // A pointwise op whose result only one pointwise op reads, element for
  // element, joins that op's group: it saves the result's write and read,
  // and cannot close a cycle (its group reaches nothing else). Visiting
  // consumers first moves one op at a time, so that a chain of N ops takes
  // O(N), where the search below would take O(N^2).
  for (Operation *node : llvm::reverse(nodes)) {
    unsigned group = getGroup(node);
    if (groups[group].kind != KernelKind::pointwise ||
        groups[group].members.size() != 1)
      continue;
    Operation *reader = getSoleElementwiseReader(node);
    if (reader && groups[getGroup(reader)].kind == KernelKind::pointwise)
      moveTo(getGroup(reader), node);
  }

  // Merge the pair of pointwise groups joined by an edge that saves the most
  // bytes, until no merge saves any.
  while (true) {
    std::optional<std::pair<unsigned, unsigned>> best;
    int64_t bestSaved = 0;
    for (Operation *node : nodes) {
      unsigned producer = getGroup(node);
      if (groups[producer].kind != KernelKind::pointwise)
        continue;
      for (Operation *user : node->getUsers()) {
        Operation *userNode = getNode(user);
        if (!userNode)
          continue;
        unsigned consumer = getGroup(userNode);
        if (consumer == producer ||
            groups[consumer].kind != KernelKind::pointwise)
          continue;
        SmallVector<Operation *> ops(groups[consumer].members.begin(),
                                     groups[consumer].members.end());
        int64_t saved = bytesSaved(producer, ops);
        if (saved > bestSaved && canMergePointwise(producer, consumer)) {
          best = {producer, consumer};
          bestSaved = saved;
        }
      }
    }
    if (!best)
      return;
    SmallVector<Operation *> ops(groups[best->second].members.begin(),
                                 groups[best->second].members.end());
    for (Operation *op : ops)
      moveTo(best->first, op);
  }
}

/// Whether `group` may recompute cheap `op` of another group: the copy fits
/// the group's structure, and does not feed a matmul (whose operands the
/// library GEMM reads from memory). A reshape of a value the group reads from
/// memory is a view of it, which any kernel can take.
bool FusionPlanner::canRecompute(unsigned group, Operation *op) const {
  const Group &g = groups[group];
  if (g.existing || !g.kind || !isCheapOp(op) || computes(group, op))
    return false;
  auto isInternal = [&](Value value) {
    Operation *producer = value.getDefiningOp();
    return producer && (producer == op || computes(group, producer));
  };
  if (isa<ReshapeOp>(op) && !isInternal(op->getOperand(0)))
    return true;
  for (Operation *user : op->getUsers()) {
    Operation *node = getNode(user);
    if (!node || !computes(group, node))
      continue;
    if (node == g.matmul || feedsMatmul(group, node))
      return false;
    if (g.space.kind == Space::Kind::Elementwise &&
        !readsElementwise(node, op->getResult(0)))
      return false;
  }
  if (g.space.kind == Space::Kind::Elementwise)
    return true;
  return fits(group, op, isInternal, /*allowFullSize=*/true);
}

/// Lets `group` recompute `op` if that lowers the traffic of both kernels
/// involved; moves `op` altogether when its own group then has no use for
/// it. Returns whether anything changed.
bool FusionPlanner::tryRecompute(unsigned group, Operation *op) {
  unsigned owner = getGroup(op);
  int64_t before = estimateGroupTraffic(owner) + estimateGroupTraffic(group);
  groups[group].recomputed.insert(op);
  recomputedBy[op].push_back(group);
  int64_t after = estimateGroupTraffic(owner) + estimateGroupTraffic(group);
  if (after >= before) {
    groups[group].recomputed.remove(op);
    recomputedBy[op].pop_back();
    return false;
  }
  bool usedByOwner = false, returned = false;
  SmallVector<unsigned> readers;
  for (Value result : op->getResults()) {
    getReaders(result, readers, returned);
    for (Operation *user : result.getUsers())
      if (Operation *node = getNode(user); node && computes(owner, node))
        usedByOwner = true;
  }
  if (!usedByOwner && !returned && readers.empty()) {
    groups[group].recomputed.remove(op);
    llvm::erase(recomputedBy[op], group);
    moveTo(group, op);
  }
  return true;
}

void FusionPlanner::recomputeCheapProducers() {
  bool changed = true;
  while (changed) {
    changed = false;
    for (unsigned group = 0; group < groups.size(); ++group) {
      if (!groups[group].kind)
        continue;
      llvm::SetVector<Operation *> producers;
      for (Operation *op : llvm::concat<Operation *const>(
               groups[group].members, groups[group].recomputed))
        for (Value operand : op->getOperands())
          if (Operation *producer = operand.getDefiningOp();
              producer && position.count(producer) &&
              !computes(group, producer))
            producers.insert(producer);
      for (Operation *producer : producers)
        if (canRecompute(group, producer) && tryRecompute(group, producer))
          changed = true;
    }
  }
}

/// Lists the groups in an order where each follows the groups it reads from,
/// earliest first among the ready ones, and describes each.
FailureOr<SmallVector<FusionGroup>> FusionPlanner::finish() {
  auto firstPosition = [&](unsigned group) {
    unsigned first = nodes.size();
    for (Operation *op : groups[group].members)
      first = std::min(first, position.lookup(op));
    return first;
  };
  SmallVector<unsigned> pending(groups.size(), 0);
  SmallVector<SmallVector<unsigned>> successors(groups.size());
  std::set<std::pair<unsigned, unsigned>> ready;
  unsigned numLive = 0;
  for (unsigned group = 0; group < groups.size(); ++group) {
    if (groups[group].members.empty())
      continue;
    ++numLive;
    getSuccessors(group, successors[group]);
    for (unsigned next : successors[group])
      ++pending[next];
  }
  for (unsigned group = 0; group < groups.size(); ++group)
    if (!groups[group].members.empty() && pending[group] == 0)
      ready.insert({firstPosition(group), group});

  SmallVector<FusionGroup> result;
  while (!ready.empty()) {
    unsigned group = ready.begin()->second;
    ready.erase(ready.begin());
    for (unsigned next : successors[group])
      if (--pending[next] == 0)
        ready.insert({firstPosition(next), next});

    const Group &g = groups[group];
    FusionGroup &out = result.emplace_back();
    out.kind = g.kind.value_or(KernelKind::pointwise);
    out.existing = g.existing;
    out.ops.append(g.members.begin(), g.members.end());
    out.ops.append(g.recomputed.begin(), g.recomputed.end());
    llvm::sort(out.ops, [&](Operation *a, Operation *b) {
      return position.lookup(a) < position.lookup(b);
    });
    for (Operation *op : out.ops) {
      if (!g.members.contains(op))
        continue;
      for (Value value : op->getResults()) {
        bool returned = false;
        SmallVector<unsigned> readers;
        getReaders(value, readers, returned);
        if (returned || !readers.empty())
          out.outputs.push_back(value);
      }
    }
  }
  // Every merge was checked for cycles; this guards the invariant.
  if (result.size() != numLive)
    return block.getParentOp()->emitError(
        "sinter-form-kernels: the fusion groups depend on each other in a "
        "cycle");
  return result;
}

FailureOr<SmallVector<FusionGroup>>
mlir::sinter::decideFusion(Block &block, const CostModel &costs) {
  FusionPlanner planner(block, costs);
  if (failed(planner.initialize()))
    return failure();
  planner.formGemmGroups();
  planner.formReductionGroups();
  planner.formPointwiseGroups();
  planner.recomputeCheapProducers();
  return planner.finish();
}
