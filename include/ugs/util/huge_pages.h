#pragma once
// An allocator for big, long-lived buffers (the breadth-first frontier's slabs): their pages are
// populated when allocated, in one system call, instead of faulting in one at a time as they are
// first written: on a virtual machine a fault costs microseconds, and the faults of a growing
// frontier cost more than building it. Allocations of 2 MiB and more are also 2 MiB-aligned and
// marked for transparent huge pages (one page per 2 MiB).
#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace ugs {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHuge = size_t{2} << 20;
  static constexpr size_t kPopulate = size_t{64} << 10;  // smaller buffers come from the heap's own pages

  // Advice too: a kernel before Linux 5.14 refuses it, and the pages fault in as they are written.
  static void populate(void* p, size_t bytes) {
    constexpr uintptr_t kPage = 4096;
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kPage - 1) & ~(kPage - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kPage - 1);
    if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_POPULATE_WRITE);
  }

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHuge) {
      void* p = std::malloc(bytes);
      if (!p) throw std::bad_alloc();
      if (bytes >= kPopulate) populate(p, bytes);
      return static_cast<T*>(p);
    }
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (!p) throw std::bad_alloc();
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP it changes nothing
    populate(p, rounded);
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

// A fixed array of trivial T, zero until written, on pages of its own mapped for it: 2 MiB-aligned and
// marked for transparent huge pages, so that random reads over a big table (a hash table's probes) miss
// the TLB far less often. The kernel zeroes a page as it is first touched, or, with `populate`, all of
// them at once. Move-only; unmapped whole when destroyed.
template <class T>
class HugeArray {
 public:
  HugeArray() = default;
  explicit HugeArray(size_t n, bool populate = false) : size_(n) {
    static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>);
    constexpr size_t kHuge = HugePageAllocator<T>::kHuge;
    bytes_ = (n * sizeof(T) + kHuge - 1) / kHuge * kHuge;
    if (bytes_ == 0) return;
    // Mapped a huge page longer than needed, then cut to the aligned middle.
    void* raw = ::mmap(nullptr, bytes_ + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = reinterpret_cast<uintptr_t>(raw);
    const uintptr_t aligned = (start + kHuge - 1) & ~(kHuge - 1);
    if (aligned > start) ::munmap(raw, aligned - start);
    if (const size_t tail = start + kHuge - aligned; tail > 0)
      ::munmap(reinterpret_cast<void*>(aligned + bytes_), tail);
    data_ = reinterpret_cast<T*>(aligned);
    ::madvise(data_, bytes_, MADV_HUGEPAGE);  // advice only: without THP it changes nothing
    if (populate) HugePageAllocator<T>::populate(data_, bytes_);
  }
  HugeArray(HugeArray&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)),
        bytes_(std::exchange(other.bytes_, 0)) {}
  HugeArray& operator=(HugeArray&& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(bytes_, other.bytes_);
    return *this;
  }
  HugeArray(const HugeArray&) = delete;
  HugeArray& operator=(const HugeArray&) = delete;
  ~HugeArray() {
    if (data_) ::munmap(data_, bytes_);
  }

  T* data() const { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0, bytes_ = 0;
};

// Bytes in such a buffer: encoded states (the frontier's bases, checkpoints).
using HugeBytes = std::vector<uint8_t, HugePageAllocator<uint8_t>>;

}  // namespace ugs
