#!/usr/bin/env bash
# npm run build:wasm: builds the WebAssembly module (CMake preset `wasm`,
# Emscripten from Debian) and copies it where the web page's Vite build finds it.
#
#   build/wasm/wasm/prefixroute.mjs + prefixroute.wasm   (the build)
#   web/src/generated/prefixroute.mjs + .wasm + .d.mts   (gitignored copies for Vite)
source "$(dirname "$0")/lib.sh"
ensure_apt emscripten nlohmann-json3-dev robin-map-dev cmake ninja-build

# emcc's JavaScript optimizer needs acorn from Debian's node modules.
export NODE_PATH=/usr/share/nodejs

cd "$ROOT"
log "WebAssembly build (preset wasm)"
[ -f build/wasm/build.ninja ] || cmake --preset wasm >/dev/null
cmake --build --preset wasm -j2

out=build/wasm/wasm
gen=web/src/generated
mkdir -p "$gen"
cp "$out/prefixroute.mjs" "$out/prefixroute.wasm" "$gen/"
# The declarations, named so TypeScript pairs them with prefixroute.mjs.
cp wasm/prefixroute.d.ts "$gen/prefixroute.d.mts"
log "copied prefixroute.mjs, prefixroute.wasm, prefixroute.d.mts to $gen/"
