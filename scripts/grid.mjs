// Every policy over a grid of scenarios: the data the recommended policy is chosen from.
//
//   npm run grid                      # runs the grid, writes docs/grid.json, the grid table of docs/guide/routers.md
//                                     # and the catalogue's recommended mark (core/src/policies/recommended_policy.inc)
//   node scripts/grid.mjs --jobs 2 [--bench PATH] [--json PATH] [--no-readme]
//
// A cell is one scenario run with `--set policies=all`; docs/grid.json keeps
// every policy's p99 and mean TTFT, hit rate and imbalance in each cell, and,
// where the cell has one load to search, its capacity: the highest load at
// which p99 TTFT stays within CAPACITY_SLO (`prefixroute --capacity`).
// scripts/grid_regret.mjs turns them into each policy's regret (its figure over
// the cell's best, minus one) and recommends the policy with the smallest
// worst-case p99 regret; scripts/grid_table.mjs renders the regret table and
// the cells the recommended policy holds (p99 *and* mean TTFT within 5 % of the
// best) or loses, by how much and why (fewer hits, or the same hits with its
// load piled on fewer replicas).
//
// The design is one-at-a-time around the reference scenario (4 replicas,
// 12 tenants, 4,000-token caches, 100 requests/s), so each cell changes one
// thing and a loss names its cause:
//   - the shipped presets and the failure-mode presets (scenarios/*.json);
//   - the published-experiment scenarios (scenarios/published/*.json) as they
//     are, every policy at its defaults (the per-arm settings of
//     scenarios/published/claims.json are not applied: the cell compares
//     policies on the published workload and cluster), with three seeds;
//   - the sessions and agentic workloads (32,000-token caches, as the workload
//     tables of docs/guide/traffic.md);
//   - the conversation trace excerpt (scenarios/traces), at the reference
//     cluster and with caches that hold it all;
//   - cache per replica from 0.5x to 20x the prefix working set (tenants x
//     mean prefix length, read from the scenario);
//   - 2 to 64 replicas at the reference's load per replica (tenants and the
//     arrival rate scale with the replicas, requests too from 16 replicas up);
//   - load 10 % to 95 %: the share of the cluster's prefill capacity the
//     ideal cache would need (arrival rate x the ideal bound's prefill tokens
//     per request / (replicas x prefill rate)), measured on the reference run.
// Capacity (the highest offered load meeting p99 TTFT <= 2 s, the SLO of the
// capacity guide's example, one for every cell so the cells compare alike) is
// searched in every cell with one load to search, except the load cells: the
// search varies the arrival rate the load cells set, so they would repeat the
// reference cell's answer. A client with stages or a burst (load-ladder, the
// published scenarios) has no single load: the search refuses it by name and
// the cell has no capacity figures. Nor has a cell where some policy's search
// reaches its ceiling (the SLO holds at any load of that finite workload).
// Runs are deterministic, so the grid is too; --jobs only runs cells at once.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
};
const bench = option('--bench', path.join(ROOT, 'build/native/tools/prefixroute'));
const jobs = Math.max(1, Number(option('--jobs', String(os.availableParallelism?.() ?? 2))));
const jsonPath = option('--json', path.join(ROOT, 'docs/grid.json'));
const writeReadme = !args.includes('--no-readme');
const TOLERANCE = 0.05;
const set = (pairs) => pairs.flatMap(([k, v]) => ['--set', `${k}=${v}`]);
const CAPACITY_SLO = [['slo.ttft_percentile', 99], ['slo.ttft_ms', 2000]];

function runBench(argv, { capacity = false } = {}) {
  return new Promise((resolve, reject) => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'grid-'));
    const file = path.join(out, 'r.json');
    const extra = capacity ? ['--capacity', ...set(CAPACITY_SLO)] : [];
    const child = spawn(bench, [...argv, ...extra, '--set', 'policies=all', '--jobs', '1', '--json', file], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      const doc = code === 0 ? JSON.parse(fs.readFileSync(file, 'utf8')) : null;
      fs.rmSync(out, { recursive: true, force: true });
      if (doc) return resolve(doc);
      // A capacity search refused by name (no single load to search) is an answer, not a failure.
      if (capacity && /cannot search capacity/.test(stderr))
        return resolve({ refused: stderr.replace(/^error: cannot search capacity:/, '').trim().replace(/\s+/g, ' ') });
      reject(new Error(`${bench} ${argv.join(' ')} exited ${code}: ${stderr}`));
    });
  });
}

async function pool(tasks, limit) {
  const results = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      results[i] = await tasks[i]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}

const fmt = (x, digits = 1) => x.toFixed(digits);

const started = Date.now();
// The reference run first: it gives the working set and the ideal prefill per request.
const reference = await runBench([]);
const s = reference.scenario;
const workingSet = s.workload.tenants * ((s.workload.prefix_tokens_min + s.workload.prefix_tokens_max) / 2);
const idealPerRequest = reference.bounds.ideal.prefill_tokens / reference.workload.requests;
const capacity = s.cluster.replicas * s.cluster.prefill_tokens_per_s;
const referenceLoad = (s.workload.arrival_rate_per_s * idealPerRequest) / capacity;

const cells = [];
const cell = (group, name, argv, capacity = true) => cells.push({ group, name, argv, capacity });
const presets = fs
  .readdirSync(path.join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.json'))
  .sort();
for (const f of presets.filter((f) => !f.startsWith('failure-')))
  cell('preset', f.replace(/\.json$/, ''), ['--scenario', `scenarios/${f}`]);
for (const f of presets.filter((f) => f.startsWith('failure-')))
  cell('failure mode', f.replace(/\.json$/, ''), ['--scenario', `scenarios/${f}`]);
const published = fs
  .readdirSync(path.join(ROOT, 'scenarios/published'))
  .filter((f) => f.endsWith('.json') && f !== 'claims.json')
  .sort();
// Three seeds each: the top of the C1 workload's load ladder (C1, C5, C7-b2b-saas)
// is at the edge of overload, where one routing decision tips a run over:
// expected_ttft's p99 TTFT there is 0.41 s with seeds 42 and 43 and 43-47 s with
// 44 and 45. A cell's figures are then the means over the seeds.
for (const f of published)
  cell('published', f.replace(/\.json$/, ''), ['--scenario', `scenarios/published/${f}`, ...set([['replicates', 3]])]);
for (const kind of ['sessions', 'agentic'])
  cell('workload', `${kind}, 32,000-token caches`, set([['workload.kind', kind], ['cluster.cache_tokens', 32000]]));
const excerpt = 'scenarios/traces/mooncake-conversation-first-1000.jsonl';
cell('trace', 'conversation excerpt, reference cluster', ['--trace', excerpt]);
cell('trace', 'conversation excerpt, 8 replicas, 1,000,000-token caches',
  ['--trace', excerpt, ...set([['cluster.replicas', 8], ['cluster.cache_tokens', 1000000]])]);
for (const factor of [0.5, 1, 2, 5, 10, 20]) {
  const tokens = Math.round(factor * workingSet);
  cell('cache', `${factor}x working set (${tokens.toLocaleString('en-US')} tokens)`, set([['cluster.cache_tokens', tokens]]));
}
for (const replicas of [2, 8, 16, 32, 64]) {
  const k = replicas / s.cluster.replicas;
  cell('replicas', `${replicas} replicas`, set([
    ['cluster.replicas', replicas],
    ['workload.tenants', Math.round(s.workload.tenants * k)],
    ['workload.arrival_rate_per_s', Math.round(s.workload.arrival_rate_per_s * k)],
    ['workload.requests', Math.max(s.workload.requests, Math.round(s.workload.requests * k / 4))],
  ]));
}
for (const load of [0.1, 0.25, 0.5, 0.75, 0.95]) {
  const rate = (load * capacity) / idealPerRequest;
  cell('load', `${Math.round(load * 100)} % (${fmt(rate)} requests/s)`, set([['workload.arrival_rate_per_s', rate.toFixed(3)]]), false);
}

const docs = await pool(cells.map((c) => () => runBench(c.argv)), jobs);
const capacities = await pool(cells.map((c) => () => (c.capacity ? runBench(c.argv, { capacity: true }) : null)), jobs);
const seconds = (Date.now() - started) / 1000;

// Each cell keeps every policy's row (the figures the regret table and the
// recommendation are computed from, by scripts/grid_regret.mjs), so the
// committed grid is the data, not a verdict about one policy.
const capacityOf = (i, policy) => {
  const c = capacities[i];
  if (!c || c.refused) return null;
  const r = c.results.find((x) => x.policy === policy);
  return r ? r.max_load : null;
};
// A search that stops at its ceiling (max_load_limited) found no load where the
// SLO fails: a workload of a fixed number of requests (or of sessions whose
// turns wait on think times) meets it however fast it is offered, and such a
// cell's capacities do not compare policies.
const limitedBy = (i) => capacities[i]?.results?.find((r) => r.max_load_limited)?.policy;
const report = cells.map((c, i) => ({
  group: c.group,
  cell: c.name,
  command: `npm run bench -- ${c.argv.join(' ')} --set policies=all`,
  capacity: !capacities[i] ? { searched: false, why: 'the search varies the load this cell sets' }
    : capacities[i].refused ? { searched: false, why: capacities[i].refused }
    : limitedBy(i) ? { searched: false, why: `the search reached its ceiling with ${limitedBy(i)}: the SLO holds at any ${capacities[i].load.key}` }
    : { searched: true, load_key: capacities[i].load.key, unit: capacities[i].load.unit },
  results: docs[i].results.map((r) => ({
    policy: r.policy,
    label: r.label,
    p99_ttft_ms: r.p99_ttft_ms,
    mean_ttft_ms: r.mean_ttft_ms,
    hit_rate: r.hit_rate,
    imbalance: r.imbalance,
    capacity_max_load: limitedBy(i) ? null : capacityOf(i, r.policy),
  })),
}));
const doc = {
  schema: 'prefixroute.grid/3',
  tolerance: TOLERANCE,
  capacity_slo: Object.fromEntries(CAPACITY_SLO),
  working_set_tokens: workingSet,
  reference_load: referenceLoad,
  cells: report,
};
fs.mkdirSync(path.dirname(jsonPath), { recursive: true });
fs.writeFileSync(jsonPath, JSON.stringify(doc, null, 2) + '\n');
const { recommendation } = await import('./grid_regret.mjs');
console.log(`grid: ${report.length} cells in ${fmt(seconds)} s with --jobs ${jobs}; smallest worst-case p99 regret: ${recommendation(doc).policy}`);
if (writeReadme) {
  const { renderGrid } = await import('./grid_table.mjs');
  const page = path.join(ROOT, 'docs/guide/routers.md');
  const text = fs.readFileSync(page, 'utf8');
  const marker = /<!-- generated:grid -->\n[\s\S]*?<!-- \/generated:grid -->/;
  if (!marker.test(text)) throw new Error('docs/guide/routers.md has no <!-- generated:grid --> section');
  fs.writeFileSync(page, text.replace(marker, `<!-- generated:grid -->\n${renderGrid(doc)}<!-- /generated:grid -->`));
  console.log('updated the grid table of docs/guide/routers.md');
  // The catalogue's recommended mark follows the grid (rebuild, then npm run docs: results echo it).
  const { renderHeader } = await import('./grid_regret.mjs');
  fs.writeFileSync(path.join(ROOT, 'core/src/policies/recommended_policy.inc'), renderHeader(doc));
  console.log('updated core/src/policies/recommended_policy.inc');
}
