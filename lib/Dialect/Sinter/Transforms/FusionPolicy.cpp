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
//     mean(x), group_norm whose groups lie inside rows after a reshape, and
//     its per-channel affine after the reshape back: the channel dim straddles
//     the rows, which stay runs of elements in row-major order).
//  2. Every remaining reduction roots a row_reduction group (reduced dims are
//     a trailing run) or a column_reduction group (any other geometry:
//     leading, middle, strided, all dims). A row group grows like an epilogue,
//     over its elementwise producers and the consumers that broadcast its
//     results back over the same rows (softmax, layer_norm, rms_norm). A column
//     group computes statistics over the same dims (leading, a middle run,
//     a strided set such as batch_norm's [0, 2, 3], or all): other
//     reductions over those dims with the elementwise ops that compute their
//     inputs (variance after mean), and elementwise consumers of the reduced
//     values and of the full-size input, which the kernel's apply step
//     writes (training batch_norm's normalization and per-channel affine).
//  3. The remaining elementwise and shape ops form pointwise groups, merged
//     along edges that do not broadcast.
//  4. A kernel recomputes a cheap producer from another kernel instead of
//     reading its result when that saves HBM traffic (x - mean(x) in the
//     normalization after column statistics), and takes a reshape of a value
//     it reads as a view rather than reading a copy.
//
// Within a phase, a group grows by the candidate that saves the most HBM
// bytes (estimateTraffic of the separate kernels minus that of the merged
// one), among those that are legal (FusionLegality.h) and create
// no cycle between kernels. A matmul or a reduction is never computed twice.
//
//===----------------------------------------------------------------------===//

#include "FusionPlanner.h"

#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "sinter-fusion"

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::fusion;

/// Whether `op` fits the structure of `group` (see Space).
Legality FusionPlanner::fits(unsigned group, Operation *op,
                             IsInternalFn isInternal) const {
  const Space &space = groups[group].space;
  switch (space.kind) {
  case Space::Kind::Rows:
    return fitsRows(op, space.shape, isInternal);
  case Space::Kind::Columns:
    return fitsColumns(op, space.shape, space.reduced, isInternal);
  case Space::Kind::Elementwise:
    return Legality::reject("pointwise kernels merge whole groups");
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
/// space.
Legality FusionPlanner::canJoin(unsigned group,
                                const Candidate &candidate) const {
  const Group &g = groups[group];
  auto isInternal = [&](Value value) {
    Operation *producer = value.getDefiningOp();
    return producer && (g.members.contains(producer) ||
                        llvm::is_contained(candidate.ops, producer));
  };
  for (Operation *op : candidate.ops) {
    if (isa<MatmulOp>(op))
      return Legality::reject("a matmul only roots a kernel", op);
    if (isPlaced(op))
      return Legality::reject("already belongs to another kernel", op);
    Legality legality = feedsMatmul(group, op)
                            ? isMatmulOperandView(op, g.matmul)
                            : fits(group, op, isInternal);
    if (!legality)
      return legality.about(op);
  }
  return Legality();
}

/// The name of `op` without its dialect ("add"), for remarks and logs.
static StringRef getShortName(Operation *op) {
  return op->getName().stripDialect();
}

/// The names of `ops`, comma-separated, for logs.
[[maybe_unused]] static std::string getShortNames(ArrayRef<Operation *> ops) {
  std::string names;
  for (Operation *op : ops)
    names += (names.empty() ? "" : ", ") + getShortName(op).str();
  return names;
}

/// With FusionOptions::remarks, a remark at the rejected op of a candidate
/// of `group`, once per op and group: "cannot fuse add with sum: broadcasts
/// across rows".
void FusionPlanner::explainRejection(unsigned group, const Legality &legality) {
  Operation *op = legality.getOp();
  Operation *root = groups[group].root;
  if (!options.remarks || !op || !root || !explained.insert({op, group}).second)
    return;
  op->emitRemark() << "cannot fuse " << getShortName(op) << " with "
                   << getShortName(root) << ": " << legality.getReason();
}

/// The cheap unplaced ops that compute the input of `reduction` from placed
/// values and values that are materialized anyway, followed by `reduction`
/// itself: a sibling statistic that may join a group.
Candidate FusionPlanner::getProducerClosure(Operation *reduction) const {
  Candidate candidate;
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
    out.push_back({{op}});
  for (Operation *op : producers)
    out.push_back({{op}});
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
      LLVM_DEBUG(llvm::dbgs()
                 << "[" DEBUG_TYPE "] group " << group << " ("
                 << getShortName(groups[group].root) << "): candidate "
                 << getShortNames(candidate.ops) << ": ");
      if (Legality legality = canJoin(group, candidate); !legality) {
        LLVM_DEBUG(llvm::dbgs()
                   << "rejected, " << getShortName(legality.getOp()) << " "
                   << legality.getReason() << "\n");
        explainRejection(group, legality);
        continue;
      }
      int64_t saved = bytesSaved(group, candidate.ops);
      LLVM_DEBUG(llvm::dbgs() << "saves " << saved << " bytes");
      if (saved <= bestSaved) {
        LLVM_DEBUG(llvm::dbgs()
                   << ", not more than the best (" << bestSaved << ")\n");
        continue;
      }
      SmallVector<unsigned> merged = {group};
      for (Operation *op : candidate.ops)
        merged.push_back(getGroup(op));
      if (wouldCreateCycle(merged)) {
        LLVM_DEBUG(llvm::dbgs() << ", rejected: would create a cycle\n");
        continue;
      }
      LLVM_DEBUG(llvm::dbgs() << ", the best so far\n");
      best = candidate;
      bestSaved = saved;
    }
    if (!best)
      return;
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] group " << group << " takes "
                            << getShortNames(best->ops) << " (" << bestSaved
                            << " bytes saved)\n");
    for (Operation *op : best->ops)
      moveTo(group, op);
  }
}

void FusionPlanner::formGemmGroups() {
  for (Operation *node : nodes)
    if (auto matmul = dyn_cast<MatmulOp>(node)) {
      ArrayRef<int64_t> result = getFusionShape(matmul.getResult());
      Space space{
          Space::Kind::Rows, SmallVector<int64_t>(result.drop_back()), {}};
      grow(createGroup(node, getMatmulKind(matmul), std::move(space)));
    }
}

void FusionPlanner::formReductionGroups() {
  for (Operation *node : nodes) {
    if (isPlaced(node) || !isa<ReductionOpInterface>(node))
      continue;
    KernelKind kind = getReductionKind(node);
    SmallVector<int64_t> input(getFusionShape(node->getOperand(0)));
    Space space{Space::Kind::Columns, input, getColumnReducedDims(node)};
    if (std::optional<SmallVector<int64_t>> rows = getReductionRows(node))
      space = Space{Space::Kind::Rows, *rows, {}};
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
    LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] pointwise group "
                            << best->first << " takes group " << best->second
                            << " (" << bestSaved << " bytes saved)\n");
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
  return fits(group, op, isInternal).isLegal();
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
  LLVM_DEBUG(llvm::dbgs() << "[" DEBUG_TYPE "] group " << group
                          << " recomputing " << getShortName(op) << " of group "
                          << owner << ": " << before << " -> " << after
                          << " bytes" << (after < before ? "" : ", no")
                          << "\n");
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

FailureOr<SmallVector<FusionGroup>>
mlir::sinter::decideFusion(Block &block, const CostModel &costs,
                           const FusionOptions &options) {
  FusionPlanner planner(block, costs, options);
  if (failed(planner.initialize()))
    return failure();
  planner.formGemmGroups();
  planner.formReductionGroups();
  planner.formPointwiseGroups();
  planner.recomputeCheapProducers();
  return planner.finish();
}
