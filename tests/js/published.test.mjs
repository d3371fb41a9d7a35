// The published-results suite (scenarios/published): every claim's scenario
// is sound (its policies are the claim's arms, no field a preset derives is
// set by hand unless the claim says why), runs small through the native CLI,
// and — at full size — reproduces the policy orders it reproduces today.
//
//   node --test tests/js/published.test.mjs      (needs build/native/tools/prefixroute)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { armRuns, checkClaims, evaluateClaim } from '../../scripts/published/evaluate.mjs';
import { BENCH, ROOT, runNativeBench } from './helpers.mjs';

const DIR = path.join(ROOT, 'scenarios/published');
const DOC = JSON.parse(fs.readFileSync(path.join(DIR, 'claims.json'), 'utf8'));
const scenarioOf = (claim) => JSON.parse(fs.readFileSync(path.join(ROOT, claim.scenario), 'utf8'));

// Orders of the claims that the simulator does not reproduce today, by claim
// and metric; the generated page names their cause (claims.json "cause").
const ORDERS_NOT_REPRODUCED = { C4: ['output_tokens_per_s'] };

/** --set overrides that shrink a scenario to a few seconds of simulated load. */
function smallOverrides(scenario) {
  const sets = [];
  const stages = scenario.client && scenario.client.stages;
  if (stages) {
    const loads = stages.split(',').slice(0, 2).map((s) => s.split('x')[0]);
    sets.push(`client.stages=${loads.map((l) => `${l}x5`).join(',')}`);
  }
  if (scenario.client && scenario.client.warmup) sets.push('client.warmup=');
  if (scenario.workload.kind === 'gsp') sets.push('workload.gsp_num_groups=8');
  return sets.flatMap((s) => ['--set', s]);
}

/** Every arm's results JSON: one CLI run per distinct arm settings (armRuns), with `args` added. */
function runClaim(claim, args = []) {
  const results = {};
  for (const run of armRuns(claim)) {
    const { json } = runNativeBench(['--scenario', path.join(ROOT, claim.scenario), ...run.sets.flatMap((x) => ['--set', x]), ...args]);
    const parsed = JSON.parse(json);
    for (const arm of run.arms) results[arm.name] = parsed;
  }
  return results;
}

describe('published claims and their scenarios', () => {
  it('the claims document is sound', () => {
    assert.deepEqual(checkClaims(DOC), []);
  });

  it('every scenario file belongs to exactly one claim', () => {
    const files = fs
      .readdirSync(DIR)
      .filter((f) => f.endsWith('.json') && f !== 'claims.json')
      .map((f) => `scenarios/published/${f}`)
      .sort();
    assert.deepEqual(DOC.claims.map((c) => c.scenario).sort(), files);
  });

  for (const claim of DOC.claims) {
    it(`${claim.id}: the scenario runs exactly the claim's policies`, () => {
      assert.deepEqual([...scenarioOf(claim).policies].sort(), [...new Set(claim.arms.map((a) => a.policy))].sort());
    });

    it(`${claim.id}: no field a preset derives is set by hand unless the claim says why`, () => {
      const hw = JSON.parse(execFileSync(BENCH, ['--scenario', path.join(ROOT, claim.scenario), '--hardware'], { encoding: 'utf8' }));
      assert.notEqual(hw.model, 'none', 'the scenario names a model preset');
      const given = hw.fields.filter((f) => f.source !== 'derived').map((f) => f.key).sort();
      assert.deepEqual(given, Object.keys(claim.overrides).sort());
    });

    it(`${claim.id}: runs small (two short stages) and every comparison evaluates`, () => {
      const scenario = scenarioOf(claim);
      const { rows, verdicts } = evaluateClaim(claim, runClaim(claim, smallOverrides(scenario)), DOC.rules);
      for (const arm of claim.arms) {
        const row = rows[arm.name];
        if (scenario.client.stages) assert.equal(row.stages.length, 2, `${arm.name}: two stages`);
        assert.ok(row.prompt_tokens > 0, `${arm.name} served requests`);
      }
      assert.equal(verdicts.length, claim.comparisons.length);
    });
  }
});

describe('policy orders the simulator reproduces (full scenarios)', () => {
  for (const claim of DOC.claims) {
    const orders = claim.comparisons.filter((c) => c.kind === 'order' && !(ORDERS_NOT_REPRODUCED[claim.id] || []).includes(c.metric));
    if (orders.length === 0) continue;
    it(`${claim.id}: ${orders.length} order(s) hold`, () => {
      const { verdicts } = evaluateClaim(claim, runClaim(claim), DOC.rules);
      for (const v of verdicts.filter((x) => orders.includes(x.cmp)))
        assert.ok(v.ok, `${claim.id} ${v.cmp.metric}${v.cmp.at ? ` at ${v.cmp.at}` : ''}: published ${v.published}; simulated ${v.simulated}`);
    });
  }
});

describe('npm run published', () => {
  it('runs claims, prints each verdict and writes the page with its charts and causes', () => {
    const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR || '/tmp'), 'prefixroute-published-'));
    try {
      const out = path.join(dir, 'page.md');
      const stdout = execFileSync('node', [path.join(ROOT, 'scripts/published.mjs'), '--only', 'C4,C8', '--out', out], { encoding: 'utf8' });
      assert.match(stdout, /\[1\/2\] C4 \(4 policies\)/);
      assert.match(stdout, /\[2\/2\] C8 \(2 policies\)/);
      const page = fs.readFileSync(out, 'utf8');
      for (const claim of DOC.claims.filter((c) => c.id === 'C4' || c.id === 'C8')) {
        assert.ok(page.includes(`## ${claim.id}\n`), `${claim.id} has a section`);
        // A claim with a failed comparison prints its cause.
        if (page.split(`## ${claim.id}\n`)[1].split('\n## ')[0].includes('| **no** |')) assert.ok(page.includes(claim.cause.slice(0, 60)));
      }
      const charts = fs.readdirSync(path.join(dir, 'page')).sort();
      assert.deepEqual(charts, ['C4-mean_ttft_s.svg', 'C8-hit_rate.svg', 'C8-total_tokens_per_s.svg']);
      for (const c of charts) assert.match(fs.readFileSync(path.join(dir, 'page', c), 'utf8'), /^<svg [^]*<\/svg>\n$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
