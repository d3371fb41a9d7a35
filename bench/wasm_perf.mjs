// The reference scenario through the WebAssembly module in Node, timed and
// compared with the same work done natively (docs/performance.md).
//
//   node bench/wasm_perf.mjs [--repeat N] [--rounds R] [--native PATH] [--module DIR] [--format md|json]
//
// Each case is one runScenario(scenarioJson, overridesJson, null) call: parse,
// workload, the listed policies, both cache bounds, results JSON, series. The
// native figure is prefixroute-perf's `experiment` section, which times the
// same steps (parse + run_experiment + results_to_json) in a fresh process.
// wasm figures are medians of N runs in a fresh Node process after one
// warm-up run of every case (V8 compiles the module in tiers); the cold first
// run of each case is shown beside them.
//
// Rounds: on a shared (virtual) machine the speed of a whole process can
// differ by 20 - 40 % from one process to the next (measured: the same wasm
// run took ~100 ms in most Node processes and ~125 - 145 ms in some, and
// memory-bound functions slowed most). So the native process and a wasm
// process run alternately, R times; each round gives a ratio per case, and the
// table shows the median of the R ratios with their range.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
function option(name, fallback) {
  const i = args.indexOf(name);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}
const repeat = Math.max(1, Number(option('--repeat', '5')));
const nativeBin = path.resolve(root, option('--native', 'build/native/bench/prefixroute-perf'));
const benchBin = path.resolve(root, option('--bench', 'build/native/tools/prefixroute'));
const moduleDir = path.resolve(root, option('--module', 'build/wasm/wasm'));
const format = option('--format', 'md');
const rounds = Math.max(1, Number(option('--rounds', '3')));
const child = args.includes('--child');

const mjs = path.join(moduleDir, 'prefixroute.mjs');
const wasm = path.join(moduleDir, 'prefixroute.wasm');
if (!fs.existsSync(mjs) || !fs.existsSync(wasm)) {
  console.error(`error: ${mjs} or ${wasm} is missing; build it with: bash scripts/build-wasm.sh`);
  process.exit(2);
}
if (!child && !fs.existsSync(nativeBin)) {
  console.error(`error: ${nativeBin} is missing; build it with: cmake --build --preset native`);
  process.exit(2);
}

const { default: createPrefixroute } = await import(pathToFileURL(mjs).href);
const module = await createPrefixroute({ wasmBinary: fs.readFileSync(wasm) });

const median = (xs) => {
  const v = [...xs].sort((a, b) => a - b);
  const n = v.length;
  return n % 2 ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
};

const policies = module.policyCatalogue().map((p) => p.name);
const labels = Object.fromEntries(module.policyCatalogue().map((p) => [p.name, p.label]));
const cases = ['all', ...policies];

/**
 * Every case through the module in this process: one untimed warm-up run of
 * every case first (V8 compiles hot functions with its optimising tier in
 * background threads during the first runs; their CPU time is the module's
 * start-up, not a run's), then `repeat` timed runs of each case.
 */
function timeWasmCases() {
  const run = (c) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const result = module.runScenario('', JSON.stringify([['policies', c]]), null);
    const t = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    if (!result.ok) throw new Error(`runScenario(${c}) failed: ${JSON.stringify(result.errors)}`);
    return { t, cpu: (cpu.user + cpu.system) / 1e6 };
  };
  const cold = Object.fromEntries(cases.map((c) => [c, run(c).t]));
  const out = {};
  for (const c of cases) {
    const samples = Array.from({ length: repeat }, () => run(c));
    const times = samples.map((x) => x.t);
    out[c] = { median_s: median(times), min_s: Math.min(...times), max_s: Math.max(...times), cold_s: cold[c],
      cpu_median_s: median(samples.map((x) => x.cpu)) };
  }
  return out;
}

if (child) {
  // A round's wasm half, in a process of its own (see "Rounds" above).
  console.log(JSON.stringify(timeWasmCases()));
  process.exit(0);
}

function runOrDie(command, commandArgs) {
  const run = spawnSync(command, commandArgs, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (run.status !== 0) {
    console.error(`error: ${command} ${commandArgs.join(' ')} failed:\n${run.stderr}`);
    process.exit(1);
  }
  return run.stdout;
}

const perRound = [];
for (let round = 0; round < rounds; ++round) {
  const nativeByCase = {};
  const nativeOut = runOrDie(nativeBin, ['--only', 'experiment', '--format', 'json', '--repeat', String(repeat)]);
  for (const line of nativeOut.split('\n')) {
    if (!line.trim()) continue;
    const row = JSON.parse(line);
    nativeByCase[row.case] = row;
  }
  const wasmByCase = JSON.parse(runOrDie(process.execPath, [fileURLToPath(import.meta.url), '--child',
    '--repeat', String(repeat), '--module', moduleDir]));
  perRound.push({ nativeByCase, wasmByCase });
}

const rows = cases.map((c) => {
  const ratios = perRound.map((r) => r.wasmByCase[c].median_s / r.nativeByCase[c].median_s);
  const cpuRatios = perRound.map((r) => r.wasmByCase[c].cpu_median_s / r.nativeByCase[c].cpu_median_s);
  const pick = (side, key) => median(perRound.map((r) => r[side][c][key]));
  return {
    case: c,
    rounds,
    wasm_median_s: pick('wasmByCase', 'median_s'),
    wasm_min_s: Math.min(...perRound.map((r) => r.wasmByCase[c].min_s)),
    wasm_max_s: Math.max(...perRound.map((r) => r.wasmByCase[c].max_s)),
    wasm_cold_s: pick('wasmByCase', 'cold_s'),
    wasm_cpu_median_s: pick('wasmByCase', 'cpu_median_s'),
    native_median_s: pick('nativeByCase', 'median_s'),
    native_cpu_median_s: pick('nativeByCase', 'cpu_median_s'),
    ratio: median(ratios),
    cpu_ratio: median(cpuRatios),
    cpu_ratio_min: Math.min(...cpuRatios),
    cpu_ratio_max: Math.max(...cpuRatios),
  };
});

// Same bytes as the native benchmark for the same scenario?
let identical = null;
if (fs.existsSync(benchBin)) {
  const resultsAll = module.runScenario('', JSON.stringify([['policies', 'all']]), null).resultsJson;
  const tmp = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'prefixroute-')), 'results.json');
  const run = spawnSync(benchBin, ['--set', 'policies=all', '--json', tmp], { cwd: root, encoding: 'utf8' });
  if (run.status === 0) identical = fs.readFileSync(tmp, 'utf8') === resultsAll;
  fs.rmSync(path.dirname(tmp), { recursive: true, force: true });
}

if (format === 'json') {
  for (const row of rows) console.log(JSON.stringify(row));
  console.log(JSON.stringify({ results_identical_to_native: identical, node: process.version }));
} else {
  const ms = (s) => `${(s * 1000).toFixed(2)} ms`;
  console.log(`\n### Reference scenario: wasm module in Node ${process.version} vs native\n`);
  console.log('runScenario (parse, workload, policies, both bounds, results JSON) against the native ' +
    `\`experiment\` section (same steps), ${rounds} rounds of one native process then one Node process. ` +
    `Each process: medians of ${repeat} runs (wasm after one warm-up run of every case); shown: medians over the rounds, ` +
    'the ratio as the median of the per-round ratios with their range. ' +
    'CPU time: process.cpuUsage() around the call (wasm; includes V8 helper threads) and thread CPU time ' +
    '(native). Target: wasm within 1.3x of native, judged on CPU time (on a quiet machine wall and CPU agree).\n');
  console.log('| Policies | wasm wall (median) | wasm min–max | wasm first run (cold only for the first case) | native wall (median) | ' +
    'wall ratio | wasm CPU | native CPU | CPU ratio (range over rounds) | Target met |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const name = r.case === 'all' ? `all ${policies.length} (policies=all)` : labels[r.case];
    console.log(`| ${name} | ${ms(r.wasm_median_s)} | ${ms(r.wasm_min_s)} – ${ms(r.wasm_max_s)} | ${ms(r.wasm_cold_s)} | ` +
      `${ms(r.native_median_s)} | ${r.ratio.toFixed(2)}x | ${ms(r.wasm_cpu_median_s)} | ${ms(r.native_cpu_median_s)} | ` +
      `${r.cpu_ratio.toFixed(2)}x (${r.cpu_ratio_min.toFixed(2)} – ${r.cpu_ratio_max.toFixed(2)}) | ` +
      `${r.cpu_ratio <= 1.3 ? 'yes' : '**no**'} |`);
  }
  if (identical !== null)
    console.log(`\nThe wasm module's results JSON (reference scenario, policies=all) is ${identical ? '' : '**not** '}` +
      'byte-identical to the native command line\'s (prefixroute --set policies=all --json FILE).');
}
