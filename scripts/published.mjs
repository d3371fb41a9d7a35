// Published routing results against the simulator: runs every claim of
// scenarios/published/claims.json through the native CLI, prints published
// and simulated figures side by side with each comparison's verdict, and
// writes docs/guide/published-results.md with one chart per figure.
//
//   npm run published
//   node scripts/published.mjs [--bench PATH] [--only C1,C8] [--set key=value ...]
//                              [--jobs N] [--out FILE | --no-write | --check] [--results-dir DIR]
//
// --check writes nothing and exits 1 when the page or a chart differs from
// what the code and claims produce now (e.g. after a change that moves results).
// --set applies to every scenario (to shrink runs: client.stages=..., workload.requests=...);
// with --set or --only the page is not written unless --out names a file, so
// a small run never overwrites the full page. The page holds no timings: the
// same code and claims give the same bytes.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { METRIC_LABELS, armRuns, checkClaims, describeComparison, evaluateClaim } from './published/evaluate.mjs';
import { claimCharts, claimStatus, formatSummary, renderPage, simulatedSummary } from './published/page.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function parseArgs(argv) {
  const opts = { check: false, sets: [], only: null, bench: path.join(ROOT, 'build/native/tools/prefixroute'), out: null, write: true, jobs: null, resultsDir: null, claims: path.join(ROOT, 'scenarios/published/claims.json') };
  for (let i = 0; i < argv.length; ++i) {
    const a = argv[i];
    const next = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--set') opts.sets.push(next());
    else if (a === '--only') opts.only = next().split(',').map((s) => s.trim()).filter(Boolean);
    else if (a === '--bench') opts.bench = path.resolve(next());
    else if (a === '--out') opts.out = path.resolve(next());
    else if (a === '--no-write') opts.write = false;
    else if (a === '--check') opts.check = true;
    else if (a === '--jobs') opts.jobs = Number(next());
    else if (a === '--results-dir') opts.resultsDir = path.resolve(next());
    else if (a === '--claims') opts.claims = path.resolve(next());
    else if (a === '--help' || a === '-h') {
      console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\nimport ')[0].replace(/^\/\/ ?/gm, ''));
      process.exit(0);
    } else throw new Error(`unknown argument ${a}; allowed: --bench, --only, --set, --jobs, --out, --no-write, --check, --results-dir, --claims`);
  }
  if (opts.check && (opts.sets.length > 0 || opts.only)) throw new Error('--check compares the full suite: no --set or --only with it');
  if (opts.check) opts.write = false;
  if (opts.out === null) {
    if (opts.sets.length > 0 || opts.only) opts.write = false;
    opts.out = path.join(ROOT, 'docs/guide/published-results.md');
  }
  return opts;
}

/** Runs the CLI on one scenario; resolves with the parsed results JSON. */
function runScenario(bench, scenario, sets, jobs, jsonPath) {
  const args = ['--scenario', scenario, '--json', jsonPath];
  for (const s of sets) args.push('--set', s);
  if (jobs) args.push('--jobs', String(jobs));
  return new Promise((resolve, reject) => {
    const child = spawn(bench, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${path.relative(ROOT, scenario)}: prefixroute exited with ${code}\n${stderr}`));
      resolve(JSON.parse(fs.readFileSync(jsonPath, 'utf8')));
    });
  });
}

/** What the scenario's hardware.* and cluster fields mean (the CLI's --hardware JSON). */
function hardwareOf(bench, scenario, sets) {
  const args = ['--scenario', scenario, '--hardware'];
  for (const s of sets) args.push('--set', s);
  return new Promise((resolve, reject) => {
    const child = spawn(bench, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${path.relative(ROOT, scenario)} --hardware: ${err}`))));
  });
}

function pad(s, n) {
  s = String(s);
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

function printClaim(claim, evaluation, rules) {
  const s = claimStatus(evaluation);
  console.log(`  ${claim.id}: ${s.verdict}`);
  const keys = [...new Set(Object.values(claim.published.summary).flatMap((x) => Object.keys(x)))];
  if (keys.length) {
    console.log(`    ${pad('published / simulated', 24)}${keys.map((k) => pad(METRIC_LABELS[k] || k, 30)).join('')}`.trimEnd());
    for (const arm of claim.arms) {
      const pub = claim.published.summary[arm.name] || {};
      const row = evaluation.rows[arm.name];
      const cells = keys.map((k) => pad(`${k in pub ? formatSummary(k, pub[k]) : '-'} / ${formatSummary(k, simulatedSummary(claim, row, k, rules))}`, 30));
      console.log(`    ${pad(arm.name, 24)}${cells.join('')}`.trimEnd());
    }
  }
  for (const v of evaluation.verdicts) {
    const what = describeComparison(v.cmp, claim.load_unit);
    console.log(`    ${v.ok ? 'yes' : 'NO '}  ${pad(what, 62)} published ${pad(v.published, 26)} simulated ${v.simulated}`);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(opts.bench))
    throw new Error(
      `${path.relative(ROOT, opts.bench)} is missing: build it first (cmake --preset native && cmake --build build/native -j2)`,
    );
  const doc = JSON.parse(fs.readFileSync(opts.claims, 'utf8'));
  const problems = checkClaims(doc);
  if (problems.length) throw new Error(`${path.relative(ROOT, opts.claims)}:\n  ${problems.join('\n  ')}`);
  const claims = opts.only ? doc.claims.filter((c) => opts.only.includes(c.id)) : doc.claims;
  if (opts.only) {
    const unknown = opts.only.filter((id) => !doc.claims.some((c) => c.id === id));
    if (unknown.length) throw new Error(`--only: unknown claim ${unknown.join(', ')}; claims: ${doc.claims.map((c) => c.id).join(', ')}`);
  }
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'prefixroute-published-'));
  const started = Date.now();
  const evaluations = [];
  try {
    for (const [i, claim] of claims.entries()) {
      const t0 = Date.now();
      process.stdout.write(`[${i + 1}/${claims.length}] ${claim.id} (${claim.arms.length} policies) ... `);
      if (opts.resultsDir) fs.mkdirSync(opts.resultsDir, { recursive: true });
      // One run per distinct arm settings (one run when no arm has any), side by side.
      const runs = armRuns(claim);
      const jsons = await Promise.all(
        runs.map((run, k) => {
          const jsonPath = path.join(opts.resultsDir || tmp, runs.length === 1 ? `${claim.id}.json` : `${claim.id}-${k + 1}.json`);
          return runScenario(opts.bench, path.join(ROOT, claim.scenario), [...run.sets, ...opts.sets], opts.jobs, jsonPath);
        }),
      );
      const results = {};
      runs.forEach((run, k) => {
        for (const arm of run.arms) results[arm.name] = jsons[k];
      });
      const evaluation = evaluateClaim(claim, results, doc.rules);
      evaluation.hardware = await hardwareOf(opts.bench, path.join(ROOT, claim.scenario), opts.sets);
      console.log(`${((Date.now() - t0) / 1000).toFixed(1)} s`);
      printClaim(claim, evaluation, doc.rules);
      evaluations.push({ claim, evaluation });
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  const statuses = evaluations.map((e) => claimStatus(e.evaluation));
  console.log(
    `\n${evaluations.length} claims in ${((Date.now() - started) / 1000).toFixed(1)} s: order reproduced for ${statuses.filter((s) => s.hasOrders && s.ordersOk).length} of ${statuses.filter((s) => s.hasOrders).length} that state one, every comparison for ${statuses.filter((s) => s.all).length}.`,
  );
  const chartDirName = path.basename(opts.out, '.md');
  const chartDir = path.join(path.dirname(opts.out), chartDirName);
  if (opts.check) {
    const expected = new Map([[opts.out, renderPage(doc, evaluations, chartDirName)]]);
    for (const { claim, evaluation } of evaluations)
      for (const chart of claimCharts(claim, evaluation, claim.load_unit, doc.rules)) expected.set(path.join(chartDir, chart.file), chart.svg);
    const present = fs.existsSync(chartDir) ? fs.readdirSync(chartDir).map((f) => path.join(chartDir, f)) : [];
    const stale = [...expected].filter(([file, text]) => !fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== text).map(([file]) => file);
    stale.push(...present.filter((file) => !expected.has(file)));
    if (stale.length) {
      console.error(`stale (run npm run published): ${stale.map((f) => path.relative(ROOT, f)).join(', ')}`);
      process.exit(1);
    }
    console.log(`${path.relative(ROOT, opts.out)} and its charts are up to date`);
  }
  if (opts.write) {
    fs.rmSync(chartDir, { recursive: true, force: true });
    fs.mkdirSync(chartDir, { recursive: true });
    for (const { claim, evaluation } of evaluations)
      for (const chart of claimCharts(claim, evaluation, claim.load_unit, doc.rules)) fs.writeFileSync(path.join(chartDir, chart.file), chart.svg);
    fs.writeFileSync(opts.out, renderPage(doc, evaluations, chartDirName));
    console.log(`wrote ${path.relative(ROOT, opts.out)} and ${path.relative(ROOT, chartDir)}/`);
  }
}

main().catch((e) => {
  console.error(`error: ${e.message}`);
  process.exit(1);
});
