#!/bin/bash
# One prefixroute sweep split over a Slurm array: task K of 8 runs shard K/8
# (every 8th run of the sweep's run list) on its node's cores, then one job
# that waits for the whole array merges the 8 shard documents into the sweep
# JSON a single machine would write, byte for byte.
#
#   mkdir -p shards && jid=$(sbatch --parsable docs/shards/slurm-array.sh)
#   sbatch --dependency=afterok:"$jid" --wrap \
#     'prefixroute --merge shards/shard-*.json --json sweep.json'
#
# prefixroute must be on PATH on the compute nodes (cmake --preset
# native && cmake --build --preset native: build/native/tools/), and shards/
# on a file system they share. The array's size and N below must agree.
#SBATCH --job-name=prefixroute-shard
#SBATCH --array=1-8
#SBATCH --cpus-per-task=4
#SBATCH --mem=4G
#SBATCH --time=01:00:00
#SBATCH --output=shards/%x-%a.log
set -euo pipefail
N=8
K=${SLURM_ARRAY_TASK_ID}
prefixroute --scenario scenarios/reference.json --set policies=all --set replicates=20 \
  --sweep cluster.replicas=4:64:16 \
  --jobs "${SLURM_CPUS_PER_TASK}" --shard "${K}/${N}" --json "shards/shard-${K}.json"
