#include "prefixroute/workload/request_spill.h"

#include <stdlib.h>  // mkstemp
#include <unistd.h>  // close, unlink

#include <cerrno>
#include <cstring>
#include <vector>

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

class SpillReader final : public RequestSource {
 public:
  SpillReader(std::FILE* file, std::uint64_t size, Tick last_arrival, const Content& content)
      : file_(file), size_(size), last_arrival_(last_arrival), content_(content), buffer_(kBufferBytes) {
    std::setvbuf(file_, buffer_.data(), _IOFBF, buffer_.size());
  }
  ~SpillReader() override { std::fclose(file_); }
  SpillReader(const SpillReader&) = delete;
  SpillReader& operator=(const SpillReader&) = delete;

  std::uint64_t size() const override { return size_; }
  Tick last_arrival() const override { return last_arrival_; }
  const Content& content() const override { return content_; }

  bool next(SourcedRequest& out) override {
    if (read_ >= size_) return false;
    RequestHeader h;
    if (std::fread(&h, sizeof h, 1, file_) != 1) return false;
    pieces_.resize(h.pieces);
    if (h.pieces > 0 && std::fread(pieces_.data(), sizeof(StoredPiece), h.pieces, file_) != h.pieces) return false;
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
  std::FILE* file_;
  std::uint64_t size_;
  Tick last_arrival_;
  const Content& content_;
  std::vector<char> buffer_;  // stdio's buffer: must outlive file_'s use
  std::vector<StoredPiece> pieces_;
  std::uint64_t read_ = 0;
};

}  // namespace

std::unique_ptr<RequestSpill> RequestSpill::create(std::string& error) {
  const char* dir = std::getenv("TMPDIR");
  std::string path = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/prefixroute-spill-XXXXXX";
  std::vector<char> name(path.begin(), path.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) {
    error = "cannot create a temporary file in " + path.substr(0, path.rfind('/')) + ": " + std::strerror(errno);
    return nullptr;
  }
  std::FILE* file = fdopen(fd, "wb");
  if (file == nullptr) {
    close(fd);
    unlink(name.data());
    error = "cannot open the temporary file " + std::string(name.data());
    return nullptr;
  }
  return std::unique_ptr<RequestSpill>(new RequestSpill(name.data(), file));
}

RequestSpill::~RequestSpill() {
  if (file_ != nullptr) std::fclose(file_);
  unlink(path_.c_str());
}

bool RequestSpill::append(const SourcedRequest& request) {
  if (failed_ || file_ == nullptr) return false;
  const RequestHeader h{request.arrival, request.output_tokens, request.session, request.turn,
                        static_cast<std::uint32_t>(request.prompt.pieces.size())};
  bool ok = std::fwrite(&h, sizeof h, 1, file_) == 1;
  for (const Piece& p : request.prompt.pieces) {
    const StoredPiece s{p.run, p.offset, p.length};
    ok = ok && std::fwrite(&s, sizeof s, 1, file_) == 1;
  }
  if (!ok) {
    failed_ = true;
    return false;
  }
  ++requests_;
  last_arrival_ = request.arrival;
  return true;
}

bool RequestSpill::finish() {
  if (file_ == nullptr) return !failed_;
  failed_ = std::fclose(file_) != 0 || failed_;
  file_ = nullptr;
  return !failed_;
}

std::unique_ptr<RequestSource> RequestSpill::open(const Content& content) const {
  if (failed_ || file_ != nullptr) return nullptr;  // not finished, or broken
  std::FILE* file = std::fopen(path_.c_str(), "rb");
  if (file == nullptr) return nullptr;
  return std::make_unique<SpillReader>(file, requests_, last_arrival_, content);
}

}  // namespace prefixroute
