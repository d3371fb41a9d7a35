#!/usr/bin/env bash
# CPU time of a command and of everything it starts (browsers included, which
# `time` misses once their processes are reparented): the command runs in a
# cpuacct cgroup of its own (cgroup v1, as on this project's machines; root).
#
#   bash bench/cpu_of.sh NAME COMMAND [ARG...]
#   bash bench/cpu_of.sh npmtest bash -c 'CCACHE_DISABLE=1 npm test'
#
# Prints "cpu_of NAME: cpu S s, wall S s, rc N" on stderr and exits with the
# command's status.
set -uo pipefail
name=$1
shift
cg=/sys/fs/cgroup/cpuacct/$name
mkdir -p "$cg" || { echo "cpu_of: no cpuacct cgroup at $cg (cgroup v1 and root needed)" >&2; exit 2; }
echo 0 > "$cg/cpuacct.usage"
start=$(date +%s.%N)
bash -c "echo \$\$ > $cg/cgroup.procs; exec \"\$@\"" _ "$@"
rc=$?
end=$(date +%s.%N)
echo "cpu_of $name: cpu $(awk '{printf "%.1f", $1 / 1e9}' "$cg/cpuacct.usage") s, wall $(echo "$end - $start" | bc) s, rc $rc" >&2
exit $rc
