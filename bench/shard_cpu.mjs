// What the page's pool of workers can gain on an idle machine, from CPU time
// (docs/performance.md, "The page: every core"): the wasm module in Node
// runs a scenario whole (runScenario), then as N shards (runShard K/N, one
// after another) and their merge (mergeShards), timing each by the process's
// CPU time. With one core per worker the pool's re-run takes about the
// slowest shard plus the merge; its CPU in all is the shards' sum. Wall
// times on a shared machine say little; CPU time is what a quiet machine
// would spend.
//
//   node bench/shard_cpu.mjs [--shards 2] [--rounds 7]     (after npm run build:wasm)
//
// Prints, per scenario, the medians as a markdown table.
import fs from 'node:fs';
import { cpus, loadavg } from 'node:os';

import { loadModule } from '../tests/js/helpers.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const shards = Number(option('--shards', '2'));
const rounds = Number(option('--rounds', '7'));

const TEN = 'round_robin,least_loaded,affinity,affinity_balanced,expected_ttft,dynamo_kv,llmd_epp,chwbl,sglang_cache_aware,preble_e2';
const pr = await loadModule();
// The page's default policies (web/src/state/page-defaults.json), `@recommended`
// standing for the catalogue's mark, as web/src/state/page-scenario.ts reads them.
const pageDefaults = JSON.parse(fs.readFileSync(new URL('../web/src/state/page-defaults.json', import.meta.url), 'utf8'));
const recommended = pr.policyCatalogue().find((p) => p.recommended)?.name;
const PAGE_POLICIES = [...new Set(pageDefaults.scenario.policies.split(',')
  .flatMap((p) => (p === '@recommended' ? (recommended ? [recommended] : []) : [p])))].join(',');
const SCENARIOS = [
  { name: 'default scenario', pairs: [] },
  { name: "the page's six policies", pairs: [['policies', PAGE_POLICIES]] },
  { name: 'ten policies', pairs: [['policies', TEN]] },
  { name: 'ten policies, 20,000 requests', pairs: [['policies', TEN], ['workload.requests', '20000']] },
];

const cpuMs = (f) => {
  const before = process.cpuUsage();
  const value = f();
  const used = process.cpuUsage(before);
  return { ms: (used.user + used.system) / 1000, value };
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const loadBefore = loadavg();

console.log(`\n### Shards' CPU time in the wasm module (Node), ${shards} shards, median of ${rounds} rounds\n`);
console.log('| Scenario | Whole run | Slowest shard + merge | Shards + merge in all | Idle-machine speed-up (whole / slowest + merge) |');
console.log('|---|---|---|---|---|');
for (const { name, pairs } of SCENARIOS) {
  const overrides = JSON.stringify(pairs);
  const whole = [];
  const path = [];
  const all = [];
  for (let r = 0; r < rounds; r++) {
    const w = cpuMs(() => pr.runScenario('', overrides, null));
    if (!w.value.ok) throw new Error(JSON.stringify(w.value.errors));
    whole.push(w.ms);
    const parts = Array.from({ length: shards }, (_, k) => cpuMs(() => pr.runShard('', overrides, k + 1, shards, null)));
    const merged = cpuMs(() => pr.mergeShards(parts.map((p) => p.value.shardJson)));
    if (merged.value.resultsJson !== w.value.resultsJson) throw new Error(`${name}: the merged shards differ from the whole run`);
    path.push(Math.max(...parts.map((p) => p.ms)) + merged.ms);
    all.push(parts.reduce((s, p) => s + p.ms, 0) + merged.ms);
  }
  const ms = (v) => `${v.toFixed(1)} ms`;
  console.log(`| ${name} | ${ms(median(whole))} | ${ms(median(path))} | ${ms(median(all))} | ${(median(whole) / median(path)).toFixed(2)}x |`);
}
const load = (l) => l.map((x) => x.toFixed(1)).join(' ');
console.log(`\n- Load: ${load(loadBefore)} before, ${load(loadavg())} after, on ${cpus().length} cores; Node ${process.version}`);
