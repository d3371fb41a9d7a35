// The reference scenario through the WebAssembly module in Node, timed and
// compared with the same work done natively (docs/PERFORMANCE.md).
//
//   node bench/wasm_perf.mjs [--repeat N] [--native PATH] [--module DIR] [--format md|json]
//
// Each case is one runScenario(scenarioJson, overridesJson, null) call: parse,
// workload, the listed policies, both cache bounds, results JSON, series. The
// native figure is prefixroute-perf's `experiment` section, which times the
// same steps (parse + run_experiment + results_to_json) in a fresh process.
// wasm figures are medians of N runs after one warm-up run (V8 compiles the
// module in tiers); the cold first run is shown beside them.
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
const benchBin = path.resolve(root, option('--bench', 'build/native/tools/prefixroute-bench'));
const moduleDir = path.resolve(root, option('--module', 'build/wasm/wasm'));
const format = option('--format', 'md');

const mjs = path.join(moduleDir, 'prefixroute.mjs');
const wasm = path.join(moduleDir, 'prefixroute.wasm');
if (!fs.existsSync(mjs) || !fs.existsSync(wasm)) {
  console.error(`error: ${mjs} or ${wasm} is missing; build it with: bash scripts/build-wasm.sh`);
  process.exit(2);
}
if (!fs.existsSync(nativeBin)) {
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

// Native: one fresh process, the same cases, the same repeat count.
const native = spawnSync(nativeBin, ['--only', 'experiment', '--format', 'json', '--repeat', String(repeat)], {
  cwd: root,
  encoding: 'utf8',
});
if (native.status !== 0) {
  console.error(`error: ${nativeBin} failed:\n${native.stderr}`);
  process.exit(1);
}
const nativeByCase = {};
for (const line of native.stdout.split('\n')) {
  if (!line.trim()) continue;
  const row = JSON.parse(line);
  nativeByCase[row.case] = row;
}

const rows = [];
let resultsAll = null;
for (const c of cases) {
  const overrides = JSON.stringify([['policies', c]]);
  const times = [];
  const cpuTimes = [];
  let cold = 0;
  for (let r = 0; r <= repeat; ++r) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const result = module.runScenario('', overrides, null);
    const t = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(c0);
    if (!result.ok) {
      console.error(`error: runScenario(${c}) failed: ${JSON.stringify(result.errors)}`);
      process.exit(1);
    }
    if (c === 'all') resultsAll = result.resultsJson;
    if (r === 0) cold = t;
    else {
      times.push(t);
      cpuTimes.push((cpu.user + cpu.system) / 1e6);
    }
  }
  const wasmMedian = median(times);
  const wasmCpu = median(cpuTimes);
  const nat = nativeByCase[c];
  rows.push({
    case: c,
    wasm_median_s: wasmMedian,
    wasm_min_s: Math.min(...times),
    wasm_max_s: Math.max(...times),
    wasm_cold_s: cold,
    wasm_cpu_median_s: wasmCpu,
    native_median_s: nat.median_s,
    native_cpu_median_s: nat.cpu_median_s,
    ratio: wasmMedian / nat.median_s,
    cpu_ratio: wasmCpu / nat.cpu_median_s,
  });
}

// Same bytes as the native benchmark for the same scenario?
let identical = null;
if (fs.existsSync(benchBin)) {
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
    `\`experiment\` section (same steps). Medians of ${repeat} runs; wasm after one warm-up run. ` +
    'CPU time: process.cpuUsage() around the call (wasm; includes V8 helper threads) and thread CPU time ' +
    '(native). Target: wasm within 1.3x of native, judged on CPU time (on a quiet machine wall and CPU agree).\n');
  console.log('| Policies | wasm wall (median) | wasm min–max | wasm first (cold) run | native wall (median) | ' +
    'wall ratio | wasm CPU | native CPU | CPU ratio | Target met |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    const name = r.case === 'all' ? `all ${policies.length} (policies=all)` : labels[r.case];
    console.log(`| ${name} | ${ms(r.wasm_median_s)} | ${ms(r.wasm_min_s)} – ${ms(r.wasm_max_s)} | ${ms(r.wasm_cold_s)} | ` +
      `${ms(r.native_median_s)} | ${r.ratio.toFixed(2)}x | ${ms(r.wasm_cpu_median_s)} | ${ms(r.native_cpu_median_s)} | ` +
      `${r.cpu_ratio.toFixed(2)}x | ${r.cpu_ratio <= 1.3 ? 'yes' : '**no**'} |`);
  }
  if (identical !== null)
    console.log(`\nThe wasm module's results JSON (reference scenario, policies=all) is ${identical ? '' : '**not** '}` +
      'byte-identical to the native benchmark\'s (prefixroute-bench --set policies=all --json FILE).');
}
