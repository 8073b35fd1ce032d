//===- SinterAttrs.td - Sinter attributes ------------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_IR_SINTERATTRS_TD
#define SINTER_DIALECT_SINTER_IR_SINTERATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "sinter/Dialect/Sinter/IR/SinterDialect.td"
include "sinter/Dialect/Sinter/IR/SinterEnums.td"

def Sinter_KernelPlanAttr : AttrDef<Sinter_Dialect, "KernelPlan"> {
  let mnemonic = "plan";
  let summary = "how the CUDA emitter generates one sinter.kernel";
  let description = [{
    The decisions of `sinter-plan-kernels` for one kernel, which the CUDA
    emitter reads instead of deciding again (as Triton's Coalesce pass
    writes its layout into the IR): the geometry of its reductions, the
    strategy, the block shape (`block` threads, 0 when the launch picks it
    from a symbolic row length; `rows_per_block` rows of a row kernel;
    `columns_per_block` kept positions of a split reduction, 1 when the
    block's threads split one position's elements), the vector width of its
    loads (4: float4 groups; over rows that are not a multiple of 4 long,
    read from HBM by every pass, from each row's first 16-byte boundary,
    between scalar edges; a split reduction's runs of 4 along its trailing
    reduced dims, which may cross rows of the innermost, or its kept
    innermost dim: the verifier checks canReadRunsOfFour), the operands it caches in shared memory (operand
    indices; row kernels and strips, see `apply_in_strip`), how many times it reads each input element from HBM
    (`passes`), its launches,
    for a GEMM kernel the epilogue form, and `single_pass` (row strategies
    only, printed when set): whether pairs of statistics that one pass can
    compute (softmax's max and sum of exp(x - max) as an online softmax, a
    mean and the mean of squared deviations from it as Welford's) are
    computed in one pass over the row; and `registers` (row strategies of a
    static team only, printed when set): each thread holds its part of the
    row in registers, float4 groups at a static count per thread, so that
    the cached operands live there rather than in shared memory; and
    `last_block_folds` (split strategies only, printed when set): the last
    block of each column group to finish its slice folds every slice's
    partials in slice order (a ticket per column group counts arrivals, no
    float atomics) and writes the results, where otherwise a second kernel
    launch folds them. For `subwarp_per_row`, `block` is the lanes that share
    a row (1 to 16). `min_blocks` (printed when non-zero; 0: no minimum) is
    the blocks per multiprocessor that the kernel's `__launch_bounds__` ask
    for, which caps the registers a thread may use; for a split reduction it
    is that of the partial kernels, and `apply_min_blocks` that of the apply
    step (the pointwise kernel over the outputs that are not statistics);
    `apply_rows_per_thread` (printed when not 1) is the rows each thread of
    the apply step's float4 path walks at one group of four columns, so that
    statistics that vary along the rows load once for them all;
    `apply_in_fold` (split strategies with one fold, printed when set): every
    output of the apply step has the statistics' shape (`var`'s division by
    n - 1, `mean(x) * w`), so the fold computes them for its columns right
    after storing the statistics and no apply kernel launches;
    `cluster` (block_per_row only, printed when not 1): a thread block
    cluster of that many blocks (2 to 8, a power of two) shares each row,
    where the row's cached operands are too long for one block's shared
    memory: block k of the cluster holds and walks the k-th slice of the
    row, and the blocks combine each reduction through distributed shared
    memory, so that HBM is still read once; `row_slices` (block_per_row
    only, printed when not 1): rows too long for a cluster's shared memory
    are streamed through L2 in that many slices each: a persistent grid
    draws items from a queue, a slice's statistics (partial results stored
    for the row) and, trailing them by a bounded lag, a slice's outputs
    (after folding its row's partials in slice order), so that the second
    read of a slice comes from L2 and HBM is read once; a slice computes
    the statistics of a pair (softmax's max and sum, a mean and a variance)
    in turn, and its partial is the pair's state (no `single_pass`);
    `stream_lag` (with row_slices, printed when not 0): the items by which
    a slice's outputs trail its statistics in the queue, at least a row's
    slices (so that a block only waits on running blocks); `stream_blocks`
    (with row_slices, printed when not 0): the blocks of the persistent
    grid a multiprocessor holds at most (fewer where occupancy allows
    fewer); `apply_in_strip` (split strategies, printed when set): each
    block of the one partial kernel reads every reduced element of a strip
    of `columns_per_block` adjacent kept positions (one slice) into its
    threads' registers, folds its lanes into the strip's statistics, then
    computes the apply step's outputs over the strip from those registers,
    so that HBM is read once, a block a strip (softmax over the classes of
    [N, C, H, W], a layer norm over the channels); its `cached` operands
    (of the reduced input's shape) the block copies into shared memory
    instead, asynchronously, 16 bytes at a time where it can (columns too
    long for registers: softmax over a middle dim of 512); `tile_rows` (subwarp_per_row and warp_per_row, printed when
    set): the block's `rows_per_block` consecutive rows of each cached
    operand are one contiguous tile in shared memory, which the whole block
    copies from HBM (float4 groups where the buffers are aligned) before its
    teams walk their rows there, and the outputs of whole rows go to tiles
    of their own, which the whole block stores likewise: short rows that
    are not float4 groups (of 10, of 49, of 197) move through HBM in
    coalesced 16-byte accesses, however few lanes share a row (1: a thread
    a row); `columns_per_thread` (split_reduction and split_welford, printed
    when not 1): each thread of the one partial kernel covers that many
    columns, `columns_per_block` (256) apart, every reduced element of each
    (a column's few elements are one slice, so the columns are finished
    where they are read), so that all their loads are in flight at once: a
    mean over the first dim of [3, N] with N odd reads 3 scalars a column;
    `rows_per_thread` (with tile_rows, a lane a row, printed when not 1):
    each thread's tile is that many consecutive rows, held in its registers
    rather than the block's tile in shared memory, so many that they are
    whole float4 groups (2 rows of 2, 4 of 3), loaded and stored as such
    where aligned; `rows_per_block` counts the rows of the block's 256
    threads; `chunk_loads` (every split strategy, and elementwise kernels
    of vector width 4, where printed when not 0; 0 for the others): for an
    elementwise kernel, the float4 groups of its own elements each thread
    loads, `block` groups apart, before it computes them (a block's groups
    consecutive); for a split strategy, the
    loads each thread of a partial kernel issues before it combines them, a
    chunk (elements, or runs of 4 where the vector width is 4), all in
    flight at once: 8 elements or 4 runs, or 8 runs (with `min_blocks` 3)
    where each column has one slice over more than a wave of blocks and a
    thread reads 8 runs at least (argmax over 150 classes of NCHW);
    `held_params` (rows in registers of a team of a warp or fewer, printed
    when present): operands broadcast along the rows (one row's elements,
    a norm's weight and bias) that each thread loads into registers once,
    its float4 groups of them, before its loop over rows, instead of again
    for every row it walks (operand indices, none of them cached);
    `warp_runs` (split_reduction over a middle dim, printed when not 0):
    [A, R, C] reduced over R where C is short (2 to 16) and R * C under
    a block's share: each warp of the one partial kernel reduces that
    many consecutive positions of A whole, their loads in flight together,
    its lanes side by side along the R * C elements of each, which are
    contiguous (lane l over channel l % C, the lanes past the last whole
    multiple of C idle), and combines the lanes of each channel by
    shuffles; no partials, no fold (an apply step that reads the input
    launches after it). `columns_per_block` is then 8 warps times
    `warp_runs` times C, and `chunk_loads` the loads of each position a
    lane issues before it combines them.
  }];
  let parameters = (ins
    EnumParameter<Sinter_KernelStrategy>:$strategy,
    EnumParameter<Sinter_ReductionGeometry>:$geometry,
    "int64_t":$block,
    "int64_t":$rows_per_block,
    "int64_t":$columns_per_block,
    "int64_t":$vector_width,
    "::mlir::DenseI64ArrayAttr":$cached,
    "int64_t":$passes,
    "int64_t":$launches,
    EnumParameter<Sinter_EpilogueForm>:$epilogue,
    DefaultValuedParameter<"bool", "false">:$single_pass,
    DefaultValuedParameter<"bool", "false">:$registers,
    DefaultValuedParameter<"bool", "false">:$last_block_folds,
    DefaultValuedParameter<"int64_t", "0">:$min_blocks,
    DefaultValuedParameter<"int64_t", "0">:$apply_min_blocks,
    DefaultValuedParameter<"int64_t", "1">:$apply_rows_per_thread,
    DefaultValuedParameter<"bool", "false">:$apply_in_fold,
    DefaultValuedParameter<"int64_t", "1">:$cluster,
    DefaultValuedParameter<"int64_t", "1">:$row_slices,
    DefaultValuedParameter<"int64_t", "0">:$stream_lag,
    DefaultValuedParameter<"int64_t", "0">:$stream_blocks,
    DefaultValuedParameter<"bool", "false">:$apply_in_strip,
    DefaultValuedParameter<"bool", "false">:$tile_rows,
    DefaultValuedParameter<"int64_t", "1">:$columns_per_thread,
    DefaultValuedParameter<"int64_t", "1">:$rows_per_thread,
    DefaultValuedParameter<"int64_t", "0">:$chunk_loads,
    OptionalParameter<"::mlir::DenseI64ArrayAttr">:$held_params,
    DefaultValuedParameter<"int64_t", "0">:$warp_runs);
  let assemblyFormat = "`<` struct(params) `>`";
  let builders = [
    // A plan without single-pass statistics, rows in registers or a
    // minimum of blocks per multiprocessor.
    AttrBuilder<(ins "KernelStrategy":$strategy,
                     "ReductionGeometry":$geometry, "int64_t":$block,
                     "int64_t":$rows_per_block, "int64_t":$columns_per_block,
                     "int64_t":$vector_width,
                     "::mlir::DenseI64ArrayAttr":$cached, "int64_t":$passes,
                     "int64_t":$launches, "EpilogueForm":$epilogue), [{
      return $_get($_ctxt, strategy, geometry, block, rows_per_block,
                   columns_per_block, vector_width, cached, passes, launches,
                   epilogue, /*single_pass=*/false, /*registers=*/false,
                   /*last_block_folds=*/false, /*min_blocks=*/0,
                   /*apply_min_blocks=*/0, /*apply_rows_per_thread=*/1,
                   /*apply_in_fold=*/false, /*cluster=*/1,
                   /*row_slices=*/1, /*stream_lag=*/0,
                   /*stream_blocks=*/0,
                   /*apply_in_strip=*/false, /*tile_rows=*/false,
                   /*columns_per_thread=*/1, /*rows_per_thread=*/1,
                   /*chunk_loads=*/0, /*held_params=*/nullptr,
                   /*warp_runs=*/0);
    }]>];
  let genVerifyDecl = 1;
}

#endif // SINTER_DIALECT_SINTER_IR_SINTERATTRS_TD
