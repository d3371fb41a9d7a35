#include "prefixroute/cluster/topology.h"

namespace prefixroute {

const std::vector<LinkPreset>& link_presets() {
  // Effective bandwidths (60-80 % of the rated speed), llm-d-inference-sim's
  // "KV Cache Transfer" interconnect table (llm-d/llm-d-inference-sim
  // docs/latency-profiles.md).
  static const std::vector<LinkPreset> presets = {
      {"nvlink", 600, "llm-d-inference-sim docs/latency-profiles.md: NVLink (intra-node) ~600 GB/s"},
      {"ib_400g", 40, "llm-d-inference-sim docs/latency-profiles.md: InfiniBand NDR 400G ~40 GB/s"},
      {"roce_200g", 20, "llm-d-inference-sim docs/latency-profiles.md: RoCE v2 200G ~20 GB/s"},
  };
  return presets;
}

std::string_view link_choices() { return "nvlink,ib_400g,roce_200g,custom"; }

double TopologySettings::link_bytes_per_s() const {
  if (link == "custom") return link_gb_per_s * 1e9;
  for (const LinkPreset& p : link_presets())
    if (p.name == link) return p.gb_per_s * 1e9;
  return 0;
}

}  // namespace prefixroute
