// RequestSpill: requests kept in a temporary file instead of memory, so a
// replay of any length streams: the trace file is read and validated once,
// its requests are appended here in a compact binary form, and every run of
// the experiment reads them back front to back (open()), each reader with its
// own position and a 1 MiB buffer. Memory: O(1) per reader (plus the largest
// request's pieces); disk: per request 32 bytes plus 16 per prompt piece.
//
// The file is unlinked as soon as it is created: only the spill's open
// descriptor keeps it, so it disappears with the spill or with the process,
// however the process ends (a killed run leaves nothing in the temporary
// directory). Readers read it with pread(), so any number read at once.
//
// Format (native byte order, the writer's and readers' machine being one):
// per request { i64 arrival, u64 output_tokens, u64 session, u32 turn,
// u32 pieces } then `pieces` x { u64 run, u32 offset, u32 length }.
//
// Thread safety: after finish(), open() may be called from several threads,
// and each reader used by one thread.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "prefixroute/base/content.h"
#include "prefixroute/workload/request_source.h"

namespace prefixroute {

class RequestSpill {
 public:
  /// A new, empty spill in the temporary directory ($TMPDIR, else /tmp), or
  /// null with `error` set when no file could be created there.
  static std::unique_ptr<RequestSpill> create(std::string& error);
  ~RequestSpill();
  RequestSpill(const RequestSpill&) = delete;
  RequestSpill& operator=(const RequestSpill&) = delete;

  /// Appends a request (arrivals must not decrease). False when the disk
  /// refused the write (then the spill is unusable).
  bool append(const SourcedRequest& request);
  /// Ends writing; false when the file could not be completed.
  bool finish();

  std::uint64_t size() const { return requests_; }
  Tick last_arrival() const { return last_arrival_; }
  /// Bytes written (the file's length once finished).
  std::uint64_t bytes() const { return bytes_; }

  /// A fresh reader of every request, in order, whose prompts are pieces of
  /// `content` (which must outlive it) and whose has_sessions() says
  /// `has_sessions`; null when the spill is not finished
  /// or writing it failed. The reader's next() throws std::runtime_error
  /// when the file cannot be read (an I/O error, a file cut short), so a
  /// stream never ends early without saying so.
  std::unique_ptr<RequestSource> open(const Content& content, bool has_sessions = false) const;

 private:
  RequestSpill(int fd, std::FILE* writer) : fd_(fd), writer_(writer) {}

  int fd_;              // the unlinked file; readers pread() it
  std::FILE* writer_;   // a duplicate descriptor, buffered, while writing
  std::vector<char> scratch_;  // one request's pieces, as written
  std::uint64_t requests_ = 0;
  std::uint64_t bytes_ = 0;
  Tick last_arrival_ = 0;
  bool failed_ = false;
};

}  // namespace prefixroute
