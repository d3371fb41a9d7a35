// PoolTotals: what one pool of a disaggregated run did (sim/disaggregated_simulator.h).
#pragma once

#include <cstdint>
#include <string>

#include "prefixroute/base/time.h"

namespace prefixroute {

/// One pool's figures over a run: the prefill pool's prefills, or the decode
/// pool's decodes, local prefills and incoming KV transfers.
/// Invariants: busy_share in [0, 1]; transfers == 0 for the prefill pool.
struct PoolTotals {
  std::string name;                 ///< "prefill" or "decode"
  std::uint32_t replicas = 0;
  std::uint64_t requests = 0;       ///< prefilled here (prefill) / decoded here (decode)
  std::uint64_t prefills = 0;       ///< prompts prefilled on the pool (decode: local prefills)
  Tick busy_ticks = 0;              ///< prefill compute summed over the pool's replicas
  double busy_share = 0;            ///< busy_ticks / (replicas x span): the prefill queues' utilisation
  double mean_queue_ms = 0;         ///< mean wait in a prefill queue, of the prompts prefilled here
  double mean_active = 0;           ///< requests assigned and not completed, time-averaged, per replica
  double peak_kv_usage = 0;         ///< highest KV use (used / capacity) of any replica of the pool
  std::uint64_t transfers = 0;      ///< decode: KV transfers received
  std::uint64_t transferred_tokens = 0;  ///< decode: prompt tokens whose KV was sent
  std::uint64_t decode_hit_tokens = 0;   ///< decode: prompt tokens of split requests already held here
  double mean_transfer_ms = 0;      ///< decode: setup start to last byte, per transfer
  std::uint32_t peak_link_transfers = 0;  ///< decode: most transfers at once on one link
};

}  // namespace prefixroute
