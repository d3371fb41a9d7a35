// The published-results comparisons (scripts/published/evaluate.mjs) on
// hand-made results rows: each metric, each comparison kind, each edge of
// its band, with the expected answer computed by hand.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  armRuns,
  checkClaims,
  evaluateComparison,
  kneeLoad,
  rowsByArm,
  saturationLoad,
  scopedMetric,
  summaryMetric,
} from '../../scripts/published/evaluate.mjs';

const RULES = { ratio_band: 1.5, saturation_band: 0.25, hit_rate_band_points: 0.1, knee_fraction: 0.9 };

// A stage as the results JSON writes one.
function stage(load, { mean = 0.1, p50 = 0.1, p90 = 0.2, out = 100, input = 1000, hit = 0.5, requests = 10, failed = 0, start = 0, end = 10 }) {
  return {
    load,
    duration_s: 10,
    start_s: start,
    end_s: end,
    requests,
    failed,
    mean_ttft_ms: mean * 1000,
    p50_ttft_ms: p50 * 1000,
    p90_ttft_ms: p90 * 1000,
    p99_ttft_ms: p90 * 2000,
    output_tokens_per_s: out,
    input_tokens_per_s: input,
    hit_rate: hit,
  };
}

describe('metrics read off a results row', () => {
  const row = {
    p90_ttft_ms: 4000,
    hit_rate: 0.3,
    stages: [
      stage(1, { mean: 1, out: 100, input: 1000, hit: 0.2, requests: 10, start: 0, end: 10 }),
      stage(2, { mean: 4, out: 400, input: 3000, hit: 0.6, requests: 30, failed: 10, start: 10, end: 40 }),
    ],
  };

  it('summary mean TTFT weights each stage by its completed requests', () => {
    // (1 x 10 + 4 x 20) / 30 = 3
    assert.equal(summaryMetric(row, 'mean_ttft_s'), 3);
  });

  it('summary throughput is all tokens over the summed spans', () => {
    // (100 x 10 + 400 x 30) / 40 = 325; total adds input: (1100 x 10 + 3400 x 30) / 40 = 2825
    assert.equal(summaryMetric(row, 'output_tokens_per_s'), 325);
    assert.equal(summaryMetric(row, 'total_tokens_per_s'), 2825);
  });

  it('summary hit rate weights each stage by its input tokens', () => {
    // (0.2 x 10,000 + 0.6 x 90,000) / 100,000 = 0.56
    assert.ok(Math.abs(summaryMetric(row, 'hit_rate') - 0.56) < 1e-12);
  });

  it('summary percentiles are the row\'s own', () => {
    assert.equal(summaryMetric(row, 'p90_ttft_s'), 4);
  });

  it('a run without stages reads the row: tokens over its span', () => {
    const burst = { prompt_tokens: 3000, output_tokens: 1000, span_s: 4, hit_rate: 0.25, mean_ttft_ms: 500 };
    assert.equal(summaryMetric(burst, 'total_tokens_per_s'), 1000);
    assert.equal(summaryMetric(burst, 'input_tokens_per_s'), 750);
    assert.equal(summaryMetric(burst, 'mean_ttft_s'), 0.5);
  });

  it('peak is the largest stage; a stage is found by its load; a missing one is null', () => {
    assert.equal(scopedMetric(row, 'output_tokens_per_s', 'peak'), 400);
    assert.equal(scopedMetric(row, 'mean_ttft_s', 'stage', 2), 4);
    assert.equal(scopedMetric(row, 'mean_ttft_s', 'stage', 3), null);
  });
});

describe('saturation and knee loads', () => {
  const row = {
    stages: [
      stage(3, { mean: 0.3, input: 10 }),
      stage(15, { mean: 4.9, input: 80 }),
      stage(20, { mean: 5.1, input: 95 }),
      stage(30, { mean: 30, input: 100 }),
    ],
  };

  it('saturation is the first load whose metric exceeds the threshold', () => {
    assert.equal(saturationLoad(row, 'mean_ttft_s', 5), 20);
    assert.equal(saturationLoad(row, 'mean_ttft_s', 50), null);
  });

  it('the knee is the first load reaching the fraction of the peak', () => {
    assert.equal(kneeLoad(row, 'input_tokens_per_s', 0.9), 20);
    assert.equal(kneeLoad(row, 'input_tokens_per_s', 0.8), 15);
  });

  it('a saturation within 25 % of the published load passes, beyond it fails', () => {
    const rows = { a: row };
    assert.equal(evaluateComparison({ kind: 'saturation', metric: 'mean_ttft_s', threshold: 5, arm: 'a', published: 16 }, rows, RULES).ok, true);
    assert.equal(evaluateComparison({ kind: 'saturation', metric: 'mean_ttft_s', threshold: 5, arm: 'a', published: 15 }, rows, RULES).ok, false);
    // Published "never within the ladder" passes only when the simulated one never saturates either.
    assert.equal(evaluateComparison({ kind: 'saturation', metric: 'mean_ttft_s', threshold: 5, arm: 'a', published: null }, rows, RULES).ok, false);
    assert.equal(evaluateComparison({ kind: 'saturation', metric: 'mean_ttft_s', threshold: 50, arm: 'a', published: null }, rows, RULES).ok, true);
  });
});

describe('orders, ratios, values, spreads', () => {
  const one = (v) => ({ p90_ttft_ms: v * 1000, hit_rate: v, stages: [] });
  const rows = { a: one(1), b: one(2), c: one(2.5), d: one(10) };

  it('an order holds when every policy of a group beats every policy of the next', () => {
    const cmp = (groups) => ({ kind: 'order', metric: 'p90_ttft_s', scope: 'summary', better: 'lower', groups });
    assert.equal(evaluateComparison(cmp([['a'], ['b', 'c'], ['d']]), rows, RULES).ok, true);
    assert.equal(evaluateComparison(cmp([['a'], ['c', 'b'], ['d']]), rows, RULES).ok, true, 'no order inside a group');
    assert.equal(evaluateComparison(cmp([['a', 'c'], ['b'], ['d']]), rows, RULES).ok, false);
    assert.equal(
      evaluateComparison({ ...cmp([['d'], ['a']]), better: 'higher' }, rows, RULES).ok,
      true,
      'higher is better for throughput',
    );
  });

  it('equal values do not make an order', () => {
    const tie = { a: one(2), b: one(2) };
    assert.equal(evaluateComparison({ kind: 'order', metric: 'p90_ttft_s', scope: 'summary', better: 'lower', groups: [['a'], ['b']] }, tie, RULES).ok, false);
  });

  it('a ratio passes within 1.5x of the published one either way', () => {
    const cmp = (published) => ({ kind: 'ratio', metric: 'p90_ttft_s', scope: 'summary', num: 'd', den: 'a', published });
    // simulated 10x
    assert.equal(evaluateComparison(cmp(15), rows, RULES).ok, true);
    assert.equal(evaluateComparison(cmp(6.67), rows, RULES).ok, true);
    assert.equal(evaluateComparison(cmp(15.01), rows, RULES).ok, false);
    assert.equal(evaluateComparison(cmp(6.66), rows, RULES).ok, false);
  });

  it('a value passes within 10 points', () => {
    const cmp = (published) => ({ kind: 'value', metric: 'hit_rate', scope: 'summary', arm: 'a', published });
    assert.equal(evaluateComparison(cmp(0.95), { a: one(0.5) }, RULES).ok, false);
    assert.equal(evaluateComparison(cmp(0.59), { a: one(0.5) }, RULES).ok, true);
  });

  it('a spread passes at most the bound', () => {
    const cmp = { kind: 'spread', metric: 'p90_ttft_s', scope: 'summary', arms: ['b', 'c'], published: 1.19, bound: 1.2 };
    assert.equal(evaluateComparison(cmp, rows, RULES).ok, false); // 1.25
    assert.equal(evaluateComparison({ ...cmp, bound: 1.25 }, rows, RULES).ok, true);
  });
});

describe('claims documents', () => {
  it('runs arms of one policy with different settings apart, each with its own settings', () => {
    const claim = {
      id: 'Y',
      arms: [
        { name: 'rr', policy: 'round_robin' },
        { name: 'p', policy: 'llmd_scheduler', set: { 'llmd_scheduler.prefix_mode': 'precise', 'llmd_scheduler.prefix_weight': 3 } },
        { name: 'a', policy: 'llmd_scheduler', set: { 'llmd_scheduler.prefix_weight': 1 } },
        { name: 'x', policy: 'llmd_scheduler', set: { 'router.kv_event_lag_ms': 5 } },
      ],
      comparisons: [],
    };
    assert.deepEqual(checkClaims({ claims: [{ ...claim, arms: claim.arms.slice(0, 3) }] }), []);
    assert.deepEqual(checkClaims({ claims: [claim] }), ['Y: arm x sets router.kv_event_lag_ms, not a field of llmd_scheduler']);
    assert.deepEqual(
      armRuns({ ...claim, arms: claim.arms.slice(0, 3) }).map((r) => [r.arms.map((a) => a.name), r.sets]),
      [
        [['rr'], ['policies=round_robin']],
        [['p'], ['policies=llmd_scheduler', 'llmd_scheduler.prefix_mode=precise', 'llmd_scheduler.prefix_weight=3']],
        [['a'], ['policies=llmd_scheduler', 'llmd_scheduler.prefix_weight=1']],
      ],
    );
    // Without settings, one run of the scenario as written.
    assert.deepEqual(armRuns({ arms: [claim.arms[0], { name: 'r', policy: 'random' }] }).map((r) => r.sets), [[]]);
  });

  it('reads each arm\'s row from its own run', () => {
    const claim = { id: 'Z', arms: [{ name: 'p', policy: 'llmd_scheduler', set: { 'llmd_scheduler.picker': 'random' } }, { name: 'q', policy: 'llmd_scheduler' }] };
    const run = (tag) => ({ results: [{ policy: 'llmd_scheduler', tag }] });
    const rows = rowsByArm(claim, { p: run('first'), q: run('second') });
    assert.equal(rows.p.tag, 'first');
    assert.equal(rows.q.tag, 'second');
  });

  it('names an unknown arm, metric or kind', () => {
    const doc = {
      claims: [
        {
          id: 'X',
          arms: [{ name: 'a', policy: 'random' }, { name: 'b', policy: 'random' }],
          comparisons: [
            { kind: 'order', metric: 'p90_ttft_s', groups: [['a'], ['z']] },
            { kind: 'guess', metric: 'speed' },
          ],
        },
      ],
    };
    assert.deepEqual(checkClaims(doc), [
      'X: two arms share a policy and its settings',
      'X: comparison names unknown arm z',
      'X: unknown comparison kind guess',
      'X: unknown metric speed',
    ]);
  });
});
