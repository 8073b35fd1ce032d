//===- Passes.td - Sinter transformation passes ------------*- tablegen -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The passes of the Sinter pipeline (see DESIGN.md, "Pipeline"). Each one is
// declared here, defined in its own file of lib/Dialect/Sinter/Transforms,
// and runs alone in sinter-opt.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD
#define SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Decomposition and algebraic simplification
//===----------------------------------------------------------------------===//

def SinterDecompose : Pass<"sinter-decompose", "func::FuncOp"> {
  let summary = "Rewrite softmax, logsumexp, var and the norms into "
                "reductions and elementwise ops";
  let description = [{
    Rewrites softmax, log_softmax, logsumexp, var, layer_norm, rms_norm,
    group_norm, instance_norm and batch_norm (training and inference) into
    the reductions and elementwise ops of the dialect, exactly per PyTorch's
    definitions (biased variance in the norms, max-subtracted exponentials),
    so that the later passes see one vocabulary. Scalars are rank-0
    `sinter.constant`s. An op that cannot be expressed (a group_norm whose
    shape cannot be regrouped by one reshape) is an error at that op.

    Example:

    ```mlir
    %p = sinter.softmax %x dim 1 : tensor<?x64xf32>
    // becomes
    %m = sinter.max %x dims [1] keepdim : tensor<?x64xf32>
    %d = sinter.sub %x, %m : tensor<?x64xf32>, tensor<?x1xf32>
    %e = sinter.exp %d : tensor<?x64xf32>
    %s = sinter.sum %e dims [1] keepdim : tensor<?x64xf32>
    %p = sinter.div %e, %s : tensor<?x64xf32>, tensor<?x1xf32>
    ```
  }];
  let dependentDialects = ["::mlir::sinter::SinterDialect"];
}

def SinterSimplify : Pass<"sinter-simplify", "func::FuncOp"> {
  let summary = "Algebraic rewrites of the rewrite catalog, folding and CSE";
  let description = [{
    Applies the rewrite catalog of DESIGN.md: reductions of a matmul over
    its N (or M) dim become a matrix-vector product with the reduced weight,
    scalar factors move through matmuls and reductions and merge,
    reductions over size-1 dims vanish, zeros and constants propagate
    through elementwise ops, reductions and norms (not yet argmax or argmin,
    whose index results have no fill) (`x - x` of a symbolic
    shape becomes a `sinter.fill` of the model inputs' dims, so what
    computed x is dead), relu/clamp chains merge, and maps linear along a
    linear layer's outputs fold into its weights and bias: per-channel
    scales and shifts (as inference batch_norm leaves them), a param
    (vector or scalar) subtracted or added, or the linear subtracted from
    it, sums and means over groups of adjacent or strided columns, products
    with param matrices where the folded weight costs no more, positive
    scales after relu and leaky_relu; training batch norm cancels the bias
    before it. Runs the ops' folders and common-subexpression
    elimination until nothing changes. The labels of the rewrites that
    fired, with their counts, go to the function's `sinter.rewrites`
    attribute (the fusion plan prints them).

    Every pattern declares what it may change about the computed values; with
    `fp-mode=strict` only value-preserving rewrites run (identities, exact
    constants such as x / 2 -> x * 0.5, bit-identical folds); `fp-mode=fast`
    (the default) also reassociates and assumes finite values.

    The rewrites carry labels that `disable-patterns` and `enable-patterns`
    accept: div-by-constant, sub-constant, add-self, regroup-cheap-factors,
    mul-of-neg, sub-self, mul-by-zero, add-zero-like, zero-preserving-unary,
    fold-constants, fold-constant-reductions, fill-operand-to-scalar,
    relu-of-non-negative, scale-into-relu, merge-clamps,
    scale-out-of-reduction, drop-unit-reduction-dims, share-kept-reduction,
    compose-transposes,
    regroup-cheap-shifts, factor-scaled-self, centering-cancels-shift,
    negated-linear, group-reduction-of-linear, matmul-of-linear,
    scale-into-contraction, div-by-param, reduction-of-matmul,
    reduction-of-biased-matmul, scalar-out-of-matmul-operand,
    transpose-into-matmul, scale-into-weights, scale-through-bias.
  }];
  let options = [
    Option<"fpMode", "fp-mode", "::mlir::sinter::FpMode",
           /*default=*/"::mlir::sinter::FpMode::Fast",
           "Which rewrites may change floating-point results",
           [{::llvm::cl::values(
             clEnumValN(::mlir::sinter::FpMode::Strict, "strict",
                        "value-preserving rewrites only"),
             clEnumValN(::mlir::sinter::FpMode::Fast, "fast",
                        "also reassociate and assume finite values"))}]>,
    ListOption<"disabledPatterns", "disable-patterns", "std::string",
               "Labels of the rewrites not to apply (see the catalog)">,
    ListOption<"enabledPatterns", "enable-patterns", "std::string",
               "Labels of the only rewrites to apply (see the catalog)">,
  ];
  let dependentDialects = ["::mlir::sinter::SinterDialect"];
}

//===----------------------------------------------------------------------===//
// Parameter hoisting and kernel formation
//===----------------------------------------------------------------------===//

def SinterHoistParams : Pass<"sinter-hoist-params", "ModuleOp"> {
  let summary = "Moves param-only computation into func.func @prepare";
  let description = [{
    Every op of @forward whose operands depend only on params (arguments with
    `sinter.role = "param"`), prepared values and constants moves into
    `func.func @prepare`, which the generated code runs once when the model
    is created. The values that @forward still needs become results of
    @prepare and arguments of @forward (`sinter.role = "prepared"`); params
    that @forward no longer reads leave its argument list, which is kept in
    `sinter.original_arguments` (ModelSignature.h documents the convention).
    Ops that are free wherever they run stay in @forward: constants, and
    reshapes that do not read a hoisted value. Running the pass again hoists
    into the existing @prepare; a module without @forward is left alone.

    Example: `sum(x @ W^T)` simplified to `x @ colsum(W)` computes
    `colsum(W)` in @prepare, and @forward reads the vector instead of `W`.
  }];
}

def SinterStageReductions : Pass<"sinter-stage-reductions", "func::FuncOp"> {
  let summary = "Splits reductions over long runs of a few channels into two "
                "stages";
  let description = [{
    A sum, mean, max, min or prod over [A, R, C] reduced along R (a middle
    or the leading dims) with a short kept run C that is not a power of two
    (3 to 15 channels, NHWC images' mean over H and W) reads C elements
    side by side in each reduced row: a block of one kernel covers its
    positions across A, each lane strided by R * C elements. Where R * C
    is too long for a warp to reduce a position whole (kMinRunBlockElements,
    SplitReduction.h), this pass reshapes the input to [A, S, R2, C] and
    reduces twice, first along R2 (a power of two dividing R with R2 * C
    below that limit, so that each position's R2 * C contiguous elements
    take warp runs) and then along S, as Inductor splits a long reduction
    into two (`Reduction.create_multilayer`). Each stage is the same
    reduction, which gives the whole result over equal parts (the combiner
    table's `reducesPartials`; a mean's first division by a power of two is
    exact). The statistics of a single-pass pair (a mean with the variance
    around it, a max with its sum of exponentials) stay whole, and so do
    reductions whose elementwise producers broadcast along the reduced dims
    (the first stage computes the others over the staged shape). The
    partials are f32 values: with `fp-mode=strict` only the reductions
    exact in any order (max, min) are split.

    Example:

    ```mlir
    %m = sinter.mean %x dims [1, 2] : tensor<?x256x256x3xf32>
    // becomes
    %r = sinter.reshape %x : tensor<?x256x256x3xf32> -> tensor<?x64x1024x3xf32>
    %p = sinter.mean %r dims [2] : tensor<?x64x1024x3xf32>
    %m = sinter.mean %p dims [1] : tensor<?x64x3xf32>
    ```
  }];
  let options = [
    Option<"fpMode", "fp-mode", "::mlir::sinter::FpMode",
           /*default=*/"::mlir::sinter::FpMode::Fast",
           "Whether sums, means and products may round partial results",
           [{::llvm::cl::values(
             clEnumValN(::mlir::sinter::FpMode::Strict, "strict",
                        "split max and min only"),
             clEnumValN(::mlir::sinter::FpMode::Fast, "fast",
                        "also sums, means and products"))}]>,
  ];
  let dependentDialects = ["::mlir::sinter::SinterDialect"];
}

def SinterFormKernels : Pass<"sinter-form-kernels", "ModuleOp"> {
  let summary = "Groups the ops of each function into sinter.kernel regions";
  let description = [{
    Decides fusion groups first (FusionPolicy.h: legality as small named
    functions, candidates scored by the HBM bytes they save, no cycles, no
    matmul or reduction computed twice), then wraps every group of @forward
    and @prepare into a `sinter.kernel` of kind gemm, matvec, pointwise,
    row_reduction or column_reduction. Ops whose results nothing uses are
    erased first. Afterwards every op of these functions
    except constants and the terminator is inside exactly one kernel; cheap
    elementwise producers may also be recomputed in a consumer kernel when
    that avoids writing a full-size intermediate. Expects decomposed input
    (run sinter-decompose first): softmax and the norms are rejected.

    With `remarks`, every op that a kernel could not take gets a remark with
    the reason (`cannot fuse add with sum: broadcasts across rows`); a debug
    build logs every candidate, the bytes it saves and any rejection with
    `--debug-only=sinter-fusion`.
  }];
  let options = [
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark at each op a kernel could not take, with the reason">,
  ];
}

def SinterPlanKernels : Pass<"sinter-plan-kernels", "ModuleOp"> {
  let summary = "Attaches to every sinter.kernel the plan the CUDA emitter follows";
  let description = [{
    Decides how each kernel runs and writes it as a `#sinter.plan` attribute
    (`plan`) on the kernel: the geometry of its reductions (trailing,
    leading, middle, strided, all), the strategy (elementwise,
    subwarp_per_row, warp_per_row, block_per_row, row_by_length,
    split_reduction, split_welford when a mean and the variance around it
    share one pass, split_online_softmax when a max and the sum of
    exp(x - max) do, library_gemm), the block shape (for rows: a warp up to
    1024 elements, or up to 1536 as float4 groups held in registers or read
    between scalar edges, 2048 for an argmax or argmin; 256 threads up to
    8192, and up to 16384 where one operand is held in registers for
    several passes or an argmax (wide rows, 64 floats a thread) or one pass
    reads the rows from HBM; else 1024;
    blocks of a cluster of 8 that share a row 256, of 2 or 4, 512; for an
    elementwise kernel whose every value has the full shape or one element,
    128 threads that each load 2 float4 groups before they compute them (4
    where an op chains special functions, as mish: `chunk_loads`), else
    256; for a split reduction the kept positions a block covers,
    `columns_per_block`: 256, or one kept run of a middle dim shorter than
    a 128-byte line, as 4 over [A, R, 4], 128 over a middle dim read by
    scalar loads, and down to 64 where the last column group would leave
    more than an eighth idle; or, over [A, R, C] reduced along R with C
    from 2 to 16 and R * C under 4096 elements, 8 warps times `warp_runs`
    positions of A times C, each warp reducing its positions whole, its
    lanes side by side along their contiguous elements: one statistic, any
    apply step that reads the input launching after them), the vector
    width, the
    operands cached (in registers where `registers` says so, else in shared
    memory; not rows of a warp that are not float4 groups, up to 512
    elements, whose passes re-read them through L1), how many times each
    input element is read from HBM, the
    launches, for a GEMM the epilogue form (library or generated), and the
    blocks per multiprocessor that the launch bounds of the kernel (and of a
    split reduction's apply step) ask for, where the H100 ran faster
    (Occupancy.h: 4 for split partials, 6 for an apply step that reads
    statistics along the innermost dim, 2 for 1024-thread teams holding
    every input's rows in registers, at most 16 floats a thread, 12 with a
    mean and the variance around it); for a
    split reduction also whether the last block of each column group folds
    the partials instead of a second launch (`last_block_folds`: static
    shapes with one slice a column, or one-word partials that fold at most
    32 a thread; SplitReduction.h) and the rows each thread of its apply
    step walks at one group of four columns (`apply_rows_per_thread`: 4
    where the statistics vary along the rows), or whether its one fold
    computes the apply step instead (`apply_in_fold`: every output that is
    not a statistic has the statistics' shape, as var's division by n - 1),
    or whether one kernel computes it all over strips of columns held in
    registers (`apply_in_strip`: one pass of statistics over at most 32
    static reduced elements, a thread a column, or 33 to 256 in strips of
    32, 64 or 128 columns, 8, 4 or 2 lanes a column, the narrowest in which
    a thread makes 16 loads that fits 32 registers and gives every
    multiprocessor a strip; every other output of the input's shape, as
    softmax over the classes of [N, C, H, W]; a block a strip) or, for
    longer columns, staged
    in shared memory (`cached` under `apply_in_strip`: at most 64 KiB a
    strip of 32 columns, as softmax over a middle dim of 512, or of 16 or 8
    where 32 would not fit, as over 1000), or the
    columns each thread of its one partial
    kernel finishes (`columns_per_thread`: columns of at most 8 rows whose
    kept innermost dim is not a multiple of 4, 256 apart, enough for 12
    loads in flight, as a mean over the first dim of [3, N]) and the loads
    a thread of its partial kernel issues before it combines them
    (`chunk_loads`: 8 elements or 4 float4 runs; 8 runs, at 3 blocks a
    multiprocessor, where each column has one slice over more than a wave
    of blocks and a thread reads 8 runs at least); for rows held in the
    registers of a warp or fewer lanes, the params of one row's elements (a
    norm's weight and bias) that each thread loads once and holds across
    its rows (`held_params`: while every operand held fits 128 floats a
    thread); for a row
    kernel over short rows that are not float4 groups (5 to 128 elements,
    or 2 and 3 that several passes read or a thread's tile holds; every
    reduction over whole rows), whether its block stages its rows as tiles
    in shared memory (`tile_rows`: copied to and from HBM by the whole block
    as float4 groups, at most 16 elements a lane, a thread a row of up to
    16), or each thread holds a tile of the rows that make whole float4
    groups in its registers (`rows_per_thread`: 2 rows of 2, 4 rows of 3,
    at most 32 floats an operand, where each output of whole rows is one
    float4 a thread and statistics a row are stored as a group). Rows whose
    cached operands need a cluster's slices over 112 KiB are split instead
    (a block a multiprocessor holds no second slice in flight). The CUDA
    emitter and the fusion plan's traffic estimate read the attribute;
    legality is decided here, once. Kernels that already have a plan keep
    it. Runs after sinter-form-kernels.

    Example: a softmax over rows of 4096 becomes
    `#sinter.plan<strategy = block_per_row, geometry = trailing, block = 256,
    rows_per_block = 1, ..., cached = array<i64: 0>, passes = 1, ...>`.
  }];
}

def SinterSelectGemm : Pass<"sinter-select-gemm", "ModuleOp"> {
  let summary = "Marks the fp32 GEMM kernels that run as 3xTF32 on Hopper";
  let description = [{
    Sets `sinter.gemm_algorithm = "3xtf32"` on every gemm kernel of @forward
    whose one matmul is `x @ w^T` with `w` a param or a prepared value (a
    `sinter.role = "param"` or `"prepared"` argument of @forward, read whole
    as a 2-D [N, K] matrix) and `x` not transposed, in f32 (SelectGemm.h,
    `isTf32x3Candidate`). The CUDA emitter runs such a kernel through
    `sinter_rt_gemm_tf32x3`: TF32 tensor cores with each operand split in
    two (3 products) and fp32 promotion, at least as accurate against float64
    as cuBLAS SGEMM; the weight's split is made once when the model is
    created. On devices other than sm_90, and for shapes where the runtime's
    rule expects SGEMM to be faster, the runtime runs SGEMM instead. Other
    kernels are left as they are (cuBLAS with the precision sinterc was
    given). sinterc runs this pass for `--precision=f32` unless
    `--fp32-gemm=sgemm`.

    Example: `gemm_bias_relu`'s `relu(x @ weight^T + bias)` kernel gets the
    attribute; a product of two inputs does not.
  }];
}

def SinterPrintFusionPlan : Pass<"sinter-print-fusion-plan", "ModuleOp"> {
  let summary = "Prints the fusion plan of a module with kernels";
  let description = [{
    Prints a table per function with kernels: kernel, kind, estimated bytes
    moved and FLOPs (symbolic dims at their sinter.dims defaults), inputs,
    outputs and the ops each kernel computes (FusionPlan.h). Leaves the IR
    unchanged.
  }];
}

#endif // SINTER_DIALECT_SINTER_TRANSFORMS_PASSES_TD
