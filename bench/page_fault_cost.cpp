// What a first touch of memory costs on this machine: the figure behind
// prefixroute-bench's heap (tools/huge_page_heap.cpp, docs/PERFORMANCE.md,
// "Page faults and the heap").
//
//   build/native/bench/prefixroute-page-faults [pages] [rounds]   (default 4096 pages, 5 rounds)
//
// Each round maps `pages` fresh 4 KiB pages (anonymous, private) three ways
// and times writing one byte to each page:
//   4 KiB pages     a page fault per page (the kernel zeroes and maps it);
//   populated       MAP_POPULATE maps them all in the mmap call first (timed
//                   with the touches: a virtual machine may still trap on each
//                   first touch);
//   huge pages      the range madvise(MADV_HUGEPAGE)d: a fault per 2 MiB
//                   where the kernel grants transparent huge pages.
// Prints microseconds per 4 KiB page for each, and the kernel's THP mode.
#include <sys/mman.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kHuge = 2 * 1024 * 1024;

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Writes one byte to each page of [p, p + bytes); the compiler may not drop the stores.
void touch(volatile char* p, std::size_t bytes) {
  for (std::size_t i = 0; i < bytes; i += kPage) p[i] = 1;
}

// Microseconds per page to map (with `flags`) and touch `pages` pages; -1 if mmap failed.
double mapped_touch(std::size_t pages, int flags) {
  const std::size_t bytes = pages * kPage;
  const double start = now_us();
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
  if (p == MAP_FAILED) return -1;
  touch(static_cast<char*>(p), bytes);
  const double per_page = (now_us() - start) / static_cast<double>(pages);
  munmap(p, bytes);
  return per_page;
}

// The same for a 2 MiB-aligned range advised for transparent huge pages.
double huge_touch(std::size_t pages) {
  const std::size_t bytes = pages * kPage;
  const double start = now_us();  // the mapping and the advice timed too, as the others' mmap
  void* raw = mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return -1;
  const auto aligned = (reinterpret_cast<std::uintptr_t>(raw) + kHuge - 1) & ~std::uintptr_t{kHuge - 1};
  char* p = reinterpret_cast<char*>(aligned);
  const bool advised = madvise(p, bytes, MADV_HUGEPAGE) == 0;
  touch(p, bytes);
  const double per_page = (now_us() - start) / static_cast<double>(pages);
  munmap(raw, bytes + kHuge);
  return advised ? per_page : -1;
}

std::string thp_mode() {
  std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(in, line);
  return line.empty() ? "unknown" : line;
}

}  // namespace

int main(int argc, char** argv) {
  const long pages = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 4096;
  const long rounds = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 5;
  if (pages < 1 || rounds < 1) {
    std::fprintf(stderr, "usage: %s [pages >= 1] [rounds >= 1]\n", argv[0]);
    return 2;
  }
  std::printf("transparent huge pages: %s\n", thp_mode().c_str());
  std::printf("us per 4 KiB page, %ld pages: 4 KiB pages | populated | huge pages\n", pages);
  for (long r = 0; r < rounds; ++r) {
    const double plain = mapped_touch(static_cast<std::size_t>(pages), 0);
    const double populated = mapped_touch(static_cast<std::size_t>(pages), MAP_POPULATE);
    const double huge = huge_touch(static_cast<std::size_t>(pages));
    std::printf("round %ld: %.2f | %.2f | %.2f\n", r + 1, plain, populated, huge);
  }
  return 0;
}
