// A forward iterator by position over a container with operator[] whose
// elements need not be contiguous (ChunkedVector, OutputList).
#pragma once
#include <cstddef>
#include <iterator>
#include <type_traits>

namespace fakeprop {

template <class Container, bool kConst>
class IndexIterator {
  using Element = typename Container::value_type;

 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Element;
  using difference_type = std::ptrdiff_t;
  using pointer = std::conditional_t<kConst, const Element*, Element*>;
  using reference = std::conditional_t<kConst, const Element&, Element&>;
  using Owner = std::conditional_t<kConst, const Container, Container>;

  IndexIterator() = default;
  IndexIterator(Owner* c, size_t i) : c_(c), i_(i) {}
  reference operator*() const { return (*c_)[i_]; }
  pointer operator->() const { return &(*c_)[i_]; }
  IndexIterator& operator++() {
    ++i_;
    return *this;
  }
  IndexIterator operator++(int) {
    IndexIterator old = *this;
    ++i_;
    return old;
  }
  bool operator==(const IndexIterator& o) const { return i_ == o.i_; }

 private:
  Owner* c_ = nullptr;
  size_t i_ = 0;
};

}  // namespace fakeprop
