// A vector that costs one pointer while it is empty, for lists that almost
// always are (a run record's unbacked bindings, a node's second and later
// outputs): std::vector's three pointers per record added up on big graphs.
#pragma once
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace fakeprop {

template <class T>
class ThinVector {
 public:
  ThinVector() = default;
  ThinVector(const ThinVector& o) : v_(o.v_ ? std::make_unique<std::vector<T>>(*o.v_) : nullptr) {}
  ThinVector(ThinVector&&) noexcept = default;
  ThinVector& operator=(const ThinVector& o) {
    if (this != &o) v_ = o.v_ ? std::make_unique<std::vector<T>>(*o.v_) : nullptr;
    return *this;
  }
  ThinVector& operator=(ThinVector&&) noexcept = default;

  bool empty() const { return !v_ || v_->empty(); }
  size_t size() const { return v_ ? v_->size() : 0; }
  T& operator[](size_t i) { return (*v_)[i]; }
  const T& operator[](size_t i) const { return (*v_)[i]; }
  T& front() { return v_->front(); }
  const T& front() const { return v_->front(); }
  T& back() { return v_->back(); }
  const T& back() const { return v_->back(); }
  T* begin() { return v_ ? v_->data() : nullptr; }
  T* end() { return v_ ? v_->data() + v_->size() : nullptr; }
  const T* begin() const { return v_ ? v_->data() : nullptr; }
  const T* end() const { return v_ ? v_->data() + v_->size() : nullptr; }

  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (!v_) v_ = std::make_unique<std::vector<T>>();
    return v_->emplace_back(std::forward<Args>(args)...);
  }
  void push_back(T x) { emplace_back(std::move(x)); }

  // The elements as a std::vector (a copy).
  std::vector<T> to_vector() const { return v_ ? *v_ : std::vector<T>{}; }
  friend bool operator==(const ThinVector& a, const ThinVector& b) {
    return a.size() == b.size() && (a.empty() || *a.v_ == *b.v_);
  }

 private:
  std::unique_ptr<std::vector<T>> v_;
};

}  // namespace fakeprop
