//===- ColumnKernel.h - Column and split reduction kernels ------*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the writers of a column kernel share (ColumnReduction.cpp: the
// kernel, its fold and apply steps; ColumnPartial.cpp: the partial kernels).
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_COLUMNKERNEL_H
#define SINTER_LIB_TARGET_CUDA_COLUMNKERNEL_H

#include "KernelEmitter.h"

#include "sinter/Dialect/Sinter/IR/SinglePass.h"
#include "sinter/Dialect/Sinter/IR/SplitReduction.h"

namespace mlir::sinter::cuda {

/// The locals that hold a column's statistic, and the second of its pair,
/// where the fold's epilogue reads them (apply_in_fold).
inline constexpr const char *kStatisticNames[] = {"statistic",
                                                  "secondStatistic"};
/// The shared arrays through which a strip's threads read its columns'
/// statistic, and the second of its pair (apply_in_strip): element c is
/// the statistic of the strip's column c.
inline constexpr const char *kStripStatisticNames[] = {"stripStatistic",
                                                       "stripSecondStatistic"};

/// One reduction of a column kernel.
struct ColumnReduction {
  ReductionInfo info;
  /// Results (kept positions) and elements reduced into each.
  DimExpr positions, groupSize;
  /// Names of the final results and the partials in the workspace.
  std::string stats, partial;
  /// The functor that combines two values.
  std::string combiner;
  /// The columns (kept positions) a block of the partial kernel covers (see
  /// getColumnsPerBlock).
  int64_t columnsPerBlock = 32;
  /// The positions of A each warp reduces whole over [A, R, C] (the plan's
  /// warp_runs; 0: not a warp-run kernel), C being columnsPerBlock / (8 *
  /// warpRuns): see writeWarpRunKernel.
  int64_t warpRuns = 0;
  /// The columns each thread of the partial kernel covers, 256 apart (the
  /// plan's columns_per_thread): above 1, a column has one slice, which
  /// the thread finishes (no partials, no fold).
  int64_t columnsPerThread = 1;
  /// The loads each thread of the partial kernel issues before it combines
  /// them (the plan's chunk_loads): elements, or runs of 4 with `runs`.
  int64_t chunkLoads = kChunkElements;
  /// Whether the partial kernel's threads read runs of 4 adjacent elements
  /// (the plan's vector width 4): along the reduced innermost dim when a
  /// block covers one column, else along the kept innermost dim, 4 columns
  /// per thread.
  bool runs = false;
  /// Whether a block folds each column's partials as a tree (few static
  /// columns, many slices: a whole-tensor sum) rather than one thread per
  /// column in slice order.
  bool treeFold = false;
  /// Whether the final kernel folds each column's partials in lanes of a
  /// block (many slices: see ColumnReduction.cpp) rather than one thread
  /// per column in slice order.
  bool laneFold = false;
  /// For the first statistic of a pair (SinglePass.h): a mean under the
  /// split_welford strategy, a max under split_online_softmax, the second
  /// statistic that its states compute too (the variance around the mean,
  /// the sum of exp(x - max)): its index among the reductions, and the form
  /// of the states.
  std::optional<size_t> second;
  SinglePassForm pairForm = SinglePassForm::Welford;
  /// Whether the second statistic is logsumexp's sum of exp(x - clamp(max))
  /// (SinglePassPair::clampedMax).
  bool clampedMax = false;
  /// Whether the states of the first statistic of its pair compute this
  /// one: it has no kernels of its own.
  bool computedByFirst = false;
  /// Whether the last block of each column group folds the partials (the
  /// plan's last_block_folds) rather than a final kernel.
  bool lastBlockFolds = false;
  /// Under the plan's apply_in_fold (see writeFoldEpilogue): the statements
  /// that compute the apply step's outputs at column `p` once the fold has
  /// stored its statistics, and the buffers they read beside the statistics
  /// and write.
  std::string epilogue;
  std::vector<Buffer> epilogueInputs, epilogueOutputs;
  /// Under apply_in_fold or apply_in_strip, whether the statistic, and the
  /// second of its pair, are stored (outputs of the kernel, or read at
  /// another column) rather than only read by the epilogue or the strip's
  /// apply step from locals (kStatisticNames; under apply_in_strip, shared
  /// arrays too, kStripStatisticNames).
  bool stored = true, secondStored = true;
  /// Under apply_in_fold or apply_in_strip, whether the epilogue or the
  /// strip's apply step reads the statistic, and the second of its pair,
  /// at its own column, from its local.
  bool readsLocal = false, secondReadsLocal = false;
  /// Under the plan's apply_in_strip: the partial kernel's block walks
  /// strips of `columnsPerBlock` positions, every reduced element of each,
  /// stores their statistics, then writes `applyOutputs` (the outputs that
  /// are not statistics, all of the input's shape) over the strip.
  bool applyInStrip = false;
  std::vector<Buffer> applyOutputs;

  /// Whether it is the first statistic of a pair of `form`.
  bool pairs(SinglePassForm form) const { return second && pairForm == form; }
  /// The parameter of its fold that receives the second statistic of its
  /// pair.
  StringRef getSecondParameter() const {
    return pairs(SinglePassForm::Welford) ? "variance" : "sum_exp";
  }
  /// The type of the partial results: a (value, index) pair for argmax and
  /// argmin, Welford states for a mean with its variance, online softmax
  /// states for a max with its sum of exp, a float otherwise.
  StringRef getAccumulatorType() const {
    return info.isArg()                           ? "dev::ArgValue"
           : pairs(SinglePassForm::Welford)       ? "dev::Welford"
           : pairs(SinglePassForm::OnlineSoftmax) ? "dev::OnlineSoftmaxDouble"
                                                  : "float";
  }
  /// Whether it sums (sum, mean): its partials are doubles, from a tree over
  /// the partial kernel's threads in double, and fold in double, so that
  /// only the rows a thread reads add in float.
  bool sumsInDouble() const {
    return !second && (info.kind == ReductionCombiner::sum ||
                       info.kind == ReductionCombiner::mean);
  }
  /// The type of the partials in the workspace.
  StringRef getPartialType() const {
    return sumsInDouble() ? "double" : getAccumulatorType();
  }
  /// The type and the combiner of a fold of the partials: in double for
  /// Welford states and sums, rounded once when the results are stored
  /// (online softmax states hold their sums in double throughout).
  StringRef getFoldType() const {
    return pairs(SinglePassForm::Welford) ? "dev::WelfordDouble"
           : sumsInDouble()               ? "double"
                                          : getAccumulatorType();
  }
  StringRef getFoldCombiner() const {
    return pairs(SinglePassForm::Welford) ? "dev::WelfordDoubleOp"
           : sumsInDouble()               ? "dev::SumDoubleOp"
                                          : StringRef(combiner);
  }
  /// The element type of the final results.
  StringRef getStatsType() const { return info.isArg() ? "int64_t" : "float"; }
  /// Whether runs of 4 go along the kept innermost dim (4 columns a thread).
  bool hasColumnRuns() const { return runs && columnsPerBlock > 1; }
  /// The threads of a block that cover one row of its columns.
  int64_t getThreadsPerRow() const {
    return hasColumnRuns() ? columnsPerBlock / 4 : columnsPerBlock;
  }
  /// The lanes a block's threads split into, each over other rows.
  int64_t getLanes() const { return 256 / getThreadsPerRow(); }
};

/// `inputs`, where the only use of an input is a reshape, as a buffer of
/// the reshaped shape: a reshape keeps the row-major order, so that a kernel
/// reads the same memory as a view, without a shape op (a per-channel weight
/// [C] as [C, 1, 1] keeps the float4 path).
std::vector<Buffer> viewReshapedInputs(EmitterContext &context,
                                       ArrayRef<Buffer> inputs);

/// Writes the partial kernel `name` of reduction `index` of `reductions`,
/// which reads the final results of those before it; `dims` receives the
/// dims it takes, among `allDims`. With runs (the innermost dim a multiple
/// of 4 long), a thread reads runs of 4 adjacent elements: one float4 per
/// input of the reduced shape (4 scalar loads where the launch finds a
/// buffer unaligned, the same arithmetic either way).
FailureOr<std::string>
writeColumnPartialKernel(EmitterContext &context, const EvalKernel &kernel,
                         ArrayRef<ColumnReduction> reductions, size_t index,
                         StringRef name, ArrayRef<std::string> allDims,
                         SmallVectorImpl<std::string> &dims);

/// Writes the one kernel `name` of `reduction` under the plan's warp_runs
/// (the kernel's one reduction, or a mean and the variance around it,
/// `second`, over a middle dim of [A, R, C]): each warp reduces warpRuns
/// positions of A at once, lane l over channel l % C of each, its loads
/// chunkLoads at a time, combines each channel's lanes by shuffles
/// (dev::warpReduceChannels) and finishes its columns (the statistics, then
/// under apply_in_fold the outputs); `dims` receives the dims it takes,
/// among `allDims` (ColumnWarpRuns.cpp).
FailureOr<std::string> writeWarpRunKernel(EmitterContext &context,
                                          const EvalKernel &kernel,
                                          const ColumnReduction &reduction,
                                          const ColumnReduction *second,
                                          StringRef name,
                                          ArrayRef<std::string> allDims,
                                          SmallVectorImpl<std::string> &dims);

/// Where a strip's thread holds an input of the reduced shape (the plan's
/// apply_in_strip): in its registers, element k of its column at
/// `name[k]`, or in the strip's shared memory (the plan's cached operands),
/// row q of the strip's column c at `name[q * columns + c]`, where each
/// thread copied its own elements asynchronously.
struct StripArray {
  std::string name;
  bool shared = false;

  /// The thread's element in register `slot`, of row `q` of the strip's
  /// column `columnInStrip`, of `columns` a strip.
  std::string getElement(StringRef slot, StringRef columnInStrip,
                         int64_t columns) const {
    if (!shared)
      return (name + "[" + slot + "]").str();
    return (name + "[q * " + Twine(columns) + " + " + columnInStrip + "]")
        .str();
  }
};

/// Writes the copies of a strip's staged inputs (those of `registers` in
/// shared memory) into it, before each thread reads its elements there:
/// the block's threads copy the strip's elements of the reduced `shape` a
/// row after another, asynchronously, runs of 4 columns at a time (16
/// bytes where `vec`, the kernel's parameter, says the buffers are
/// aligned) where the kept innermost dim is a multiple of 4, then wait and
/// meet at a barrier. Returns whether it reads `vec` (ColumnStrips.cpp).
bool writeStripCopies(ScalarEmitter &emitter, CodeWriter &writer,
                      const ColumnReduction &reduction, const Shape &shape,
                      ArrayRef<Buffer> inputs,
                      const llvm::DenseMap<Value, StripArray> &registers);

/// Whether a strip stages `input`, a buffer of `kernel`, in shared memory
/// rather than registers: the plan's cached operands.
bool isStagedInStrip(const EvalKernel &kernel, const Buffer &input);

/// A thread of a strip (the plan's apply_in_strip): its `column` (the
/// strip's `columnInStrip`), its `lane` of rows, and its `loads` elements
/// of each input of the reduced shape (element k is row lane + k * lanes),
/// held where `registers` says (by value).
struct StripThread {
  Expr column;
  std::string columnInStrip, lane;
  int64_t loads;
  const llvm::DenseMap<Value, StripArray> *registers;
};

/// Where the apply step of a strip reads each statistic of a pair (or the
/// one statistic, first): at its own column, and at another.
struct StripStatisticReads {
  bool atColumn[2] = {false, false};
  bool elsewhere[2] = {false, false};
};

/// Writes the apply step of a strip (the plan's apply_in_strip), after the
/// block's threads have finished the strip's columns, into `writer`: a
/// barrier, then each `thread` writes every output of the apply step at
/// its elements of its column, reading the inputs of the reduced shape
/// where it holds them, others from memory, and the statistics at its column
/// from the strip's shared arrays (kStripStatisticNames), elsewhere as the fold
/// stored them
/// (`stats` and the second statistic's parameter); `reads` receives where
/// it read them (ColumnStrips.cpp).
LogicalResult writeStripApply(EmitterContext &context, const EvalKernel &viewed,
                              const ColumnReduction &reduction,
                              const ColumnReduction *second, CodeWriter &writer,
                              const StripThread &thread,
                              StripStatisticReads &reads);

/// Under the plan's apply_in_strip, before the strip's statistics are
/// finished: runs the apply step (writeStripApply) dry to learn where it
/// reads them, declares in `writer` the strip's shared arrays of those it
/// reads at their own column (kStripStatisticNames), which the finishing
/// threads fill, and sets `finishing` (a copy of `reduction`) to share
/// those and to store the others and the kernel's outputs
/// (ColumnStrips.cpp).
LogicalResult
declareStripStatistics(EmitterContext &context, const EvalKernel &viewed,
                       const ColumnReduction &reduction,
                       const ColumnReduction *second, CodeWriter &writer,
                       const StripThread &thread, ColumnReduction &finishing);

/// Under the plan's apply_in_strip, writes the one kernel of reduction
/// `index` of `reductions` (the first of its pair) over `strips` strips of
/// columns, which writes the apply step's outputs (its applyOutputs), and
/// appends its launch, a block a strip, to `launchBody`; returns its
/// device code (ColumnStrips.cpp).
FailureOr<std::string>
writeColumnStrips(EmitterContext &context, const EvalKernel &kernel,
                  ArrayRef<ColumnReduction> reductions, size_t index,
                  ArrayRef<std::string> allDims, StringRef strips,
                  std::string &launchBody);

/// Writes into `owner` (and the second statistic of its pair, `second`, if
/// not null) the epilogue of its fold under the plan's apply_in_fold: the
/// outputs of the apply step `apply`, which all have the statistics' shape,
/// computed at column `p` from the statistics the fold stored (the fold's
/// `stats` and its second parameter) and the other buffers `apply` reads.
LogicalResult writeFoldEpilogue(EmitterContext &context,
                                const EvalKernel &apply, ColumnReduction &owner,
                                const ColumnReduction *second);

/// The columns a block of the final kernel folds where it folds in lanes of
/// slices (ColumnFold.cpp).
inline constexpr int64_t kFoldColumns = 32;

/// Whether the final kernel of `reduction` folds in lanes: its columns are
/// static and few enough that sinterColumnSplits' target of
/// kSplitTargetBlocks partial blocks (HostCode.cpp) allows kLaneFoldSplits
/// slices.
bool useLaneFold(const ColumnReduction &reduction);

/// Writes the final kernel `name` of `reduction` (and of `second`, which
/// its states compute, if not null), which folds each column's partials;
/// `dims` receives the dims it takes, among `allDims`.
std::string writeFinalKernel(const ColumnReduction &reduction,
                             const ColumnReduction *second, StringRef name,
                             ArrayRef<std::string> allDims,
                             SmallVectorImpl<std::string> &dims);

/// The statements that finish column `p` from its `total` (of the fold's
/// type, or the partials'): the mean's division, the store of the result
/// (the index, for argmax/argmin; both statistics of a pair, the second's
/// being `second` if not null), then under apply_in_fold the apply step's
/// outputs there, at `indent`.
std::string finishColumn(const ColumnReduction &reduction,
                         const ColumnReduction *second, StringRef indent);

/// The code that ends a partial kernel of `reduction` (and of `second`,
/// which its states compute, if not null) under last_block_folds: the last
/// block of the column group folds every slice's partials of its columns
/// and stores the results (`stats`, and the second statistic).
std::string writeLastBlockFold(const ColumnReduction &reduction,
                               const ColumnReduction *second);

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_COLUMNKERNEL_H
