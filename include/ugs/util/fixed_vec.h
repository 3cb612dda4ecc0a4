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

  constexpr int size() const { return n_; }
  constexpr bool empty() const { return n_ == 0; }
  constexpr bool full() const { return n_ == N; }
  constexpr void clear() { n_ = 0; }

  constexpr void push_back(const T& v) {
    assert(n_ < N);
    items_[n_++] = v;
  }
  // The slot past the end, to build an item in place and then append it with push_spare(). An item
  // copied in whole right after it was built field by field (byte and word stores) waits for those
  // stores to retire, store forwarding failing; on the search's hot paths that wait cost more than
  // the rest of the push.
  constexpr T& spare() {
    assert(n_ < N);
    return items_[n_];
  }
  constexpr void push_spare() {
    assert(n_ < N);
    ++n_;
  }
  constexpr void pop_back() {
    assert(n_ > 0);
    --n_;
  }
  constexpr void resize(int n) {
    assert(n >= 0 && n <= N);
    for (int i = n_; i < n; ++i) items_[i] = T{};
    n_ = n;
  }

  constexpr T& operator[](int i) {
    assert(i >= 0 && i < n_);
    return items_[i];
  }
  constexpr const T& operator[](int i) const {
    assert(i >= 0 && i < n_);
    return items_[i];
  }
  constexpr T& back() { return (*this)[n_ - 1]; }
  constexpr const T& back() const { return (*this)[n_ - 1]; }

  constexpr T* begin() { return items_.data(); }
  constexpr T* end() { return items_.data() + n_; }
  constexpr const T* begin() const { return items_.data(); }
  constexpr const T* end() const { return items_.data() + n_; }
  constexpr std::span<const T> span() const { return {items_.data(), static_cast<size_t>(n_)}; }

  friend constexpr bool operator==(const FixedVec& a, const FixedVec& b) {
    if (a.n_ != b.n_) return false;
    for (int i = 0; i < a.n_; ++i)
      if (!(a.items_[i] == b.items_[i])) return false;
    return true;
  }

 private:
  std::array<T, N> items_{};
  int n_ = 0;
};

}  // namespace ugs
