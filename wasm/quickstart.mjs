// Route three requests of one tenant across four replicas and watch the
// shared 50-token system prompt get prefilled once, then served from cache.
// The JavaScript twin of examples/quickstart.cpp: node wasm/quickstart.mjs
import fs from 'node:fs';
import createPrefixroute from '../build/wasm/wasm/prefixroute.mjs';

const wasm = new URL('../build/wasm/wasm/prefixroute.wasm', import.meta.url);
const pr = await createPrefixroute({ wasmBinary: fs.readFileSync(wasm) });

const cluster = new pr.Cluster(4, 20000); // 4 replicas, 20000-token prefix caches
const policy = new pr.AffinityBalanced(0.05); // load slack 0.05 s
const prefillTokensPerS = 10000;

const systemPrompt = Array.from({ length: 50 }, (_, t) => 1000 + t);
const userTurns = [[1, 2, 3], [4, 5], [6, 7, 8, 9]];

let now = 0; // seconds
userTurns.forEach((turn, r) => {
  const tokens = [...systemPrompt, ...turn];
  const idx = policy.choose(tokens, cluster, now);
  const a = cluster.admit(idx, tokens, now, prefillTokensPerS);
  console.log(`request ${r}: routed to replica ${idx} cached_prefix=${a.cachedTokens} tokens prefill=${a.prefillTokens} tokens`);
  now += 0.1;
});

cluster.delete(); // embind handles own C++ memory
policy.delete();
