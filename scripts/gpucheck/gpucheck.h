//===- gpucheck.h - Runs one generated model against saved references -----===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The model-independent part of the drivers that scripts/gpu-check builds on
// a GPU machine. A driver runs one generated model on one case directory
// (cases/<model>/B<k>/) written by `scripts/gpu-check prepare`:
//
//   case.txt     one line per item:
//                  dim <name> <value>
//                  input|param <name> <model name> <hint> <args,...|->
//                              <d0,d1,...> <checksum>
//                  output <name> f32|i64 <d0,...> <row,row,...|all>
//   <out>.npy    the f64 interpreter's output (i8 for indices), only the
//                listed rows of the leading dim
//
// Inputs and params are drawn again here exactly as `sinterc run` drew them
// (sinter/Interpreter/InitHints.h: mt19937_64 seeded with seed ^ fnv1a(name),
// Box-Muller for randn) and checked against the checksum of the tensors
// `sinterc run --save-inputs` wrote, so nothing large travels.
//
// run() creates the model, runs it, compares every output with the
// reference (max abs error, relative error norm ||y - ref|| / ||ref||),
// checks that a second run is bitwise identical, runs once more with every
// buffer 4 bytes off 16-byte alignment (the scalar paths), checks that bad
// dims, null and misaligned pointers give the documented error statuses and
// that an empty batch (a dim every output has, set to 0, with null
// pointers) returns SINTER_OK and needs no workspace, and prints one
// `RESULT` line. Exit status 0 only when everything passed.
//
//===----------------------------------------------------------------------===//

#ifndef SINTER_GPUCHECK_H
#define SINTER_GPUCHECK_H

#include "sinter/rt.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace gpucheck {

/// The relative error norm an output may have against the f64 reference.
constexpr double kTolerance = 1e-5;

/// Stops the driver with a message.
[[noreturn]] inline void fail(const std::string &message) {
  std::fprintf(stderr, "gpucheck: %s\n", message.c_str());
  std::exit(2);
}

/// Stops on a failed CUDA call.
inline void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess)
    fail(std::string(what) + ": " + cudaGetErrorString(error));
}

/// Splits `text` at `separator`.
inline std::vector<std::string> split(const std::string &text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  for (std::string part; std::getline(stream, part, separator);)
    parts.push_back(part);
  return parts;
}

//===----------------------------------------------------------------------===//
// Drawing tensors as `sinterc run` does
//===----------------------------------------------------------------------===//

/// 64-bit FNV-1a of `text`.
inline uint64_t fnv1a64(const std::string &text) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char byte : text) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

/// Draws `count` values of the tensor `name` from init hint `kind(args)`.
inline std::vector<float> draw(uint64_t seed, const std::string &name,
                               const std::string &kind,
                               const std::vector<double> &args, size_t count) {
  std::mt19937_64 engine(seed ^ fnv1a64(name));
  auto uniform = [&] { return static_cast<double>(engine() >> 11) * 0x1p-53; };
  std::vector<double> values(count);
  if (kind == "randn" || kind == "normal") {
    for (size_t i = 0; i < count; i += 2) {
      double u1 = 1.0 - uniform();
      double u2 = uniform();
      double radius = std::sqrt(-2.0 * std::log(u1));
      double angle = 2.0 * M_PI * u2;
      values[i] = radius * std::cos(angle);
      if (i + 1 < count)
        values[i + 1] = radius * std::sin(angle);
    }
    if (kind == "normal")
      for (double &value : values)
        value = args.at(0) + args.at(1) * value;
  } else if (kind == "rand" || kind == "uniform" || kind == "linear_default") {
    double lo = 0.0, hi = 1.0;
    if (kind == "uniform") {
      lo = args.at(0);
      hi = args.at(1);
    } else if (kind == "linear_default") {
      hi = 1.0 / std::sqrt(args.at(0));
      lo = -hi;
    }
    for (double &value : values)
      value = lo + (hi - lo) * uniform();
  } else if (kind == "ones") {
    std::fill(values.begin(), values.end(), 1.0);
  } else if (kind != "zeros") {
    fail("unknown init hint '" + kind + "'");
  }
  return std::vector<float>(values.begin(), values.end());
}

/// The checksum `gpu-check prepare` recorded: the sum over i of
/// word[i] * (i * 0x9e3779b97f4a7c15 | 1) modulo 2^64, word[i] the bits of
/// element i as an unsigned 32-bit integer.
inline uint64_t checksum(const std::vector<float> &values) {
  uint64_t sum = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t word;
    std::memcpy(&word, &values[i], sizeof(word));
    sum += static_cast<uint64_t>(word) *
           ((static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL) | 1ULL);
  }
  return sum;
}

//===----------------------------------------------------------------------===//
// .npy references
//===----------------------------------------------------------------------===//

/// Reads a little-endian f8 or i8 .npy file as doubles.
inline std::vector<double> readNpy(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    fail("cannot open " + path);
  char magic[8];
  file.read(magic, 8);
  if (std::memcmp(magic, "\x93NUMPY", 6) != 0)
    fail(path + " is not a .npy file");
  uint32_t headerLength = 0;
  if (magic[6] == 1) {
    uint16_t length;
    file.read(reinterpret_cast<char *>(&length), 2);
    headerLength = length;
  } else {
    file.read(reinterpret_cast<char *>(&headerLength), 4);
  }
  std::string header(headerLength, ' ');
  file.read(&header[0], headerLength);
  bool isInt = header.find("'<i8'") != std::string::npos;
  if (!isInt && header.find("'<f8'") == std::string::npos)
    fail(path + ": expected <f8 or <i8 data");
  if (header.find("'fortran_order': True") != std::string::npos)
    fail(path + ": Fortran order is not supported");
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  std::vector<double> values(bytes.size() / 8);
  for (size_t i = 0; i < values.size(); ++i) {
    if (isInt) {
      int64_t value;
      std::memcpy(&value, &bytes[8 * i], 8);
      values[i] = static_cast<double>(value);
    } else {
      std::memcpy(&values[i], &bytes[8 * i], 8);
    }
  }
  return values;
}

//===----------------------------------------------------------------------===//
// Cases
//===----------------------------------------------------------------------===//

/// One tensor of a case.
struct Tensor {
  std::string name;
  bool isIndex = false;
  std::vector<int64_t> shape;
  size_t count = 1;
  /// Inputs and params: the host values.
  std::vector<float> values;
  /// Outputs: the rows of the leading dim the reference holds (all: empty).
  std::vector<int64_t> rows;
  /// The device buffer: 16-byte aligned, with room for a 4-byte offset.
  char *device = nullptr;
};

/// The pointers and dims of one forward call.
struct Call {
  std::map<std::string, int64_t> dims;
  std::map<std::string, const float *> inputs;
  std::map<std::string, void *> outputs;

  int64_t dim(const std::string &name) const { return dims.at(name); }
  const float *input(const std::string &name) const { return inputs.at(name); }
  template <typename T> T *output(const std::string &name) const {
    return static_cast<T *>(outputs.at(name));
  }
};

/// A case directory: its dims, inputs, params and references.
class Case {
public:
  Case(const std::string &directory, uint64_t seed) : directory(directory) {
    std::ifstream file(directory + "/case.txt");
    if (!file)
      fail("cannot open " + directory + "/case.txt");
    for (std::string line; std::getline(file, line);) {
      std::vector<std::string> f = split(line, ' ');
      if (f.empty())
        continue;
      if (f[0] == "dim") {
        dims[f.at(1)] = std::stoll(f.at(2));
      } else if (f[0] == "input" || f[0] == "param") {
        Tensor tensor = parseShape(f.at(1), f.at(5));
        std::vector<double> args;
        if (f.at(4) != "-")
          for (const std::string &arg : split(f[4], ','))
            args.push_back(std::stod(arg));
        // Drawn under the model's name of the tensor, as `sinterc run` did.
        tensor.values = draw(seed, f.at(2), f.at(3), args, tensor.count);
        if (std::to_string(checksum(tensor.values)) != f.at(6))
          fail("'" + f[2] + "' drawn here differs from the one " +
               "`sinterc run` saved (checksum " + f[6] + ")");
        (f[0] == "input" ? inputs : params).push_back(tensor);
      } else if (f[0] == "output") {
        Tensor tensor = parseShape(f.at(1), f.at(3));
        tensor.isIndex = f.at(2) == "i64";
        if (f.at(4) != "all")
          for (const std::string &row : split(f[4], ','))
            tensor.rows.push_back(std::stoll(row));
        outputs.push_back(tensor);
      }
    }
    for (Tensor *tensor : all()) {
      check(cudaMalloc(&tensor->device, byteSize(*tensor) + 16), "cudaMalloc");
      if (!tensor->values.empty())
        check(cudaMemcpy(tensor->device, tensor->values.data(),
                         byteSize(*tensor), cudaMemcpyHostToDevice),
              "cudaMemcpy");
    }
    for (Tensor &param : params)
      paramPointers[param.name] = reinterpret_cast<float *>(param.device);
  }

  /// The device pointer of param `name`.
  const float *param(const std::string &name) const {
    return paramPointers.at(name);
  }

  /// The call on the case's buffers; with `unaligned`, every pointer is one
  /// element past a 16-byte boundary (4 bytes, 8 for indices).
  Call makeCall(bool unaligned) {
    Call call;
    call.dims = dims;
    for (Tensor &input : inputs) {
      if (unaligned)
        check(cudaMemcpy(input.device + 4, input.values.data(), byteSize(input),
                         cudaMemcpyHostToDevice),
              "cudaMemcpy");
      call.inputs[input.name] =
          reinterpret_cast<const float *>(input.device + (unaligned ? 4 : 0));
    }
    for (Tensor &output : outputs)
      call.outputs[output.name] =
          output.device + (unaligned ? (output.isIndex ? 8 : 4) : 0);
    return call;
  }

  /// Copies the outputs of `call` to the host, as doubles.
  std::vector<std::vector<double>> readOutputs(const Call &call) {
    std::vector<std::vector<double>> results;
    for (Tensor &output : outputs) {
      std::vector<double> values(output.count);
      if (output.isIndex) {
        std::vector<int64_t> raw(output.count);
        check(cudaMemcpy(raw.data(), call.outputs.at(output.name),
                         byteSize(output), cudaMemcpyDeviceToHost),
              "cudaMemcpy");
        std::copy(raw.begin(), raw.end(), values.begin());
      } else {
        std::vector<float> raw(output.count);
        check(cudaMemcpy(raw.data(), call.outputs.at(output.name),
                         byteSize(output), cudaMemcpyDeviceToHost),
              "cudaMemcpy");
        std::copy(raw.begin(), raw.end(), values.begin());
      }
      results.push_back(std::move(values));
    }
    return results;
  }

  /// Compares outputs with the references; returns the worst relative
  /// error norm and max abs error (index outputs: the fraction of wrong
  /// indices as the norm).
  std::pair<double, double>
  compare(const std::vector<std::vector<double>> &results) const {
    double worstNorm = 0, worstAbs = 0;
    for (size_t o = 0; o < outputs.size(); ++o) {
      const Tensor &output = outputs[o];
      std::vector<double> reference =
          readNpy(directory + "/" + output.name + ".npy");
      size_t rowSize =
          output.shape.empty()
              ? 1
              : output.count /
                    static_cast<size_t>(std::max<int64_t>(output.shape[0], 1));
      std::vector<int64_t> rows = output.rows;
      if (rows.empty())
        for (size_t r = 0; r * rowSize < output.count; ++r)
          rows.push_back(static_cast<int64_t>(r));
      if (reference.size() != rows.size() * rowSize)
        fail(output.name + ": the reference has " +
             std::to_string(reference.size()) + " values, expected " +
             std::to_string(rows.size() * rowSize));
      double diff2 = 0, ref2 = 0, maxAbs = 0, wrong = 0;
      for (size_t k = 0; k < rows.size(); ++k) {
        for (size_t e = 0; e < rowSize; ++e) {
          double y = results[o][static_cast<size_t>(rows[k]) * rowSize + e];
          double r = reference[k * rowSize + e];
          double d = std::isnan(y) != std::isnan(r) ? INFINITY
                     : std::isnan(y)                ? 0.0
                                                    : std::fabs(y - r);
          wrong += output.isIndex && d != 0;
          diff2 += d * d;
          ref2 += std::isnan(r) ? 0 : r * r;
          maxAbs = std::max(maxAbs, d);
        }
      }
      double norm = output.isIndex
                        ? wrong / static_cast<double>(rows.size() * rowSize)
                    : ref2 > 0 ? std::sqrt(diff2 / ref2)
                               : std::sqrt(diff2);
      std::printf("OUTPUT %s max_abs=%.3e rel_norm=%.3e\n", output.name.c_str(),
                  maxAbs, norm);
      worstNorm = std::max(worstNorm, norm);
      worstAbs = std::max(worstAbs, maxAbs);
    }
    return {worstNorm, worstAbs};
  }

  /// The bytes of every input, param and output: what a forward call must
  /// move at least once.
  size_t totalBytes() {
    size_t bytes = 0;
    for (Tensor *tensor : all())
      bytes += byteSize(*tensor);
    return bytes;
  }

  bool hasDims() const { return !dims.empty(); }
  bool hasInputs() const { return !inputs.empty(); }
  const std::string &firstInput() const { return inputs.front().name; }

private:
  static size_t byteSize(const Tensor &tensor) {
    return tensor.count * (tensor.isIndex ? 8 : 4);
  }
  Tensor parseShape(const std::string &name, const std::string &shape) {
    Tensor tensor;
    tensor.name = name;
    if (shape != "-")
      for (const std::string &dim : split(shape, ',')) {
        tensor.shape.push_back(std::stoll(dim));
        tensor.count *= static_cast<size_t>(tensor.shape.back());
      }
    return tensor;
  }
  std::vector<Tensor *> all() {
    std::vector<Tensor *> tensors;
    for (auto *list : {&inputs, &params, &outputs})
      for (Tensor &tensor : *list)
        tensors.push_back(&tensor);
    return tensors;
  }

  std::string directory;
  std::map<std::string, int64_t> dims;
  std::vector<Tensor> inputs, params, outputs;
  std::map<std::string, float *> paramPointers;
};

/// Whether two reads of a model's outputs are equal value for value, a NaN
/// equal to a NaN (an unbiased variance over one element is NaN in each).
inline bool sameOutputs(const std::vector<std::vector<double>> &a,
                        const std::vector<std::vector<double>> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].size() != b[i].size())
      return false;
    for (size_t j = 0; j < a[i].size(); ++j)
      if (!(a[i][j] == b[i][j] || (std::isnan(a[i][j]) && std::isnan(b[i][j]))))
        return false;
  }
  return true;
}

/// The model's API, bound by the generated driver.
struct Api {
  std::function<sinter_status(void **, cudaStream_t)> create;
  std::function<sinter_status(void *, const Call &, cudaStream_t)> forward;
  std::function<sinter_status(const Call &, size_t *)> workspaceBytes;
  std::function<sinter_status(void *)> destroy;
  /// The dims whose value 0 empties every output (the header documents them
  /// "at least 0"): an empty batch, which returns at once.
  std::set<std::string> emptyingDims;
};

/// Runs the checks of one case; `quick` runs the model once (for the
/// sanitizer). Returns the exit status.
inline int run(Case &c, const Api &api, const std::string &label, bool quick) {
  cudaStream_t stream;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  auto expect = [&](sinter_status status, sinter_status wanted,
                    const char *what) {
    if (status == wanted)
      return true;
    std::printf("CHECK %s: got %s, expected %s\n", what,
                sinter_status_name(status), sinter_status_name(wanted));
    return false;
  };
  void *model = nullptr;
  if (!expect(api.create(&model, stream), SINTER_OK, "create"))
    return 1;
  Call call = c.makeCall(false);
  if (!expect(api.forward(model, call, stream), SINTER_OK, "forward"))
    return 1;
  check(cudaStreamSynchronize(stream), "forward");
  std::vector<std::vector<double>> first = c.readOutputs(call);
  auto [norm, maxAbs] = c.compare(first);
  bool ok = norm <= kTolerance;
  bool deterministic = true, apiChecks = true;
  double offsetNorm = 0, micros = 0;
  if (!quick) {
    // Bitwise reproducible.
    ok &= expect(api.forward(model, call, stream), SINTER_OK, "forward #2");
    check(cudaStreamSynchronize(stream), "forward #2");
    deterministic = sameOutputs(c.readOutputs(call), first);
    // Buffers off 16-byte alignment: the scalar paths.
    Call shifted = c.makeCall(true);
    ok &= expect(api.forward(model, shifted, stream), SINTER_OK,
                 "forward with 4-byte-aligned buffers");
    check(cudaStreamSynchronize(stream), "forward (offset)");
    offsetNorm = c.compare(c.readOutputs(shifted)).first;
    // Documented errors.
    if (c.hasDims()) {
      // The first dim 0: an empty batch where that empties every output (no
      // launch, so the empty tensors' null pointers are fine, no
      // workspace), an error elsewhere.
      Call zero = call;
      zero.dims.begin()->second = 0;
      bool empties = api.emptyingDims.count(zero.dims.begin()->first) > 0;
      if (empties) {
        for (auto &input : zero.inputs)
          input.second = nullptr;
        for (auto &output : zero.outputs)
          output.second = nullptr;
      }
      sinter_status wanted = empties ? SINTER_OK : SINTER_ERROR_BAD_DIM;
      apiChecks &= expect(api.forward(model, zero, stream), wanted,
                          empties ? "empty batch" : "dim 0");
      check(cudaStreamSynchronize(stream), "empty batch");
      size_t bytes = 1;
      apiChecks &= expect(api.workspaceBytes(zero, &bytes), wanted,
                          "workspace_bytes(dim 0)");
      if (empties && bytes != 0) {
        std::printf("CHECK workspace_bytes(dim 0): %zu bytes, expected 0\n",
                    bytes);
        apiChecks = false;
      }
      if (empties)
        std::printf("EMPTY %s = 0: ok\n", zero.dims.begin()->first.c_str());
    }
    if (c.hasInputs()) {
      Call null = call;
      null.inputs[c.firstInput()] = nullptr;
      apiChecks &= expect(api.forward(model, null, stream),
                          SINTER_ERROR_NULL_POINTER, "null input");
      Call odd = call;
      odd.inputs[c.firstInput()] = reinterpret_cast<const float *>(
          reinterpret_cast<const char *>(call.inputs[c.firstInput()]) + 1);
      apiChecks &= expect(api.forward(model, odd, stream),
                          SINTER_ERROR_MISALIGNED_POINTER, "misaligned input");
    }
    size_t bytes = 0;
    apiChecks &=
        expect(api.workspaceBytes(call, &bytes), SINTER_OK, "workspace_bytes");
    ok &= deterministic && apiChecks && offsetNorm <= kTolerance;
    // Time: the mean of 20 calls after a warm-up, events on the stream.
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    ok &= expect(api.forward(model, call, stream), SINTER_OK, "warm-up");
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int i = 0; i < 20; ++i)
      api.forward(model, call, stream);
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    micros = 1000.0 * ms / 20;
    check(cudaEventDestroy(start), "cudaEventDestroy");
    check(cudaEventDestroy(stop), "cudaEventDestroy");
  }
  ok &= expect(api.destroy(model), SINTER_OK, "destroy");
  check(cudaStreamDestroy(stream), "cudaStreamDestroy");
  // Bytes every call must move / time: a floor on the bandwidth achieved.
  double gbps = micros > 0 ? c.totalBytes() / (micros * 1e3) : 0;
  std::printf("RESULT %s max_abs=%.3e rel_norm=%.3e offset_rel_norm=%.3e "
              "deterministic=%s api=%s time_us=%.1f min_GBps=%.0f status=%s\n",
              label.c_str(), maxAbs, norm, offsetNorm,
              deterministic ? "yes" : "NO", apiChecks ? "ok" : "FAIL", micros,
              gbps, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

} // namespace gpucheck

#endif // SINTER_GPUCHECK_H
