// The command line's heap: mimalloc on 2 MiB pages where the kernel grants
// them. Linked into prefixroute-bench only: built in from Debian's mimalloc
// source when the benchmark is one static executable
// (cmake/static_mimalloc.cmake), else Debian's shared libmimalloc.
//
// Why: on a virtual machine a first touch of memory can cost more than the
// work done in it. On the AMD machine of docs/PERFORMANCE.md a 4 KiB page
// fault costs 14 - 16 µs (1.2 - 1.6 µs on its Intel one), and 0.3 µs a 4 KiB
// page in a range madvise(MADV_HUGEPAGE)d (`build/native/bench/prefixroute-page-faults`),
// and the reference scenario with every policy took 1,590 page faults with
// glibc's malloc and 1 job: ~25 ms of CPU at 16 µs, a third of the run.
// mimalloc's large_os_pages option madvises its segments for transparent
// huge pages (the kernel's "madvise" mode, Debian's default);
// eager_commit_delay 0 gives every thread's first segments the same, so a
// second job's memory is huge too. `perf stat -e minor-faults` on
// `prefixroute-bench --set policies=all --json ''`: 1,590 -> 170 faults with
// 1 job, 2,090 -> 220 with 2. The price is resident memory in 2 MiB steps
// (the conversation trace with one policy on 8 replicas: 10.6 -> 19.5 MiB
// peak, /usr/bin/time -f %M).
// allow_decommit 0: memory a run frees stays with the process for the next
// run instead of going back to the kernel. A thread's exit otherwise scans
// mimalloc's whole segment cache for memory to give back, a first touch of
// ~160 KiB of its tables: 40 page faults, ~0.5 ms the joining thread waits
// for at the end of every run pool. Peak memory is the same (the trace with
// every policy and 2 jobs: 52.7 against 52.8 MiB).
//
// The options are set from the executable's .preinit_array, which runs
// before any initialiser (a library's, or the C++ runtime's first
// allocations): mimalloc's first segment is already on huge pages.
// mimalloc reads an option from its MIMALLOC_* environment variable only
// when nothing set it, so a variable the user set is respected here
// (mimalloc 2.0's names: 2.1 renames large_os_pages' variable
// MIMALLOC_ALLOW_LARGE_OS_PAGES).
//
// Which allocations mimalloc serves: in the static executable C++'s new and
// delete (mimalloc_new_delete.cpp), in a build on the shared libmimalloc
// malloc itself. Results never depend on the allocator
// (bench/identical_results.sh).
#include <strings.h>

#include <cstring>

#include <mimalloc.h>

namespace {

// Whether `envp` (the process's initial environment) sets `variable`, in
// any case, as mimalloc reads its variables. getenv() cannot tell yet: the C
// library sets up its environment after the preinit functions, which receive
// it as their third argument instead.
bool in_environment(char** envp, const char* variable) {
  const std::size_t n = std::strlen(variable);
  for (char** e = envp; e != nullptr && *e != nullptr; ++e)
    if (strncasecmp(*e, variable, n) == 0 && (*e)[n] == '=') return true;
  return false;
}

void configure_heap(int, char**, char** envp) {
  if (!in_environment(envp, "MIMALLOC_LARGE_OS_PAGES")) mi_option_set(mi_option_large_os_pages, 1);
  if (!in_environment(envp, "MIMALLOC_EAGER_COMMIT_DELAY")) mi_option_set(mi_option_eager_commit_delay, 0);
  if (!in_environment(envp, "MIMALLOC_ALLOW_DECOMMIT")) mi_option_set(mi_option_allow_decommit, 0);
}

// An executable's preinit entry (as the sanitizers' runtimes register theirs).
[[gnu::used, gnu::section(".preinit_array")]] void (*const preinit_configure_heap)(int, char**, char**) = &configure_heap;

}  // namespace
