// Whether a run may hand the process's free heap back to the system.
// malloc_trim walks and releases the whole process's free lists, not the
// run's: in a host process (the Python package) that has freed a large heap
// it costs tens of milliseconds each time, so only the command line, which
// owns its process, opts in. Off by default.
#pragma once
#include <cstddef>
#include <cstdint>

namespace fakeprop {

void allow_heap_trimming(bool allowed);
bool heap_trimming_allowed();
// Releases the free heap pages (glibc's malloc_trim) when allowed; counts each.
void trim_heap();
// How many trims this process has done (tests read it).
uint64_t heap_trims_done();

}  // namespace fakeprop
