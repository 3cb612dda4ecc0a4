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

// Bytes in such a buffer: encoded states (the frontier's bases, checkpoints).
using HugeBytes = std::vector<uint8_t, HugePageAllocator<uint8_t>>;

}  // namespace ugs
