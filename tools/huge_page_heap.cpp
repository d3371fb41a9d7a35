// The command line's heap: mimalloc (Debian's libmimalloc-dev, linked into
// prefixroute-bench only) on 2 MiB pages where the kernel grants them.
//
// Why: on a virtual machine a first touch of memory can cost more than the
// work done in it. On the project's machines (Firecracker, paravirtualised
// memory) a 4 KiB page fault costs 14 - 16 µs, and 0.3 µs a 4 KiB page in a
// range madvise(MADV_HUGEPAGE)d (`build/native/bench/prefixroute-page-faults`),
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
//
// The options are set from the executable's .preinit_array, which the
// dynamic loader runs before any library's initialiser: the C++ runtime's
// first allocations (before main) already come from huge-page segments.
// mimalloc reads an option from its MIMALLOC_* environment variable only
// when nothing set it, so a variable the user set is respected here
// (spelled in capitals; mimalloc 2.0's names: 2.1 renames large_os_pages'
// variable MIMALLOC_ALLOW_LARGE_OS_PAGES).
// Results never depend on the allocator (bench/identical_results.sh).
#include <cstring>

#include <mimalloc.h>

namespace {

// Whether `envp` (the process's initial environment) sets `variable`.
// getenv() cannot tell yet: the C library sets up its environment after the
// preinit functions, which receive it as their third argument instead.
bool in_environment(char** envp, const char* variable) {
  const std::size_t n = std::strlen(variable);
  for (char** e = envp; e != nullptr && *e != nullptr; ++e)
    if (std::strncmp(*e, variable, n) == 0 && (*e)[n] == '=') return true;
  return false;
}

void configure_heap(int, char**, char** envp) {
  if (!in_environment(envp, "MIMALLOC_LARGE_OS_PAGES")) mi_option_set(mi_option_large_os_pages, 1);
  if (!in_environment(envp, "MIMALLOC_EAGER_COMMIT_DELAY")) mi_option_set(mi_option_eager_commit_delay, 0);
}

// An executable's preinit entry (as the sanitizers' runtimes register theirs).
[[gnu::used, gnu::section(".preinit_array")]] void (*const preinit_configure_heap)(int, char**, char**) = &configure_heap;

}  // namespace
