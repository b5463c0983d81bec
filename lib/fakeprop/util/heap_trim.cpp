#include "fakeprop/util/heap_trim.h"

#include <atomic>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace fakeprop {

namespace {
std::atomic<bool> allowed{false};
std::atomic<uint64_t> trims{0};
}  // namespace

void allow_heap_trimming(bool a) { allowed.store(a, std::memory_order_relaxed); }

bool heap_trimming_allowed() { return allowed.load(std::memory_order_relaxed); }

void trim_heap() {
  if (!heap_trimming_allowed()) return;
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
  trims.fetch_add(1, std::memory_order_relaxed);
}

uint64_t heap_trims_done() { return trims.load(std::memory_order_relaxed); }

}  // namespace fakeprop
