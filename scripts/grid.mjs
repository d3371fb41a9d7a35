// The recommended policy against every policy, over a grid of scenarios.
//
//   npm run grid                      # runs the grid, writes docs/grid.json and the grid table of docs/guide/routers.md
//   node scripts/grid.mjs --jobs 2 [--bench PATH] [--json PATH] [--no-readme]
//
// A cell is one scenario run with `--set policies=all`. The recommended
// policy (the results JSON's "recommended") *holds* a cell when its p99 TTFT
// and its mean TTFT are both within 5 % of the best policy's (each metric's
// own best); else it *loses* the cell, and the table says by how much and why
// (the reason is read off the two rows: fewer hits, or the same hits with its
// load piled on fewer replicas).
//
// The design is one-at-a-time around the reference scenario (4 replicas,
// 12 tenants, 4,000-token caches, 100 requests/s), so each cell changes one
// thing and a loss names its cause:
//   - the shipped presets and the failure-mode presets (scenarios/*.json);
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

function runBench(argv) {
  return new Promise((resolve, reject) => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'grid-'));
    const file = path.join(out, 'r.json');
    const child = spawn(bench, [...argv, '--set', 'policies=all', '--jobs', '1', '--json', file], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${bench} ${argv.join(' ')} exited ${code}: ${stderr}`));
      const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
      fs.rmSync(out, { recursive: true, force: true });
      resolve(doc);
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

const set = (pairs) => pairs.flatMap(([k, v]) => ['--set', `${k}=${v}`]);
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
const cell = (group, name, argv) => cells.push({ group, name, argv });
const presets = fs
  .readdirSync(path.join(ROOT, 'scenarios'))
  .filter((f) => f.endsWith('.json'))
  .sort();
for (const f of presets.filter((f) => !f.startsWith('failure-')))
  cell('preset', f.replace(/\.json$/, ''), ['--scenario', `scenarios/${f}`]);
for (const f of presets.filter((f) => f.startsWith('failure-')))
  cell('failure mode', f.replace(/\.json$/, ''), ['--scenario', `scenarios/${f}`]);
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
  cell('load', `${Math.round(load * 100)} % (${fmt(rate)} requests/s)`, set([['workload.arrival_rate_per_s', rate.toFixed(3)]]));
}

const docs = await pool(cells.map((c) => () => runBench(c.argv)), jobs);
const seconds = (Date.now() - started) / 1000;

function verdict(doc) {
  const rows = doc.results;
  const rec = rows.find((r) => r.policy === doc.recommended);
  const bestP99 = rows.reduce((a, b) => (b.p99_ttft_ms < a.p99_ttft_ms ? b : a));
  const bestMean = rows.reduce((a, b) => (b.mean_ttft_ms < a.mean_ttft_ms ? b : a));
  const p99Gap = rec.p99_ttft_ms / bestP99.p99_ttft_ms - 1;
  const meanGap = rec.mean_ttft_ms / bestMean.mean_ttft_ms - 1;
  const holds = p99Gap <= TOLERANCE && meanGap <= TOLERANCE;
  let why = '';
  if (!holds) {
    // Against the policy that beats it on the metric it loses most on.
    const other = p99Gap >= meanGap ? bestP99 : bestMean;
    const hitGap = (other.hit_rate - rec.hit_rate) * 100;
    if (hitGap > 1)
      why = `fewer hits than ${other.label} (${fmt(rec.hit_rate * 100)} % vs ${fmt(other.hit_rate * 100)} %)`;
    else if (rec.imbalance > other.imbalance * 1.05)
      why = `${hitGap > 0 ? "about as many hits as" : "no fewer hits than"} ${other.label} (${fmt(rec.hit_rate * 100)} % vs ${fmt(other.hit_rate * 100)} %) but its load piled up: imbalance ${fmt(rec.imbalance, 2)} vs ${fmt(other.imbalance, 2)}`;
    else
      why = `queueing at equal hits and balance (${other.label}: ${fmt(other.hit_rate * 100)} % hits, imbalance ${fmt(other.imbalance, 2)})`;
  }
  return { rec, bestP99, bestMean, p99Gap, meanGap, holds, why };
}

const report = cells.map((c, i) => {
  const v = verdict(docs[i]);
  return {
    group: c.group,
    cell: c.name,
    command: `npm run bench -- ${c.argv.join(' ')} --set policies=all`,
    recommended: docs[i].recommended,
    recommended_p99_ttft_ms: v.rec.p99_ttft_ms,
    recommended_mean_ttft_ms: v.rec.mean_ttft_ms,
    best_p99: { policy: v.bestP99.policy, label: v.bestP99.label, p99_ttft_ms: v.bestP99.p99_ttft_ms },
    best_mean: { policy: v.bestMean.policy, label: v.bestMean.label, mean_ttft_ms: v.bestMean.mean_ttft_ms },
    holds: v.holds,
    why: v.why,
  };
});
const held = report.filter((r) => r.holds).length;
// How many cells each policy would hold were it the recommended one: the
// grounds for which policy the catalogue marks.
const holdsByPolicy = {};
for (const d of docs) {
  const bestP99 = Math.min(...d.results.map((r) => r.p99_ttft_ms));
  const bestMean = Math.min(...d.results.map((r) => r.mean_ttft_ms));
  for (const r of d.results) {
    const ok = r.p99_ttft_ms <= bestP99 * (1 + TOLERANCE) && r.mean_ttft_ms <= bestMean * (1 + TOLERANCE);
    holdsByPolicy[r.label] = (holdsByPolicy[r.label] ?? 0) + (ok ? 1 : 0);
  }
}
const doc = {
  schema: 'prefixroute.grid/1',
  recommended: docs[0].recommended,
  tolerance: TOLERANCE,
  working_set_tokens: workingSet,
  reference_load: referenceLoad,
  cells: report,
  summary: { cells: report.length, holds: held, loses: report.length - held },
  holds_by_policy: Object.fromEntries(Object.entries(holdsByPolicy).sort((a, b) => b[1] - a[1])),
};
fs.mkdirSync(path.dirname(jsonPath), { recursive: true });
fs.writeFileSync(jsonPath, JSON.stringify(doc, null, 2) + '\n');
console.log(`grid: ${report.length} cells in ${fmt(seconds)} s with --jobs ${jobs}; ${doc.recommended} holds ${held}, loses ${report.length - held}`);
if (writeReadme) {
  const { renderGrid } = await import('./grid_table.mjs');
  const page = path.join(ROOT, 'docs/guide/routers.md');
  const text = fs.readFileSync(page, 'utf8');
  const marker = /<!-- generated:grid -->\n[\s\S]*?<!-- \/generated:grid -->/;
  if (!marker.test(text)) throw new Error('docs/guide/routers.md has no <!-- generated:grid --> section');
  fs.writeFileSync(page, text.replace(marker, `<!-- generated:grid -->\n${renderGrid(doc)}<!-- /generated:grid -->`));
  console.log('updated the grid table of docs/guide/routers.md');
}
