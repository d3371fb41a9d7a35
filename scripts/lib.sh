# Shared helpers for the project's scripts. Source it; do not run it.
# Every script installs what it needs when missing and skips what is present,
# so the README's commands work on a fresh Debian 12 machine (as root).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export ROOT

# Each line says how long the script has run (SECONDS: bash's own clock), so
# a long run's log shows where its time went.
log() { printf '\033[1m==> [%dm%02ds] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

# ensure_apt PKG... : installs the Debian packages that are not installed yet.
ensure_apt() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Native C++ toolchain and libraries (GNU parallel: the shards test runs
# shards through it; lld: the faster linker, CMakeLists.txt, its ld.lld for g++ too).
ensure_native_deps() {
  ensure_apt g++ cmake ninja-build lld libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev robin-map-dev libcli11-dev parallel
}

# npm packages from package-lock.json, when node_modules is missing or stale.
ensure_npm_deps() {
  cd "$ROOT"
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
}

# Configures (once) and builds a CMake preset.
build_preset() {
  local preset=$1
  cd "$ROOT"
  [ -f "build/$preset/build.ninja" ] || cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
}
