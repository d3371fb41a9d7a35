// A small fork-join pool: run tasks 0 .. n-1 on up to `jobs` threads.
//
// What it models: independent runs of one experiment (the policies, the
// bounds, the seeds of replicates, the points of a sweep) that share only
// read-only inputs. Each task writes its result into a slot of its own,
// indexed by the task, so the caller assembles results in task order and the
// outcome is the same bytes whatever the number of threads.
//
// Invariants
//   * every task index in [0, n) runs exactly once, unless a task throws: then
//     no further task starts, the others running finish, and the first
//     exception is rethrown on the calling thread;
//   * tasks are handed out in increasing index order (a shared counter): a
//     task starts only once every lower index has started, and at most
//     `jobs` run at once (callers rely on it to bound memory: see
//     core/src/run_list.cpp's workload slots);
//   * jobs <= 1, n <= 1, or a build without threads (Emscripten here: no
//     pthreads) runs every task inline, in order, on the calling thread.
//
// Cost: jobs - 1 threads created per call (the calling thread works too); a
// task is one atomic increment plus the call. Meant for tasks of milliseconds
// or more, not for fine-grained loops.
#pragma once

#include <cstddef>
#include <functional>

namespace prefixroute {

/// Calls task(i) once for every i in [0, n), on up to `jobs` threads
/// (the calling thread included). Returns when every task has returned.
void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& task);

/// The number of jobs "all cores" means here: std::thread::hardware_concurrency(),
/// at least 1; 1 in a build without threads.
unsigned hardware_jobs();

}  // namespace prefixroute
