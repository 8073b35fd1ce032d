//===- TorchExtension.h - PyTorch bridges of generated models ---*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// `sinterc -emit=cuda --emit-torch -o gen/` writes, beside `<model>.h` and
// `<model>.cu`, a PyTorch C++ extension over the model's C API:
//
//   <model>_torch.cpp   class Model(params...) with forward(inputs...), the
//                       checks of every tensor (device, dtype, shape,
//                       contiguity) and module attributes PARAM_NAMES,
//                       INPUT_NAMES, OUTPUT_NAMES and DIMS;
//   <model>_torch.py    load(): builds it with torch.utils.cpp_extension
//                       from the files of gen/ and the runtime that
//                       --emit-torch embeds in gen/sinter_rt/.
//
// Both are generated from the C API that CUDAOutput::api describes, so that
// they name exactly what `<model>.h` declares. docs/torch-extension.md is
// the user's guide.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_TARGET_CUDA_TORCHEXTENSION_H
#define SINTER_TARGET_CUDA_TORCHEXTENSION_H

#include "sinter/Target/CUDA/CUDAEmitter.h"

#include <string>

namespace mlir::sinter {

/// Returns `<model>_torch.cpp`: the PyTorch extension over the C API of
/// `output` (its header and interface; `options` for the provenance
/// comment). Deterministic: a function of its arguments only.
std::string getTorchExtensionSource(const CUDAOutput &output,
                                    const CUDAEmitterOptions &options);

/// Returns `<model>_torch.py`: load(build_directory=None, verbose=False,
/// extra_cuda_cflags=None), which compiles `<model>_torch.cpp`, `<model>.cu`
/// and the embedded runtime's sources with torch.utils.cpp_extension.load
/// and returns the extension module.
std::string getTorchExtensionLoader(const CUDAOutput &output,
                                    const CUDAEmitterOptions &options);

} // namespace mlir::sinter

#endif // SINTER_TARGET_CUDA_TORCHEXTENSION_H
