//===- TorchText.h - Text shared by the PyTorch extension files -*- C++ -*-===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// What the writers of `<model>_torch.cpp` (TorchExtension.cpp) and
// `<model>_torch.py` (TorchLoader.cpp) both write.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_LIB_TARGET_CUDA_TORCHTEXT_H
#define SINTER_LIB_TARGET_CUDA_TORCHTEXT_H

#include "sinter/Target/CUDA/CUDAEmitter.h"

#include <string>

namespace mlir::sinter::cuda {

/// Returns `text` as lines that start with `prefix` ("//", "#"; a space
/// follows it) after `indent` spaces, filled up to 80 columns.
std::string wrapComment(StringRef text, StringRef prefix, unsigned indent = 0);

/// The names of `tensors` in the model.
SmallVector<std::string> getUserNames(ArrayRef<CUDATensorInfo> tensors);

/// The provenance lines shared by both files (source, compiler, flags), each
/// starting with `comment`.
std::string getTorchProvenance(const CUDAEmitterOptions &options,
                               StringRef comment);

} // namespace mlir::sinter::cuda

#endif // SINTER_LIB_TARGET_CUDA_TORCHTEXT_H
