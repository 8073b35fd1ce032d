//===- FusionGraph.cpp - Dependences and traffic of fusion groups ---------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The structure under the fusion planner's decisions: one group per op to
// begin with, which groups read which (and whether a merge would close a
// cycle), the HBM bytes a group moves and a merge saves, and the final order
// of the groups, each after those it reads from.
//
//===----------------------------------------------------------------------===//

#include "FusionPlanner.h"

#include <set>

using namespace mlir;
using namespace mlir::sinter;
using namespace mlir::sinter::fusion;

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
        !isa<ReductionOpInterface>(op))
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
  groups[group].root = root;
  if (isa<MatmulOp>(root))
    groups[group].matmul = root;
  return group;
}

void FusionPlanner::moveTo(unsigned group, Operation *op) {
  groups[getGroup(op)].members.remove(op);
  groups[group].members.insert(op);
  groupOf[op] = group;
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
