//===- draw.cpp - Tensors drawn again as `sinterc run` drew them ----------===//
//
// Part of the Sinter project: a fusion compiler from model descriptions to
// CUDA, built on MLIR.
//
//===----------------------------------------------------------------------===//
//
// The helper of scripts/torch-check for tensors too large to travel:
//
//   draw <seed> <name> <hint> <args, comma-separated, or -> <count> <out>
//
// draws <count> values of the tensor <name> from its init hint with
// gpucheck.h (the generator of sinter/Interpreter/InitHints.h), writes them
// to <out> as little-endian float32 and prints their checksum, which
// torch_check.py compares with the one `torch-check prepare` recorded.
//
//===----------------------------------------------------------------------===//

#include "gpucheck.h"

int main(int argc, char **argv) {
  if (argc != 7)
    gpucheck::fail("usage: draw <seed> <name> <hint> <args|-> <count> <out>");
  uint64_t seed = std::strtoull(argv[1], nullptr, 10);
  std::vector<double> args;
  if (std::string(argv[4]) != "-")
    for (const std::string &arg : gpucheck::split(argv[4], ','))
      args.push_back(std::stod(arg));
  size_t count = std::strtoull(argv[5], nullptr, 10);
  std::vector<float> values =
      gpucheck::draw(seed, argv[2], argv[3], args, count);
  std::FILE *out = std::fopen(argv[6], "wb");
  if (!out || std::fwrite(values.data(), sizeof(float), count, out) != count ||
      std::fclose(out) != 0)
    gpucheck::fail(std::string("cannot write ") + argv[6]);
  std::printf("%llu\n",
              static_cast<unsigned long long>(gpucheck::checksum(values)));
  return 0;
}
