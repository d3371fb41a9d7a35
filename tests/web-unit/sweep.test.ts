// The Sweep panel's pure parts: the Pareto front it draws (exactly the
// core's "pareto" flags) and the inputs' validation and --sweep text (whose
// points the core expands). The sweep's keys in the link: page-state.test.ts.
import { beforeAll, describe, expect, it } from 'vitest';
import type { PrefixrouteModule } from '../../web/src/worker/prefixroute-module';
import type { FieldInfo } from '../../web/src/state/schema';
import { paretoFront, parseSweepResults, type SweepOutcome, type SweepResults, sweepPolicies } from '../../web/src/sweep/sweep-results';
import { policyRows, sweepRows, valuesText } from '../../web/src/sweep/sweep-view';
import { checkSweep, DEFAULT_SWEEP, isDefaultSweep, suggestedRange, sweepableFields, sweepsOnTrace, TRACE_SWEEP, withParam } from '../../web/src/sweep/sweep-state';
import { loadCore, loadFields } from './core';

let fields: FieldInfo[];
let core: PrefixrouteModule;

beforeAll(async () => {
  core = await loadCore();
  fields = await loadFields();
});

/** One policy's outcome with only what the front reads filled in. */
const outcome = (policy: string, hit_rate: number, p99_ttft_ms: number, pareto: boolean): SweepOutcome =>
  ({ policy, hit_rate, p99_ttft_ms, pareto, mean_ttft_ms: 0, prefill_tokens: 0, imbalance: 1 });

describe('Pareto front', () => {
  it('draws the flagged points, left to right, each distinct point once', () => {
    const results: SweepResults = {
      schema: 'prefixroute.sweep/1',
      recommended: 'expected_ttft',
      key: 'seed',
      points: [
        { value: '1', results: [outcome('a', 0.9, 200, true), outcome('b', 0.5, 50, true)] },
        { value: '2', results: [outcome('a', 0.8, 90, true), outcome('b', 0.8, 90, true)] },
        { value: '3', results: [outcome('a', 0.6, 300, false), outcome('b', 0.5, 50, true)] },
      ],
    };
    expect(paretoFront(results)).toEqual([
      { hitRate: 0.5, p99Ms: 50, value: '1', policy: 'b' },
      { hitRate: 0.8, p99Ms: 90, value: '2', policy: 'a' },
      { hitRate: 0.9, p99Ms: 200, value: '1', policy: 'a' },
    ]);
  });

  it('follows the flags, not the geometry: the page never judges dominance', () => {
    const results: SweepResults = {
      schema: 'prefixroute.sweep/1',
      recommended: 'expected_ttft',
      key: 'seed',
      points: [{ value: '1', results: [outcome('a', 0.9, 10, false), outcome('b', 0.1, 500, true)] }],
    };
    // 'a' beats 'b' on both axes, but only 'b' is flagged: only 'b' is drawn.
    expect(paretoFront(results).map((f) => f.policy)).toEqual(['b']);
  });

  it('is exactly the core’s flagged points on a real sweep', () => {
    const run = core.runSweep('{}', JSON.stringify([['workload.requests', '1500']]), 'workload.arrival_rate_per_s=60:160:4', null);
    expect(run.ok).toBe(true);
    if (!run.ok) return;
    // Read independently of sweep-results.ts: the raw JSON's flags.
    const doc = JSON.parse(run.sweepJson) as { points: { results: { hit_rate: number; p99_ttft_ms: number; pareto: boolean }[] }[] };
    const all = doc.points.flatMap((p) => p.results);
    const flagged = new Set(all.filter((r) => r.pareto).map((r) => `${r.hit_rate}|${r.p99_ttft_ms}`));
    expect(flagged.size).toBeGreaterThan(0);
    expect(all.some((r) => !r.pareto)).toBe(true);
    const front = paretoFront(parseSweepResults(run.sweepJson));
    expect(new Set(front.map((f) => `${f.hitRate}|${f.p99Ms}`))).toEqual(flagged);
    expect(front).toHaveLength(flagged.size);
    for (let i = 1; i < front.length; i++) expect(front[i].hitRate).toBeGreaterThanOrEqual(front[i - 1].hitRate);
  });
});

describe('sweep inputs', () => {
  it('the default sweep is the arrival rate, 50 to 150 requests/s in 5 steps, as the CLI writes it', () => {
    const c = checkSweep(DEFAULT_SWEEP, fields);
    expect(c).toMatchObject({ ok: true, spec: 'workload.arrival_rate_per_s=50:150:5' });
    expect(isDefaultSweep({ ...DEFAULT_SWEEP, to: '1.5e2' })).toBe(true);
  });

  it('the default sweep moves every default policy: none keeps one outcome over its values', () => {
    const run = core.runSweep('', JSON.stringify([['workload.requests', '400']]), 'workload.arrival_rate_per_s=50:150:5', null);
    expect(run.ok).toBe(true);
    if (!run.ok) return;
    const results = parseSweepResults(run.sweepJson);
    const rows = sweepRows(results);
    for (const policy of sweepPolicies(results)) expect(policyRows(rows, policy).length, policy).toBeGreaterThan(1);
  });

  it('offers every numeric page field and no trace field', () => {
    const keys = sweepableFields(fields).map((f) => f.key);
    expect(keys).toContain('workload.arrival_rate_per_s');
    expect(keys).toContain('cluster.replicas');
    expect(keys.some((k) => k.startsWith('trace.'))).toBe(false);
    expect(keys).not.toContain('policies');
  });

  it('an integer field’s spec is a range too: the core rounds its points and drops repeats', () => {
    const c = checkSweep({ param: 'cluster.replicas', from: '1', to: '4', steps: '6' }, fields);
    expect(c).toMatchObject({ ok: true, spec: 'cluster.replicas=1:4:6' });
    if (!c.ok) return;
    expect(core.expandSweep(c.spec)).toEqual({ ok: true, key: 'cluster.replicas', values: ['1', '2', '3', '4'] });
  });

  it('names the input and the allowed range', () => {
    const c = checkSweep({ param: 'cluster.replicas', from: '0', to: '2.5', steps: '1' }, fields);
    expect(c.ok).toBe(false);
    if (c.ok) return;
    expect(c.problems).toEqual([
      { input: 'from', message: 'From must be an integer in [1, 4096] replicas (cluster.replicas).' },
      { input: 'to', message: 'To must be an integer in [1, 4096] replicas (cluster.replicas).' },
      { input: 'steps', message: 'Steps must be an integer in [2, 200].' },
    ]);
    for (const bad of ['', 'abc', '1e400', 'NaN', 'Infinity', '0x10', '<b>1</b>', '-1']) {
      const r = checkSweep({ ...DEFAULT_SWEEP, from: bad }, fields);
      expect(r.ok, bad).toBe(false);
    }
    expect(checkSweep({ ...DEFAULT_SWEEP, steps: '201' }, fields).ok).toBe(false);
    expect(checkSweep({ ...DEFAULT_SWEEP, param: 'trace.limit' }, fields)).toMatchObject({ ok: false, problems: [{ input: 'param' }] });
  });

  it('a new parameter starts from a range inside its bounds, whose spec the core expands', () => {
    for (const f of sweepableFields(fields)) {
      const [from, to] = suggestedRange(f);
      const c = checkSweep(withParam(DEFAULT_SWEEP, f), fields);
      expect(c.ok, `${f.key} ${from}:${to}`).toBe(true);
      if (!c.ok) continue;
      const expanded = core.expandSweep(c.spec);
      expect(expanded.ok, c.spec).toBe(true);
      if (expanded.ok) expect(expanded.values.length, c.spec).toBeGreaterThanOrEqual(2);
    }
  });
});

describe('a sweep of a replayed trace', () => {
  it('refuses a workload field (the trace replaces the workload), naming it; the trace’s default sweep is one', () => {
    expect(checkSweep(DEFAULT_SWEEP, fields, true)).toMatchObject({ ok: false, problems: [{ input: 'param' }] });
    const refused = checkSweep(DEFAULT_SWEEP, fields, true);
    expect(refused.ok ? '' : refused.problems[0].message).toMatch(/^workload\.arrival_rate_per_s sets the synthetic workload/);
    expect(checkSweep(DEFAULT_SWEEP, fields, false).ok).toBe(true);
    expect(checkSweep(TRACE_SWEEP, fields, true)).toMatchObject({ ok: true, spec: 'cluster.replicas=1:8:8' });
    for (const f of sweepableFields(fields)) expect(sweepsOnTrace(f)).toBe(f.group !== 'workload');
  });
});

describe('unchanged points are drawn and listed once', () => {
  // Affinity ignores the swept slack: the same outcome, flagged on the front, at every value.
  const sweep: SweepResults = {
    schema: 'prefixroute.sweep/1',
    recommended: 'expected_ttft',
    key: 'affinity_balanced.load_slack_s',
    points: ['0', '0.05', '0.1', '0.15'].map((value, i) => ({
      value,
      results: [
        outcome('affinity', 0.85, 88, true),
        // Balanced: moves at first, then settles (its last two points equal).
        outcome('affinity_balanced', 0.8 + Math.min(i, 2) / 100, 90 + Math.min(i, 2), false),
      ],
    })),
  };

  it('merges a policy’s equal outcomes at consecutive values into one row, in sweep order', () => {
    const rows = sweepRows(sweep);
    expect(rows.map((r) => [r.outcome.policy, r.values])).toEqual([
      ['affinity', ['0', '0.05', '0.1', '0.15']],
      ['affinity_balanced', ['0']],
      ['affinity_balanced', ['0.05']],
      ['affinity_balanced', ['0.1', '0.15']],
    ]);
    expect(rows.map((r) => r.firstPoint)).toEqual([0, 0, 1, 2]);
    expect(rows.filter((r) => r.outcome.pareto)).toHaveLength(1);
    expect(policyRows(rows, 'affinity_balanced').map((r) => r.values[0])).toEqual(['0', '0.05', '0.1']);
  });

  it('never merges equal outcomes that are not consecutive', () => {
    const back: SweepResults = {
      ...sweep,
      points: [0.8, 0.9, 0.8].map((hit, i) => ({ value: String(i), results: [outcome('a', hit, 90, false)] })),
    };
    expect(sweepRows(back).map((r) => r.values)).toEqual([['0'], ['1'], ['2']]);
  });

  it('names the values a row stands for', () => {
    expect(valuesText(['0.05'], 4)).toBe('0.05');
    expect(valuesText(['0.1', '0.15'], 4)).toBe('0.1 – 0.15');
    expect(valuesText(['0', '0.05', '0.1', '0.15'], 4)).toBe('every value (0 – 0.15)');
  });
});
