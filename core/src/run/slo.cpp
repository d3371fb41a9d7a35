#include "prefixroute/run/slo.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

namespace prefixroute {

std::uint64_t slo_needed(double percentile, std::uint64_t n) {
  // Thousandths of a percent: validation allows three decimals, so this is exact.
  const auto milli = static_cast<std::uint64_t>(std::llround(percentile * 1000));
  return (milli * n + 99999) / 100000;
}

namespace {

constexpr double kBeyond = std::numeric_limits<double>::infinity();

// The value of nearest rank ceil(p x n / 100) (at least 1) of `values`
// (reordered), absent when it is a failed request's.
std::optional<double> at_percentile(std::vector<double>& values, double percentile) {
  if (values.empty()) return std::nullopt;
  const std::uint64_t rank = std::max<std::uint64_t>(1, slo_needed(percentile, values.size()));
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(values.begin(), at, values.end());
  if (*at == kBeyond) return std::nullopt;
  return *at / 1e6;
}

// Forwards a source, asking for per-request sizes and TPOT.
class RecordingSource final : public RequestSource {
 public:
  explicit RecordingSource(std::unique_ptr<RequestSource> inner) : inner_(std::move(inner)) {}
  std::uint64_t size() const override { return inner_->size(); }
  Tick last_arrival() const override { return inner_->last_arrival(); }
  const Content& content() const override { return inner_->content(); }
  bool next(SourcedRequest& out) override { return inner_->next(out); }
  bool has_sessions() const override { return inner_->has_sessions(); }
  ReactiveSource* reactive() override { return inner_->reactive(); }
  SourceRecording recording() const override {
    SourceRecording r = inner_->recording();
    r.request_sizes = true;
    return r;
  }

 private:
  std::unique_ptr<RequestSource> inner_;
};

}  // namespace

std::unique_ptr<RequestSource> record_request_sizes(std::unique_ptr<RequestSource> source) {
  return std::make_unique<RecordingSource>(std::move(source));
}

SloFigures apply_slo(const SloSettings& slo, const SimulationRun& run, RunSummary& s) {
  SloFigures f;
  const std::size_t n = run.ttft.size();
  f.requests = n;
  const bool ttft_target = slo.ttft_ms > 0;
  const bool tpot_target = slo.tpot_ms > 0;
  const double ttft_bound = slo.ttft_ms * 1e6;  // ns
  const double tpot_bound = slo.tpot_ms * 1e6;
  std::vector<double> ttft, tpot;
  std::uint64_t ttft_within = 0, tpot_within = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool failed = run.client.timeout > 0 && i < run.end_to_end.size() && run.end_to_end[i] > run.client.timeout;
    bool all = !failed;
    if (ttft_target) {
      const double t = failed ? kBeyond : static_cast<double>(run.ttft[i]);
      const bool ok = t <= ttft_bound;
      ttft_within += ok ? 1 : 0;
      all = all && ok;
      ttft.push_back(t);
    }
    if (tpot_target) {
      // No TPOT (at most one token generated): 0, within any bound.
      const double measured = i < run.tpot_of.size() && run.tpot_of[i] >= 0 ? run.tpot_of[i] : 0.0;
      const double t = failed ? kBeyond : measured;
      const bool ok = t <= tpot_bound;
      tpot_within += ok ? 1 : 0;
      all = all && ok;
      tpot.push_back(t);
    }
    f.within_all += all ? 1 : 0;
  }
  const auto share = [&](std::uint64_t k) { return n == 0 ? 0.0 : static_cast<double>(k) / static_cast<double>(n); };
  s.has_slo = true;
  s.has_ttft_target = ttft_target;
  s.has_tpot_target = tpot_target;
  s.ttft_attainment = ttft_target ? share(ttft_within) : 0.0;
  s.tpot_attainment = tpot_target ? share(tpot_within) : 0.0;
  s.slo_attainment = share(f.within_all);
  const double span_s = static_cast<double>(run.last_completion - run.first_arrival) / 1e9;
  s.goodput_per_s = span_s > 0 ? static_cast<double>(f.within_all) / span_s : 0.0;
  const bool met = n > 0 && (!ttft_target || ttft_within >= slo_needed(slo.ttft_percentile, n)) &&
                   (!tpot_target || tpot_within >= slo_needed(slo.tpot_percentile, n));
  s.slo_met = met ? 1 : 0;
  if (ttft_target) f.ttft_ms = at_percentile(ttft, slo.ttft_percentile);
  if (tpot_target) f.tpot_ms = at_percentile(tpot, slo.tpot_percentile);
  return f;
}

}  // namespace prefixroute
