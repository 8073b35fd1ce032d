// Stand-in for <torch/extension.h> (see ../README.md): tensors, options,
// TORCH_CHECK and the pybind11 API that generated extensions use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <sstream>
#include <type_traits>
#include <vector>

namespace c10 {
template <typename T> class ArrayRef {
public:
  ArrayRef(const std::vector<T> &values);
  ArrayRef(std::initializer_list<T> values);
  size_t size() const;
  const T &operator[](size_t index) const;
  bool equals(ArrayRef other) const;
};
using IntArrayRef = ArrayRef<int64_t>;

enum class DeviceType : int8_t { CPU = 0, CUDA = 1 };
constexpr DeviceType kCUDA = DeviceType::CUDA;
using DeviceIndex = int8_t;
class Device {
public:
  Device(DeviceType type, DeviceIndex index = -1);
  bool operator==(const Device &other) const;
  DeviceIndex index() const;
};
std::ostream &operator<<(std::ostream &os, const Device &device);

enum class ScalarType : int8_t { Byte, Float, Double, Long };
std::ostream &operator<<(std::ostream &os, ScalarType type);

namespace detail {
/// TORCH_CHECK streams every part of its message: each must be streamable.
/// Generated code passes numbers as strings: an int64_t streamed there
/// crashed extensions built by PyTorch 2.11 with CUDA 13.
template <typename... Args>
void torchCheck(bool condition, const Args &...args) {
  static_assert(!(std::is_arithmetic<Args>::value || ...),
                "TORCH_CHECK message parts must not be numbers");
  std::ostringstream message;
  (message << ... << args);
  (void)condition;
}
} // namespace detail
} // namespace c10

#define TORCH_CHECK(condition, ...)                                            \
  ::c10::detail::torchCheck(static_cast<bool>(condition), __VA_ARGS__)

namespace at {
class TensorOptions {
public:
  TensorOptions device(c10::Device device) const;
};
class Tensor {
public:
  bool defined() const;
  bool is_cuda() const;
  c10::Device device() const;
  c10::ScalarType scalar_type() const;
  int64_t dim() const;
  c10::IntArrayRef sizes() const;
  c10::IntArrayRef strides() const;
  bool is_contiguous() const;
  int64_t size(int64_t dim) const;
  template <typename T> T *data_ptr() const;
  void *data_ptr() const;
};
} // namespace at

namespace torch {
using at::Tensor;
using at::TensorOptions;
constexpr c10::ScalarType kUInt8 = c10::ScalarType::Byte;
constexpr c10::ScalarType kFloat32 = c10::ScalarType::Float;
constexpr c10::ScalarType kFloat64 = c10::ScalarType::Double;
constexpr c10::ScalarType kInt64 = c10::ScalarType::Long;
TensorOptions dtype(c10::ScalarType type);
Tensor empty(c10::IntArrayRef size, TensorOptions options);
} // namespace torch

namespace pybind11 {
class handle {};
class object : public handle {};
class tuple : public object {};
template <typename... Args> tuple make_tuple(Args &&...args);
struct arg {
  explicit arg(const char *name);
};
struct module_local {
  explicit module_local(bool value = true);
};
struct accessor {
  template <typename T> accessor &operator=(T &&value);
};
class module_ : public object {
public:
  accessor doc();
  accessor attr(const char *name);
};
template <typename... Args> struct constructor {};
template <typename... Args> constructor<Args...> init();

template <typename T> class class_ : public object {
public:
  template <typename... Extra>
  class_(handle scope, const char *name, const Extra &...extra);

  /// A constructor: it must exist, with one py::arg per parameter.
  template <typename... Args, typename... Extra>
  class_ &def(constructor<Args...>, const Extra &...) {
    static_assert(std::is_constructible<T, Args...>::value,
                  "py::init<...> matches no constructor");
    static_assert(sizeof...(Extra) == sizeof...(Args),
                  "one py::arg per constructor parameter");
    return *this;
  }

  /// A method, with one py::arg per parameter.
  template <typename R, typename... Args, typename... Extra>
  class_ &def(const char *name, R (T::*method)(Args...), const Extra &...) {
    static_assert(sizeof...(Extra) == sizeof...(Args),
                  "one py::arg per method parameter");
    (void)name;
    (void)method;
    return *this;
  }
};
} // namespace pybind11

namespace py = pybind11;

#define PYBIND11_MODULE(name, variable)                                        \
  void pybind11_init_##name(::pybind11::module_ &variable)
