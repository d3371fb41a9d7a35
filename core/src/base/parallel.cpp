#include "prefixroute/base/parallel.h"

#ifndef __EMSCRIPTEN__
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>
#endif

namespace prefixroute {

#ifdef __EMSCRIPTEN__

// Emscripten 3.1.6 here is built without pthreads: every run is inline.
void parallel_for(std::size_t n, unsigned, const std::function<void(std::size_t)>& task) {
  for (std::size_t i = 0; i < n; ++i) task(i);
}

unsigned hardware_jobs() { return 1; }

#else

void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t)>& task) {
  const std::size_t threads = std::min<std::size_t>(jobs == 0 ? 1 : jobs, n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) task(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr first_error;
  std::mutex error_mutex;
  const auto work = [&] {
    while (!failed.load(std::memory_order_relaxed)) {
      const std::size_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= n) return;
      try {
        task(i);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(error_mutex);
        if (!first_error) first_error = std::current_exception();
        failed.store(true, std::memory_order_relaxed);
      }
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (first_error) std::rethrow_exception(first_error);
}

unsigned hardware_jobs() { return std::max(1u, std::thread::hardware_concurrency()); }

#endif

}  // namespace prefixroute
