#pragma once
// A vector with its capacity fixed at compile time: trivially copyable when T is, so a graph built
// from these copies by assignment and undoes a step by pop_back (the search's states are values).
#include <array>
#include <cassert>
#include <cstdint>
#include <span>

namespace ugs {

template <class T, int N>
class FixedVec {
 public:
  static constexpr int kCapacity = N;

  constexpr int size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr bool full() const { return size_ == N; }
  constexpr void clear() { size_ = 0; }

  constexpr void push_back(const T& v) {
    assert(size_ < N);
    items_[size_++] = v;
  }
  // The slot past the end, to build an item in place and then append it with push_spare(). An item
  // copied in whole right after it was built field by field (byte and word stores) waits for those
  // stores to retire, store forwarding failing; on the search's hot paths that wait cost more than
  // the rest of the push.
  constexpr T& spare() {
    assert(size_ < N);
    return items_[size_];
  }
  constexpr void push_spare() {
    assert(size_ < N);
    ++size_;
  }
  constexpr void pop_back() {
    assert(size_ > 0);
    --size_;
  }
  constexpr void resize(int n) {
    assert(n >= 0 && n <= N);
    for (int i = size_; i < n; ++i) items_[i] = T{};
    size_ = n;
  }

  constexpr T& operator[](int i) {
    assert(i >= 0 && i < size_);
    return items_[i];
  }
  constexpr const T& operator[](int i) const {
    assert(i >= 0 && i < size_);
    return items_[i];
  }
  constexpr T& back() { return (*this)[size_ - 1]; }
  constexpr const T& back() const { return (*this)[size_ - 1]; }

  constexpr T* begin() { return items_.data(); }
  constexpr T* end() { return items_.data() + size_; }
  constexpr const T* begin() const { return items_.data(); }
  constexpr const T* end() const { return items_.data() + size_; }
  constexpr std::span<const T> span() const { return {items_.data(), static_cast<size_t>(size_)}; }

  friend constexpr bool operator==(const FixedVec& a, const FixedVec& b) {
    if (a.size_ != b.size_) return false;
    for (int i = 0; i < a.size_; ++i)
      if (!(a.items_[i] == b.items_[i])) return false;
    return true;
  }

 private:
  std::array<T, N> items_{};
  int size_ = 0;
};

}  // namespace ugs
