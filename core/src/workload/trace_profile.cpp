#include "prefixroute/workload/trace_profile.h"

#include <algorithm>
#include <cstddef>
#include <unordered_map>
#include <vector>

#include "prefixroute/base/hashing.h"

namespace prefixroute {
// Named apart: the sanitizer and wasm builds compile the core in unity batches.
namespace trace_profile_detail {
namespace {

// A node of the prefix tree: one (parent node, run, offset) step, and the
// lengths of the pieces the requests through it had there.
struct PrefixNode {
  std::uint64_t requests = 0;
  std::uint64_t tokens = 0;       // summed over those requests' pieces
  std::uint32_t longest = 0;      // the longest piece
  std::uint32_t at_longest = 0;   // requests whose piece is that long
  std::uint32_t second = 0;       // the longest piece but one instance of `longest`
  void add(std::uint32_t length) {
    ++requests;
    tokens += length;
    if (length > longest) {
      second = longest;
      longest = length;
      at_longest = 1;
    } else if (length == longest) {
      ++at_longest;
    } else if (length > second) {
      second = length;
    }
  }
  // Tokens of these pieces another request's piece also holds: each piece
  // holds min(its length, the longest other one); only a lone longest piece
  // holds more than the others, by longest - second.
  std::uint64_t shared() const {
    if (requests < 2) return 0;
    return at_longest == 1 ? tokens - (longest - second) : tokens;
  }
};

struct StepKey {
  std::uint64_t parent;
  RunId run;
  std::uint32_t offset;
  bool operator==(const StepKey&) const = default;
};

struct StepHash {
  std::size_t operator()(const StepKey& k) const {
    return static_cast<std::size_t>(
        hashing::fmix64(k.parent * 0x9E3779B97F4A7C15ULL ^ hashing::fmix64(k.run ^ (std::uint64_t{k.offset} << 40))));
  }
};

// Nearest rank of percentile `percent` among the sorted `values` (non-empty).
std::uint64_t nearest_rank_value(const std::vector<std::uint32_t>& sorted, std::uint64_t percent) {
  const std::uint64_t n = sorted.size();
  const std::uint64_t rank = std::clamp<std::uint64_t>((percent * n + 99) / 100, 1, n);
  return sorted[static_cast<std::size_t>(rank - 1)];
}

LengthFigures figures_of(std::vector<std::uint32_t>& lengths, std::uint64_t total) {
  LengthFigures f;
  f.total = total;
  if (lengths.empty()) return f;
  std::sort(lengths.begin(), lengths.end());
  f.mean = static_cast<double>(total) / static_cast<double>(lengths.size());
  f.p50 = nearest_rank_value(lengths, 50);
  f.p99 = nearest_rank_value(lengths, 99);
  f.max = lengths.back();
  return f;
}

}  // namespace
}  // namespace trace_profile_detail

TraceProfile profile_requests(RequestSource& source) {
  using trace_profile_detail::figures_of;
  using trace_profile_detail::PrefixNode;
  using trace_profile_detail::StepHash;
  using trace_profile_detail::StepKey;
  TraceProfile p;
  p.has_sessions = source.has_sessions();
  constexpr std::uint64_t kRoot = ~std::uint64_t{0};
  std::unordered_map<StepKey, std::uint64_t, StepHash> steps;  // lookups only: no result depends on its order
  std::vector<PrefixNode> nodes;
  std::unordered_map<std::uint64_t, std::uint32_t> session_requests;  // lookups only
  std::vector<std::uint32_t> prompts, outputs;
  std::uint64_t prompt_total = 0, output_total = 0;
  Tick first = 0, last = 0;
  SourcedRequest r;
  while (source.next(r)) {
    if (p.requests == 0) first = r.arrival;
    last = r.arrival;
    ++p.requests;
    prompts.push_back(static_cast<std::uint32_t>(r.prompt.length));
    outputs.push_back(static_cast<std::uint32_t>(std::min<std::uint64_t>(r.output_tokens, 0xFFFFFFFFu)));
    prompt_total += r.prompt.length;
    output_total += r.output_tokens;
    if (p.has_sessions) {
      std::uint32_t& seen = session_requests[r.session];
      if (++seen == 2) ++p.multi_request_sessions;
    }
    std::uint64_t parent = kRoot;
    for (const Piece& piece : r.prompt.pieces) {
      const auto [it, fresh] = steps.try_emplace(StepKey{parent, piece.run, piece.offset}, nodes.size());
      if (fresh) nodes.emplace_back();
      nodes[static_cast<std::size_t>(it->second)].add(piece.length);
      parent = it->second;
    }
  }
  p.duration_s = static_cast<double>(last - first) / static_cast<double>(kTicksPerSecond);
  p.request_rate_per_s = p.duration_s > 0 ? static_cast<double>(p.requests) / p.duration_s : 0;
  p.prompt_tokens = figures_of(prompts, prompt_total);
  p.output_tokens = figures_of(outputs, output_total);
  p.sessions = p.has_sessions ? session_requests.size() : 0;
  for (const PrefixNode& node : nodes) p.shared_prefix_tokens += node.shared();
  p.shared_prefix_share =
      prompt_total > 0 ? static_cast<double>(p.shared_prefix_tokens) / static_cast<double>(prompt_total) : 0;
  return p;
}

}  // namespace prefixroute
