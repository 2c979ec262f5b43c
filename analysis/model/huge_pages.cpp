#include "model/huge_pages.h"

#include <sys/mman.h>
#include <unistd.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>

namespace fscost {

void advise_huge_pages(const void* p, std::size_t n) {
#ifdef MADV_HUGEPAGE
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  if (n < kHugePageAdviceMin) return;
  const auto begin = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t last = (begin + n) & ~(kHuge - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)p;
  (void)n;
#endif
}

void grow_heap_in_huge_pages(std::size_t bytes) {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE)
  if (bytes < kHugePageAdviceMin) return;
  constexpr int kLargestMmapThreshold = 32 << 20;
  mallopt(M_MMAP_THRESHOLD, kLargestMmapThreshold);
  // free() must not give the top back, nor grow it again by 4 KiB steps.
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(std::min<std::size_t>(bytes * 2, INT_MAX)));
  mallopt(M_TOP_PAD, static_cast<int>(std::min<std::size_t>(bytes, INT_MAX)));
  // A block larger than anything free (the heap holds a few hundred KB
  // when a command starts) makes malloc grow the heap, by the pad more;
  // freed, it joins the free top.
  constexpr std::size_t kBlock = std::size_t{16} << 20;
  void* edge = sbrk(0);
  void* block = std::malloc(kBlock);
  asm volatile("" : : "r"(block) : "memory");  // kept: a malloc and free of nothing are elided
  void* end = sbrk(0);
  std::free(block);
  if (edge != reinterpret_cast<void*>(-1) && end > edge)
    advise_huge_pages(edge, static_cast<std::size_t>(static_cast<char*>(end) -
                                                     static_cast<char*>(edge)));
  mallopt(M_TOP_PAD, 128 << 10);  // the documented default
#else
  (void)bytes;
#endif
}

}  // namespace fscost
