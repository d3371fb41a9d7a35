// The Sweep panel's pure parts: the Pareto front (checked against the
// core's own "pareto" flags on a real sweep), the inputs' validation and
// --sweep text, and the sweep's keys in the link, hostile ones included.
import { beforeAll, describe, expect, it } from 'vitest';
import { dominates, paretoFlags, paretoLine, type TradeOff } from '../../web/src/pareto';
import type { PrefixrouteModule } from '../../web/src/prefixroute-module';
import type { FieldInfo } from '../../web/src/schema';
import { parseSweepResults } from '../../web/src/sweep-results';
import { checkSweep, DEFAULT_SWEEP, isDefaultSweep, suggestedRange, sweepableFields, withParam } from '../../web/src/sweep-state';
import { decodeSweepUrl, sweepUrlPairs } from '../../web/src/sweep-url';
import { decodeUrlState, encodeUrlState } from '../../web/src/url-state';
import { loadCore, loadFields } from './core';

let fields: FieldInfo[];
let core: PrefixrouteModule;

beforeAll(async () => {
  core = await loadCore();
  fields = await loadFields();
});

const p = (hitRate: number, p99Ms: number): TradeOff => ({ hitRate, p99Ms });

describe('Pareto front', () => {
  it('keeps the points nothing beats on both axes', () => {
    const points = [p(0.5, 100), p(0.8, 90), p(0.9, 200), p(0.6, 300), p(0.8, 95)];
    expect(paretoFlags(points)).toEqual([false, true, true, false, false]);
  });

  it('dominance needs one strict improvement; equal points are all on the front', () => {
    expect(dominates(p(0.5, 100), p(0.5, 100))).toBe(false);
    expect(dominates(p(0.5, 99), p(0.5, 100))).toBe(true);
    expect(paretoFlags([p(0.5, 100), p(0.5, 100)])).toEqual([true, true]);
  });

  it('a point with a non-finite coordinate is never on the front and beats nothing', () => {
    expect(paretoFlags([p(NaN, 1), p(0.5, 100), p(1, -Infinity)])).toEqual([false, true, false]);
    expect(paretoFlags([])).toEqual([]);
  });

  it('draws the front left to right, once per distinct point', () => {
    const points = [p(0.9, 200), p(0.5, 50), p(0.8, 90), p(0.8, 90), p(0.6, 300)];
    expect(paretoLine(points)).toEqual([p(0.5, 50), p(0.8, 90), p(0.9, 200)]);
  });

  it('agrees with the core’s flags on a real sweep', () => {
    const outcome = core.runSweep('{}', JSON.stringify([['workload.requests', '1500']]), 'workload.arrival_rate_per_s=60:160:4', null);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    const results = parseSweepResults(outcome.sweepJson);
    const all = results.points.flatMap((pt) => pt.results);
    expect(paretoFlags(all.map((r) => p(r.hit_rate, r.p99_ttft_ms)))).toEqual(all.map((r) => r.pareto));
    expect(all.some((r) => r.pareto)).toBe(true);
  });
});

describe('sweep inputs', () => {
  it('the default sweep is AffinityBalanced’s slack, 0 to 0.2 s in 5 steps, as the CLI writes it', () => {
    const c = checkSweep(DEFAULT_SWEEP, fields);
    expect(c).toMatchObject({ ok: true, spec: 'affinity_balanced.load_slack_s=0:0.2:5', pointCount: 5 });
    expect(isDefaultSweep({ ...DEFAULT_SWEEP, to: '2e-1' })).toBe(true);
  });

  it('offers every numeric page field and no trace field', () => {
    const keys = sweepableFields(fields).map((f) => f.key);
    expect(keys).toContain('workload.arrival_rate_per_s');
    expect(keys).toContain('cluster.replicas');
    expect(keys.some((k) => k.startsWith('trace.'))).toBe(false);
    expect(keys).not.toContain('policies');
  });

  it('an integer field gets rounded values without repeats', () => {
    const c = checkSweep({ param: 'cluster.replicas', from: '1', to: '4', steps: '6' }, fields);
    expect(c).toMatchObject({ ok: true, spec: 'cluster.replicas=1,2,3,4', pointCount: 4 });
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

  it('a new parameter starts from a range inside its bounds', () => {
    for (const f of sweepableFields(fields)) {
      const [from, to] = suggestedRange(f);
      expect(checkSweep(withParam(DEFAULT_SWEEP, f), fields).ok, `${f.key} ${from}:${to}`).toBe(true);
    }
  });
});

describe('sweep in the link', () => {
  it('round trips; the default sweep writes nothing', () => {
    expect(sweepUrlPairs(DEFAULT_SWEEP)).toEqual([]);
    const state = { param: 'workload.arrival_rate_per_s', from: '50', to: '150', steps: '5' };
    const query = encodeUrlState([['seed', '7']], { extra: sweepUrlPairs(state) });
    expect(query).toBe('?v=1&seed=7&sweep.param=workload.arrival_rate_per_s&sweep.from=50&sweep.to=150&sweep.steps=5');
    expect(decodeSweepUrl(query)).toEqual({ state, present: true, messages: [] });
    // The scenario's decoder leaves the sweep's keys alone, without messages.
    const scenario = decodeUrlState(query, fields);
    expect(scenario.overrides).toEqual([['seed', '7']]);
    expect(scenario.messages).toEqual([]);
  });

  it('no sweep keys: the default sweep, not present', () => {
    expect(decodeSweepUrl('?v=1&seed=3')).toEqual({ state: { ...DEFAULT_SWEEP }, present: false, messages: [] });
  });

  it('drops hostile values with a message and never throws', () => {
    const hostile = [
      'sweep.from=%E0%A4%A',
      'sweep.to=%3Cscript%3Ealert(1)%3C%2Fscript%3E',
      'sweep.steps=1e9',
      'sweep.steps=-5',
      `sweep.param=${'a'.repeat(100)}`,
      'sweep.param=__proto__.x',
      'sweep.bogus=1',
      'sweep.from=NaN',
      'sweep.to=Infinity',
    ];
    for (const part of hostile) {
      let state;
      expect(() => {
        state = decodeSweepUrl(`?v=1&${part}`);
      }, part).not.toThrow();
      expect(state!.messages.length, part).toBe(1);
      // Quoted and cut short (the page shows messages with textContent only).
      expect(state!.messages[0].text.length).toBeLessThan(140);
    }
    // A plausible key that is no numeric field survives decoding; checkSweep refuses it.
    const proto = decodeSweepUrl('?sweep.param=constructor');
    expect(proto.state.param).toBe('constructor');
    expect(checkSweep(proto.state, fields)).toMatchObject({ ok: false, problems: [{ input: 'param' }] });
    // A lexically fine value out of range survives decoding; checkSweep names the range.
    const s = decodeSweepUrl('?sweep.param=cluster.replicas&sweep.from=0&sweep.to=8&sweep.steps=3');
    expect(s.messages).toEqual([]);
    expect(checkSweep(s.state, fields)).toMatchObject({ ok: false, problems: [{ input: 'from' }] });
  });

  it('repeated keys: the last wins; huge queries are cut, not choked on', () => {
    expect(decodeSweepUrl('?sweep.steps=3&sweep.steps=7').state.steps).toBe('7');
    const long = `?${Array.from({ length: 5000 }, () => 'sweep.steps=4').join('&')}`;
    expect(decodeSweepUrl(long).state.steps).toBe('4');
    expect(() => decodeSweepUrl(null as unknown as string)).not.toThrow();
  });
});
