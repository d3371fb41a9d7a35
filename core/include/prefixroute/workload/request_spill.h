// RequestSpill: requests kept in a temporary file instead of memory, so a
// replay of any length streams: the trace file is read and validated once,
// its requests are appended here in a compact binary form, and every run of
// the experiment reads them back front to back (open()), each with its own
// file handle and a 1 MiB buffer. Memory: O(1) per reader; disk: per
// request 32 bytes plus 16 per prompt piece. The file is deleted with the
// spill.
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

#include "prefixroute/base/content.h"
#include "prefixroute/workload/request_source.h"

namespace prefixroute {

class RequestSpill {
 public:
  /// A new, empty spill in the system's temporary directory, or null with
  /// `error` set when no file could be created.
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

  /// A fresh reader of every request, in order, whose prompts are pieces of
  /// `content` (which must outlive it); null when the file cannot be opened.
  std::unique_ptr<RequestSource> open(const Content& content) const;

 private:
  explicit RequestSpill(std::string path, std::FILE* file) : path_(std::move(path)), file_(file) {}

  std::string path_;
  std::FILE* file_;  // while writing
  std::uint64_t requests_ = 0;
  Tick last_arrival_ = 0;
  bool failed_ = false;
};

}  // namespace prefixroute
