#include "prefixroute/sim/tick_spill.h"

#include "prefixroute/base/temp_file.h"
#include "prefixroute/sim/metrics.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace prefixroute {
namespace {

constexpr std::size_t kBlockValues = 8192;  // 64 KiB a write, a read
constexpr int kDigitBits = 12;
constexpr std::uint64_t kDigitMask = (std::uint64_t{1} << kDigitBits) - 1;

// Order-preserving key of a signed tick: flipping the sign bit makes unsigned
// order the signed one.
std::uint64_t key_of(Tick t) { return static_cast<std::uint64_t>(t) ^ (std::uint64_t{1} << 63); }
Tick tick_of(std::uint64_t key) { return static_cast<Tick>(key ^ (std::uint64_t{1} << 63)); }

// The file calls go through these three so that the WebAssembly module links
// none of them: any use of a file descriptor would pull Emscripten's file
// system layer (about 50 KB of JavaScript) into the page's download. There
// open_unlinked() fails, so the values stay in memory and the others are
// never reached.
#ifdef __EMSCRIPTEN__
ssize_t write_at(int, const char*, std::size_t, off_t) { return -1; }
ssize_t read_at(int, char*, std::size_t, off_t) { return -1; }
void close_fd(int) {}
#else
ssize_t write_at(int fd, const char* bytes, std::size_t n, off_t at) { return pwrite(fd, bytes, n, at); }
ssize_t read_at(int fd, char* bytes, std::size_t n, off_t at) { return pread(fd, bytes, n, at); }
void close_fd(int fd) { close(fd); }
#endif

int open_unlinked() {
#ifdef __EMSCRIPTEN__
  return -1;  // the page's file system is memory: keeping the vector is cheaper
#else
  std::string error;  // no file: the values stay in memory
  return open_unlinked_temp_file("prefixroute-results", error);
#endif
}

}  // namespace

TickSpill::TickSpill() {
  buffer_.reserve(kBlockValues);  // before the file: nothing can throw once it is open
  fd_ = open_unlinked();
  failed_ = fd_ < 0;
}

TickSpill::~TickSpill() {
  if (fd_ >= 0) close_fd(fd_);
}

void TickSpill::append(Tick value) {
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  ++count_;
  const auto u = static_cast<std::uint64_t>(value);
  sum_low_ += u;
  if (sum_low_ < u) ++sum_high_;
  buffer_.push_back(value);
  if (!failed_ && buffer_.size() == kBlockValues) flush();
}

void TickSpill::flush() {
  const auto* bytes = reinterpret_cast<const char*>(buffer_.data());
  const std::size_t total = buffer_.size() * sizeof(Tick);
  std::size_t done = 0;
  while (done < total) {
    const ssize_t n = write_at(fd_, bytes + done, total - done, static_cast<off_t>(written_ * sizeof(Tick) + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      // Keep this block and everything after it in memory; a partly
      // written block is simply overwritten by nothing (written_ unchanged).
      failed_ = true;
      return;
    }
    done += static_cast<std::size_t>(n);
  }
  written_ += buffer_.size();
  buffer_.clear();
}

template <class F>
void TickSpill::for_each_block(F&& f) const {
  if (written_ > 0) {
    std::vector<Tick> block(kBlockValues);
    for (std::uint64_t at = 0; at < written_;) {
      const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(kBlockValues, written_ - at));
      auto* bytes = reinterpret_cast<char*>(block.data());
      std::size_t got = 0;
      while (got < want * sizeof(Tick)) {
        const ssize_t n = read_at(fd_, bytes + got, want * sizeof(Tick) - got,
                                static_cast<off_t>(at * sizeof(Tick) + got));
        if (n < 0 && errno == EINTR) continue;
        // The file was written by this process and never truncated: a short
        // read is an I/O error of the disk itself, which nothing can recover.
        if (n <= 0) std::abort();
        got += static_cast<std::size_t>(n);
      }
      f(std::span<const Tick>(block.data(), want));
      at += want;
    }
  }
  if (!buffer_.empty()) f(std::span<const Tick>(buffer_));
}

std::vector<Tick> TickSpill::nearest_rank(std::span<const std::uint32_t> percents) const {
  const std::uint64_t n = count_;
  struct Target {
    std::uint64_t rank;    // 1-based, among the values that share `prefix`
    std::uint64_t prefix;  // the key's bits above `shift`, decided so far
  };
  std::vector<Target> targets;
  for (const std::uint32_t percent : percents) targets.push_back(Target{prefixroute::nearest_rank(percent, n), 0});
  // Bits above the highest one where the extremes differ are common to every
  // value: the select starts below them.
  const std::uint64_t low = key_of(min_), high = key_of(max_);
  const int width = 64 - std::countl_zero(low ^ high);
  const int passes = (width + kDigitBits - 1) / kDigitBits;
  int shift = passes * kDigitBits;  // bits of the key not decided yet
  const std::uint64_t common = shift >= 64 ? 0 : low >> shift;
  for (Target& t : targets) t.prefix = common;
  std::vector<std::uint64_t> counts(targets.size() << kDigitBits);
  for (int pass = 0; pass < passes; ++pass) {
    const int above = shift;  // the prefix covers the key's bits from `above` up
    shift -= kDigitBits;
    std::fill(counts.begin(), counts.end(), 0);
    for_each_block([&](std::span<const Tick> values) {
      for (const Tick v : values) {
        const std::uint64_t key = key_of(v);
        const std::uint64_t prefix = above >= 64 ? 0 : key >> above;
        const std::size_t digit = static_cast<std::size_t>((key >> shift) & kDigitMask);
        for (std::size_t j = 0; j < targets.size(); ++j)
          if (targets[j].prefix == prefix) ++counts[(j << kDigitBits) + digit];
      }
    });
    for (std::size_t j = 0; j < targets.size(); ++j) {
      Target& t = targets[j];
      // The counts of the values sharing t's prefix sum to at least its
      // rank (it was chosen among them), so a digit is found.
      std::uint64_t digit = 0;
      for (; digit + 1 < (std::uint64_t{1} << kDigitBits); ++digit) {
        const std::uint64_t c = counts[(j << kDigitBits) + digit];
        if (t.rank <= c) break;
        t.rank -= c;
      }
      t.prefix = (t.prefix << kDigitBits) | digit;
    }
  }
  std::vector<Tick> out;
  out.reserve(targets.size());
  // After the passes the prefix is the whole key (no pass: every value is low).
  for (const Target& t : targets) out.push_back(passes == 0 ? min_ : tick_of(t.prefix));
  return out;
}

}  // namespace prefixroute
