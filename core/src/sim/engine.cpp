#include "prefixroute/sim/engine.h"

#include "prefixroute/sim/batched_engine.h"
#include "prefixroute/sim/fifo_engine.h"

namespace prefixroute {

std::unique_ptr<Engine> make_engine(const ClusterConfig& cluster, std::vector<Replica>& replicas,
                                    bool record_cache_ops) {
  if (cluster.engine == EngineKind::Batched)
    return std::make_unique<BatchedEngine>(cluster, replicas, record_cache_ops);
  return std::make_unique<FifoEngine>(cluster, replicas, record_cache_ops);
}

}  // namespace prefixroute
