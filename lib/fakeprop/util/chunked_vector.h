// A vector stored in fixed-size chunks, whose chunks can be freed one at a
// time once every element in them has been released. A run that consumes its
// model releases each node after running it (onnx::Interpreter), so the node
// array shrinks while the records grow instead of peaking beside them.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

#include "fakeprop/util/index_iterator.h"

namespace fakeprop {

template <class T, size_t kChunk = 256>
class ChunkedVector {
  struct Chunk {
    std::vector<T> items;  // capacity kChunk once used: elements never move
    size_t live = 0;       // elements not yet released
  };

 public:
  using value_type = T;
  using iterator = IndexIterator<ChunkedVector, false>;
  using const_iterator = IndexIterator<ChunkedVector, true>;

  ChunkedVector() = default;
  // A copy's chunks get their full capacity too, so its elements never move either.
  ChunkedVector(const ChunkedVector& o) : size_(o.size_) {
    chunks_.reserve(o.chunks_.size());
    for (const Chunk& c : o.chunks_) {
      Chunk& copy = chunks_.emplace_back();
      copy.live = c.live;
      if (c.items.empty()) continue;
      copy.items.reserve(kChunk);
      copy.items.assign(c.items.begin(), c.items.end());
    }
  }
  ChunkedVector(ChunkedVector&&) noexcept = default;
  ChunkedVector& operator=(const ChunkedVector& o) {
    if (this != &o) *this = ChunkedVector(o);
    return *this;
  }
  ChunkedVector& operator=(ChunkedVector&&) noexcept = default;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](size_t i) { return chunks_[i / kChunk].items[i % kChunk]; }
  const T& operator[](size_t i) const { return chunks_[i / kChunk].items[i % kChunk]; }
  T& front() { return (*this)[0]; }
  const T& front() const { return (*this)[0]; }
  T& back() { return (*this)[size_ - 1]; }
  const T& back() const { return (*this)[size_ - 1]; }
  iterator begin() { return {this, 0}; }
  iterator end() { return {this, size_}; }
  const_iterator begin() const { return {this, 0}; }
  const_iterator end() const { return {this, size_}; }

  void push_back(T v) { emplace_back(std::move(v)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ % kChunk == 0) chunks_.emplace_back().items.reserve(kChunk);
    Chunk& c = chunks_.back();
    ++c.live;
    ++size_;
    return c.items.emplace_back(std::forward<Args>(args)...);
  }

  // Element i is reset to T{} now (each element at most once), and its chunk
  // is freed once every element in it has been released; reading an element
  // of a freed chunk is an error.
  void release(size_t i) {
    Chunk& c = chunks_[i / kChunk];
    c.items[i % kChunk] = T{};
    if (--c.live == 0) std::vector<T>().swap(c.items);
  }
  // Chunks still holding elements (tests).
  size_t live_chunks() const {
    size_t n = 0;
    for (const Chunk& c : chunks_) n += !c.items.empty();
    return n;
  }

 private:
  std::vector<Chunk> chunks_;
  size_t size_ = 0;
};

}  // namespace fakeprop
