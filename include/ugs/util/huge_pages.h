#pragma once
// An allocator for big, short-lived buffers (the breadth-first frontier): allocations of 2 MiB and
// more are 2 MiB-aligned and marked for transparent huge pages, so filling them takes one page fault
// per 2 MiB instead of one per 4 KiB. On a virtual machine a fault costs tens of microseconds, and
// with 4 KiB pages the faults of a growing frontier cost more than building it.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace ugs {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHuge = size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHuge) {
      if (void* p = std::malloc(bytes)) return static_cast<T*>(p);
      throw std::bad_alloc();
    }
    const size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (!p) throw std::bad_alloc();
    ::madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without THP it changes nothing
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t) { std::free(p); }

  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace ugs
