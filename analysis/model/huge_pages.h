// Large buffers backed by transparent huge pages where the kernel allows.
//
// A reader fills tens of megabytes it has just allocated (a file's text,
// simdjson's tape and index), and every 4 KiB page of it is a page fault
// on first touch. On a guest whose page faults trap to the host, those
// were a third of `fscost flamegraph` (issue 41: pvm_irq_enable and
// clear_page under exc_page_fault); one fault per 2 MiB page halves the
// command. With transparent_hugepage "madvise" (Debian's default) the
// kernel uses huge pages only where asked; with "never" this does nothing.
#pragma once

#include <cstddef>

namespace fscost {

// Below this, a buffer spans too few huge pages to ask.
inline constexpr std::size_t kHugePageAdviceMin = std::size_t{4} << 20;

// Advises huge pages for the 2 MiB-aligned part of [p, p + n), before it is
// first written. Only a hint: errors are ignored, contents and lifetime
// are untouched, nothing happens below kHugePageAdviceMin.
void advise_huge_pages(const void* p, std::size_t n);

// Grows the heap by about `bytes` now, in huge pages, for a command about to
// fill it with many small allocations (a profile's stacks: tens of MB in
// 100k vectors, which no caller can advise one by one). The memory stays
// with malloc: pages are only made when touched, so what is not used costs
// address space only. Heap blocks up to 32 MiB come from the heap from
// then on (glibc's largest mmap threshold), so they land there too. Only
// with glibc; a hint like advise_huge_pages, nothing below
// kHugePageAdviceMin.
void grow_heap_in_huge_pages(std::size_t bytes);

}  // namespace fscost
