// An optional value kept on the heap: the size of one pointer when empty,
// which is the common case for fields like a tensor's known elements or an
// attribute's rarely used lists. Copies are deep, as std::optional's are,
// and the interface is the subset of std::optional the code base uses.
#pragma once
#include <memory>
#include <optional>
#include <utility>

namespace fakeprop {

template <typename T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}  // NOLINT: implicit, as std::optional's
  Boxed(T value) : ptr_(std::make_unique<T>(std::move(value))) {}  // NOLINT
  Boxed(std::optional<T> value) {  // NOLINT
    if (value) ptr_ = std::make_unique<T>(std::move(*value));
  }
  Boxed(const Boxed& other) : ptr_(other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& other) {
    if (this != &other) ptr_ = other.ptr_ ? std::make_unique<T>(*other.ptr_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    ptr_.reset();
    return *this;
  }

  // A copy as std::optional, for code written against std::optional.
  operator std::optional<T>() const {  // NOLINT: implicit by design
    return ptr_ ? std::optional<T>(*ptr_) : std::nullopt;
  }

  bool has_value() const { return ptr_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *ptr_; }
  const T& operator*() const { return *ptr_; }
  T* operator->() { return ptr_.get(); }
  const T* operator->() const { return ptr_.get(); }
  T& value() { return checked(); }
  const T& value() const { return const_cast<Boxed*>(this)->checked(); }
  void reset() { ptr_.reset(); }
  template <typename... Args>
  T& emplace(Args&&... args) {
    ptr_ = std::make_unique<T>(std::forward<Args>(args)...);
    return *ptr_;
  }
  // The value, created empty when absent (for building one up in place).
  T& get_or_create() {
    if (!ptr_) ptr_ = std::make_unique<T>();
    return *ptr_;
  }

 private:
  T& checked() {
    if (!ptr_) throw std::bad_optional_access();
    return *ptr_;
  }
  std::unique_ptr<T> ptr_;
};

}  // namespace fakeprop
