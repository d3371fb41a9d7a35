#include "prefixroute/workload/request_spill.h"

#include "prefixroute/base/temp_file.h"

#include <unistd.h>  // close, dup, pread

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace prefixroute {
namespace {

struct RequestHeader {
  std::int64_t arrival;
  std::uint64_t output_tokens;
  std::uint64_t session;
  std::uint32_t turn;
  std::uint32_t pieces;
};

struct StoredPiece {
  std::uint64_t run;
  std::uint32_t offset;
  std::uint32_t length;
};

constexpr std::size_t kBufferBytes = 1 << 20;

// Reads the spill from its start through its own buffer and position
// (pread: readers on other threads never move it).
class SpillReader final : public RequestSource {
 public:
  SpillReader(int fd, std::uint64_t bytes, std::uint64_t size, Tick last_arrival, const Content& content,
              bool has_sessions)
      : fd_(fd), bytes_(bytes), size_(size), last_arrival_(last_arrival), content_(content),
        has_sessions_(has_sessions), buffer_(kBufferBytes) {}

  std::uint64_t size() const override { return size_; }
  bool has_sessions() const override { return has_sessions_; }
  Tick last_arrival() const override { return last_arrival_; }
  const Content& content() const override { return content_; }

  bool next(SourcedRequest& out) override {
    if (read_ >= size_) return false;
    RequestHeader h;
    take(&h, sizeof h);
    pieces_.resize(h.pieces);
    take(pieces_.data(), sizeof(StoredPiece) * h.pieces);
    out.arrival = h.arrival;
    out.output_tokens = h.output_tokens;
    out.session = h.session;
    out.turn = h.turn;
    out.prompt.clear();
    out.prompt.content = &content_;
    for (const StoredPiece& p : pieces_) out.prompt.push(Piece{p.run, p.offset, p.length});
    ++read_;
    return true;
  }

 private:
  // The next `n` bytes of the file into `out`, refilling the buffer as needed.
  void take(void* out, std::size_t n) {
    char* to = static_cast<char*>(out);
    while (n > 0) {
      if (begin_ == end_) refill();
      const std::size_t k = std::min(n, end_ - begin_);
      std::memcpy(to, buffer_.data() + begin_, k);
      begin_ += k;
      to += k;
      n -= k;
    }
  }

  void refill() {
    const std::uint64_t left = bytes_ - offset_;
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(left, buffer_.size()));
    if (want == 0) throw std::runtime_error("the temporary file holding the trace's requests ended early");
    ssize_t got;
    do {
      got = pread(fd_, buffer_.data(), want, static_cast<off_t>(offset_));
    } while (got < 0 && errno == EINTR);
    if (got <= 0)
      throw std::runtime_error(std::string("cannot read the temporary file holding the trace's requests: ") +
                               (got < 0 ? std::strerror(errno) : "it ended early"));
    offset_ += static_cast<std::uint64_t>(got);
    begin_ = 0;
    end_ = static_cast<std::size_t>(got);
  }

  int fd_;
  std::uint64_t bytes_;
  std::uint64_t size_;
  Tick last_arrival_;
  const Content& content_;
  bool has_sessions_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;  // unread bytes of buffer_
  std::uint64_t offset_ = 0;         // of the file, after buffer_'s bytes
  std::vector<StoredPiece> pieces_;
  std::uint64_t read_ = 0;
};

}  // namespace

std::unique_ptr<RequestSpill> RequestSpill::create(std::string& error) {
  const int fd = open_unlinked_temp_file("prefixroute-spill", error);
  if (fd < 0) return nullptr;
  const int write_fd = dup(fd);
  std::FILE* writer = write_fd < 0 ? nullptr : fdopen(write_fd, "wb");
  if (writer == nullptr) {
    error = std::string("cannot write a temporary file: ") + std::strerror(errno);
    if (write_fd >= 0) close(write_fd);
    close(fd);
    return nullptr;
  }
  return std::unique_ptr<RequestSpill>(new RequestSpill(fd, writer));
}

RequestSpill::~RequestSpill() {
  if (writer_ != nullptr) std::fclose(writer_);
  close(fd_);
}

bool RequestSpill::append(const SourcedRequest& request) {
  if (failed_ || writer_ == nullptr) return false;
  const std::size_t pieces = request.prompt.pieces.size();
  const RequestHeader h{request.arrival, request.output_tokens, request.session, request.turn,
                        static_cast<std::uint32_t>(pieces)};
  scratch_.resize(sizeof h + pieces * sizeof(StoredPiece));
  std::memcpy(scratch_.data(), &h, sizeof h);
  char* at = scratch_.data() + sizeof h;
  for (const Piece& p : request.prompt.pieces) {
    const StoredPiece s{p.run, p.offset, p.length};
    std::memcpy(at, &s, sizeof s);
    at += sizeof s;
  }
  if (std::fwrite(scratch_.data(), 1, scratch_.size(), writer_) != scratch_.size()) {
    failed_ = true;
    return false;
  }
  bytes_ += scratch_.size();
  ++requests_;
  last_arrival_ = request.arrival;
  return true;
}

bool RequestSpill::finish() {
  if (writer_ == nullptr) return !failed_;
  failed_ = std::fclose(writer_) != 0 || failed_;
  writer_ = nullptr;
  std::vector<char>().swap(scratch_);
  return !failed_;
}

std::unique_ptr<RequestSource> RequestSpill::open(const Content& content, bool has_sessions) const {
  if (failed_ || writer_ != nullptr) return nullptr;  // not finished, or broken
  return std::make_unique<SpillReader>(fd_, bytes_, requests_, last_arrival_, content, has_sessions);
}

}  // namespace prefixroute
