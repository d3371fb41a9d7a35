// The page's statistics presentation: which differences the table and the
// verdict may call distinguishable (the core's interval-overlap rule), the
// verdict's winner and margin, its gain over round robin, its piling
// warning and the recommended badge's check, on hand-made rows; the
// outlier-proof axis, the pinned-run diff.
import { describe, expect, it } from 'vitest';
import { chooseAxis, niceCeil } from '../../web/src/charts/chart-axis';
import { columnStanding, distinguishable, intervalsOverlap, seedCount } from '../../web/src/results/intervals';
import { scenarioDifferences } from '../../web/src/results/pinned-run';
import { parseResults, type PolicyResult, type Results } from '../../web/src/results/results';
import { COLUMNS } from '../../web/src/results/table-columns';
import { formatMargin, metricVerdict, untestedNote, verdictLine, verdicts, verdictSentence } from '../../web/src/results/verdict';
import { baselineGain, formatGain, GAIN_RATIO_FROM } from '../../web/src/results/baseline-gain';
import { IMBALANCE_BOUND, pilingSentence } from '../../web/src/results/piling';
import { CLEAR_MARGIN, checkRecommendation } from '../../web/src/results/recommendation';
import { loadCore } from './core';

const column = (id: string) => COLUMNS.find((c) => c.id === id)!;

/** A row with a p99 mean and interval (half-width h); other metrics fixed. */
function row(policy: string, p99: number, h: number | null, prefill = 1000): PolicyResult {
  const base = { policy, label: policy.toUpperCase(), mean_ttft_ms: p99 / 4, p50_ttft_ms: 0, p90_ttft_ms: 0, p99_ttft_ms: p99, max_ttft_ms: 0,
    hit_rate: 0.5, prompt_tokens: 0, prefill_tokens: prefill, cached_tokens: 0, imbalance: 1, replicas: [] };
  return h === null ? base : { ...base, interval: { p99_ttft_ms: { half_width: h, low: p99 - h, high: p99 + h }, prefill_tokens: { half_width: 1, low: prefill - 1, high: prefill + 1 } } };
}

function results(rows: PolicyResult[], n: number, scenario: Record<string, unknown> = {}): Results {
  return {
    schema: 'prefixroute.results/1', scenario, workload: { requests: 10, prompt_tokens: 0, fingerprint: '' }, results: rows,
    ...(n > 1 ? { replicates: { count: n, seeds: [1, 2, 3], confidence: 0.95, t: 4.3, headline_metrics: [], not_distinguishable: {} } } : {}),
  };
}

describe('distinguishable (the core rule: closed intervals sharing a point overlap)', () => {
  it('touching intervals overlap; disjoint ones do not; one seed is untested', () => {
    expect(intervalsOverlap({ low: 1, high: 2, half_width: 0.5 }, { low: 2, high: 3, half_width: 0.5 })).toBe(true);
    expect(intervalsOverlap({ low: 1, high: 2, half_width: 0.5 }, { low: 2.001, high: 3, half_width: 0.5 })).toBe(false);
    expect(distinguishable(row('a', 100, 5), row('b', 111, 5), 'p99_ttft_ms')).toBe(true);
    expect(distinguishable(row('a', 100, 5), row('b', 110, 5), 'p99_ttft_ms')).toBe(false);
    expect(distinguishable(row('a', 100, null), row('b', 500, null), 'p99_ttft_ms')).toBe(null);
  });

  it('agrees with the core’s not_distinguishable list on a real replicates run', async () => {
    const core = await loadCore();
    const run = core.runScenario('{}', JSON.stringify([['workload.requests', '400'], ['replicates', '3'],
      ['policies', 'round_robin,least_loaded,affinity,affinity_balanced,expected_ttft']]), null);
    if (!run.ok) throw new Error(run.message);
    const doc = parseResults(run.resultsJson);
    expect(seedCount(doc)).toBe(3);
    const info = doc.replicates!;
    // Both answers occur, so the comparison is not vacuous.
    const listed = Object.values(info.not_distinguishable).reduce((n, l) => n + l.length, 0);
    expect(listed).toBeGreaterThan(0);
    expect(listed).toBeLessThan(info.headline_metrics.length * 10);
    for (const metric of info.headline_metrics) {
      const ours: [string, string][] = [];
      doc.results.forEach((a, i) => doc.results.slice(i + 1).forEach((b) => {
        if (distinguishable(a, b, metric) === false) ours.push([a.policy, b.policy]);
      }));
      expect(ours, metric).toEqual(info.not_distinguishable[metric] ?? []);
    }
  });
});

describe('a column’s standing (the table’s “best” / “≈ best” and the verdict share it)', () => {
  it('best only when the leader is apart from every other row', () => {
    const c = column('p99_ttft_ms');
    expect(columnStanding([row('a', 100, 5), row('b', 120, 5), row('c', 300, 5)], c.id, c.value, c.better)).toEqual({ kind: 'best', leader: 0 });
    expect(columnStanding([row('a', 120, 5), row('b', 100, 5), row('c', 108, 5)], c.id, c.value, c.better)).toEqual({ kind: 'tied', leader: 1, with: [2] });
    expect(columnStanding([row('a', 120, null), row('b', 100, null)], c.id, c.value, c.better)).toEqual({ kind: 'untested', leader: 1 });
    expect(columnStanding([row('a', 120, 5)], c.id, c.value, c.better)).toEqual({ kind: 'none' });
  });
});

describe('the verdict', () => {
  it('names the winner, its margin over the runner-up and that the difference is distinguishable', () => {
    const doc = results([row('rr', 700, 50), row('ex', 86.9, 2), row('ab', 95, 2)], 3);
    const v = metricVerdict(doc, column('p99_ttft_ms'), 'Lowest p99 TTFT')!;
    expect(v.winner.policy).toBe('ex');
    expect(v.runnerUp!.policy).toBe('ab');
    expect(formatMargin(v.margin)).toBe('9%'); // (95 - 86.9) / 95
    expect(verdictSentence(doc, v)).toBe('Lowest p99 TTFT: EX (86.9 ms), 9% below AB (95.0 ms): distinguishable from every other policy at N = 3 seeds (95% intervals apart).');
  });

  it('says when the winner cannot be told from the runner-up at this N', () => {
    const doc = results([row('ab', 88.7, 3), row('ex', 86.9, 3)], 3);
    const v = metricVerdict(doc, column('p99_ttft_ms'), 'Lowest p99 TTFT')!;
    expect(verdictSentence(doc, v)).toBe('Lowest p99 TTFT: EX (86.9 ms), 2% below AB (88.7 ms): not distinguishable from AB at N = 3 seeds (95% intervals overlap).');
  });

  it('with one seed or a trace, says the differences are not tested', () => {
    const one = results([row('ab', 88.7, null), row('ex', 86.9, null)], 1);
    const all = verdicts(one, COLUMNS);
    expect(all.map((v) => [v.column.id, v.winner.policy, v.standing.kind])).toEqual([['p99_ttft_ms', 'ex', 'untested'], ['prefill_tokens', 'ab', 'untested']]);
    expect(verdictSentence(one, all[0])).toBe('Lowest p99 TTFT: EX (86.9 ms), 2% below AB (88.7 ms).');
    expect(untestedNote(one, all)).toMatch(/^One seed: these differences are not tested for chance/);
    const trace = results(one.results, 1, { trace: { name: 'x.jsonl', lines: 10 } });
    expect(untestedNote(trace, verdicts(trace, COLUMNS))).toMatch(/^One replay of the trace \(a trace has one replicate\)/);
    expect(untestedNote(results([row('a', 100, 5), row('b', 200, 5)], 3), verdicts(results([row('a', 100, 5), row('b', 200, 5)], 3), COLUMNS))).toBe('');
  });

  it('calls a winner level with the runner-up when they show the same figure', () => {
    const doc = results([row('ex', 7878.2, null), row('dy', 7878.4, null)], 1);
    expect(verdictSentence(doc, metricVerdict(doc, column('p99_ttft_ms'), 'Lowest p99 TTFT')!)).toBe('Lowest p99 TTFT: EX, level with DY (7,878 ms).');
  });

  it('margins below one percent read "<1%"', () => {
    expect(formatMargin(0.004)).toBe('<1%');
    expect(formatMargin(0)).toBe('0%');
    expect(formatMargin(0.355)).toBe('36%');
  });
});

describe('chooseAxis', () => {
  it('stays linear within two decades and cuts nothing when no bar towers over the rest', () => {
    expect(chooseAxis([15, 20, 90, 700], 'auto')).toEqual({ log: false, cap: null });
  });

  it('goes log beyond two decades, from a power of ten at least three times below the smallest value', () => {
    expect(chooseAxis([15, 87, 4.6e6], 'auto')).toEqual({ log: true, min: 1, cap: null });
    expect(chooseAxis([1050, 7878, 6e5], 'auto')).toEqual({ log: true, min: 100, cap: null });
    expect(chooseAxis([300, 2e5], 'auto')).toEqual({ log: true, min: 100, cap: null });
    expect(chooseAxis([299, 2e5], 'auto')).toEqual({ log: true, min: 10, cap: null });
    expect(chooseAxis([15, 20], 'log')).toEqual({ log: true, min: 1, cap: null });
  });

  it('on a linear axis cuts a bar more than ten times the next one, keeping half the bars whole', () => {
    expect(chooseAxis([15, 20, 90, 4.6e6], 'linear')).toEqual({ log: false, max: 100, cap: 100 });
    expect(chooseAxis([10, 12, 15, 200], 'auto')).toEqual({ log: false, max: 20, cap: 20 });
    expect(chooseAxis([1, 1000], 'linear')).toEqual({ log: false, max: 1.5, cap: 1.5 });
    // Two outliers alike: both cut (the lowest big gap), the rest drawn whole.
    expect(chooseAxis([4.6e6, 4.5e6, 20, 15], 'linear')).toEqual({ log: false, max: 25, cap: 25 });
    expect([0.7, 1, 1.01, 27202.7, 99, 101].map(niceCeil)).toEqual([0.8, 1, 1.5, 30000, 100, 150]);
    // Never more than half the bars: two of three are not cut.
    expect(chooseAxis([4.6e6, 4.5e6, 20], 'linear')).toEqual({ log: false, cap: null });
    expect(chooseAxis([0, 0], 'auto')).toEqual({ log: false, cap: null });
  });
});

describe('the pinned run', () => {
  it('names the scenario keys that differ', () => {
    const a = results([], 1, { seed: 42, cluster: { replicas: 4, engine: 'fifo' }, policies: ['a', 'b'] });
    const b = results([], 1, { seed: 42, cluster: { replicas: 8, engine: 'fifo' }, policies: ['a'] });
    expect(scenarioDifferences(a, b)).toEqual(['cluster.replicas 4 → 8', 'policies a,b → a']);
    expect(scenarioDifferences(a, a)).toEqual([]);
  });
});

/** A row as the core writes it, with the fields the verdict's rules read: p99 (± h with replicates), imbalance, replicas. */
function policyRow(policy: string, label: string, p99: number, { h = null as number | null, imbalance = 1, replicas = 8, prefill = 1000 } = {}): PolicyResult {
  const r = { ...row(policy, p99, h, prefill), label, imbalance, replicas: Array.from({ length: replicas }, () => ({ requests: 1, prefill_tokens: 1, cached_tokens: 0, work_ms: 1 })) };
  return r;
}

function run(rows: PolicyResult[], n: number, recommended = 'affinity_balanced', scenario: Record<string, unknown> = {}): Results {
  return { ...results(rows, n, scenario), recommended };
}

const p99 = column('p99_ttft_ms');

describe('the gain over round robin, in words', () => {
  it('a ratio from 2x on, a percentage below', () => {
    expect(formatGain(86.9, 707)).toBe('8.1x lower');
    expect(formatGain(100, 200)).toBe('2.0x lower');
    expect(formatGain(100, 199)).toBe('50% lower');
    expect(formatGain(100, 125)).toBe('20% lower');
    expect(formatGain(100, 100.4)).toBe('<1% lower');
    expect(GAIN_RATIO_FROM).toBe(2);
  });

  it('names the winner, the gain and both figures', () => {
    const doc = run([policyRow('round_robin', 'Round robin', 707.2), policyRow('expected_ttft', 'Expected TTFT', 86.91)], 1);
    const winner = doc.results[1];
    expect(baselineGain(doc, p99, winner).text).toBe('Expected TTFT has 8.1x lower p99 TTFT than Round robin (86.9 ms vs 707 ms).');
    const close = run([policyRow('round_robin', 'Round robin', 120), policyRow('affinity', 'Affinity', 90)], 1);
    expect(baselineGain(close, p99, close.results[1]).text).toBe('Affinity has 25% lower p99 TTFT than Round robin (90.0 ms vs 120 ms).');
  });

  it('says when round robin did not run, or is itself the winner, or level', () => {
    const without = run([policyRow('affinity', 'Affinity', 90), policyRow('least_loaded', 'Least loaded', 120)], 1);
    expect(baselineGain(without, p99, without.results[0], (p) => (p === 'round_robin' ? 'Round robin' : p)).text)
      .toBe('Round robin, the cache-blind baseline, was not run: add it to the policies to see the gain over it.');
    const rr = run([policyRow('round_robin', 'Round robin', 80), policyRow('affinity', 'Affinity', 90)], 1);
    expect(baselineGain(rr, p99, rr.results[0]).text).toBe('Round robin, the cache-blind baseline, has the lowest p99 TTFT here: no policy run beats it on this scenario.');
    const level = run([policyRow('round_robin', 'Round robin', 90.04), policyRow('affinity', 'Affinity', 90.01)], 1);
    expect(baselineGain(level, p99, level.results[1]).text).toBe('Affinity’s p99 TTFT is level with Round robin’s (90.0 ms).');
  });

  it('with replicates, a gain inside the intervals is called not distinguishable', () => {
    const doc = run([policyRow('round_robin', 'Round robin', 120, { h: 20 }), policyRow('affinity', 'Affinity', 100, { h: 5 })], 3);
    expect(baselineGain(doc, p99, doc.results[1]).text)
      .toBe('Affinity has 17% lower p99 TTFT than Round robin (100 ms vs 120 ms). Not distinguishable from it at N = 3 seeds (95% intervals overlap).');
    const apart = run([policyRow('round_robin', 'Round robin', 300, { h: 20 }), policyRow('affinity', 'Affinity', 100, { h: 5 })], 3);
    expect(baselineGain(apart, p99, apart.results[1]).text).toBe('Affinity has 3.0x lower p99 TTFT than Round robin (100 ms vs 300 ms).');
  });
});

describe('piling onto few replicas', () => {
  it('warns above an imbalance of 2, not at 2', () => {
    expect(IMBALANCE_BOUND).toBe(2);
    expect(pilingSentence([policyRow('a', 'A', 1, { imbalance: 2 })])).toBe('');
    expect(pilingSentence([policyRow('a', 'A', 1, { imbalance: 8, replicas: 8 })]))
      .toBe('A piles its work onto few replicas: imbalance 8.00 of at most 8 (its busiest replica did 8.00 times an even share; flagged above 2).');
  });

  it('names every piling policy once, in the order given', () => {
    const a = policyRow('a', 'A', 1, { imbalance: 7.95 });
    const b = policyRow('b', 'B', 1, { imbalance: 1.2 });
    const c = policyRow('c', 'C', 1, { imbalance: 2.5 });
    expect(pilingSentence([a, b, c, a])).toBe('A and C pile their work onto few replicas: imbalance 7.95 and 2.50 of at most 8 (the busiest replica did that many times an even share; flagged above 2).');
  });
});

describe('the recommended badge against the reader’s run', () => {
  it('one seed: withheld when another policy’s p99 is at least 10% lower, kept below that', () => {
    expect(CLEAR_MARGIN).toBe(0.1);
    const kept = run([policyRow('affinity_balanced', 'Affinity balanced', 100), policyRow('round_robin', 'Round robin', 91)], 1);
    expect(checkRecommendation(kept).kind).toBe('holds');
    const doc = run([policyRow('affinity_balanced', 'Affinity balanced', 100), policyRow('round_robin', 'Round robin', 90), policyRow('affinity', 'Affinity', 85)], 1);
    const check = checkRecommendation(doc);
    expect(check.kind).toBe('withheld');
    if (check.kind !== 'withheld') return;
    expect(check.better.policy).toBe('affinity');
    expect(check.sentence).toBe('No badge: Affinity beats the recommended Affinity balanced here.');
    expect(check.detail).toBe('On this scenario Affinity is clearly better than the recommended Affinity balanced: p99 TTFT 85.0 ms vs 100 ms, 15% lower (one seed: clearly means at least 10% lower), so the badge is withheld here.');
  });

  it('replicates: withheld only when the 95% intervals are apart, whatever the margin', () => {
    const overlap = run([policyRow('affinity_balanced', 'Affinity balanced', 100, { h: 10 }), policyRow('round_robin', 'Round robin', 80, { h: 15 })], 3);
    expect(checkRecommendation(overlap).kind).toBe('holds');
    const apart = run([policyRow('affinity_balanced', 'Affinity balanced', 100, { h: 2 }), policyRow('round_robin', 'Round robin', 95, { h: 2 })], 3);
    const check = checkRecommendation(apart);
    expect(check.kind).toBe('withheld');
    if (check.kind === 'withheld') expect(check.detail).toMatch(/5% lower \(95% intervals apart at N = 3 seeds\), so the badge is withheld here\.$/);
  });

  it('is absent when the recommended policy did not run', () => {
    expect(checkRecommendation(run([policyRow('round_robin', 'Round robin', 90)], 1)).kind).toBe('absent');
  });
});

describe('the verdict line', () => {
  it('winner, gain over round robin, prefill, piling, withheld badge, then the untested note, in that order', () => {
    const doc = run([
      policyRow('round_robin', 'Round robin', 707, { prefill: 5000 }),
      policyRow('affinity_balanced', 'Affinity balanced', 120, { prefill: 2000 }),
      policyRow('expected_ttft', 'Expected TTFT', 87, { imbalance: 8, prefill: 1500 }),
    ], 1);
    const line = verdictLine(doc, COLUMNS);
    expect(line.parts.map((p) => p.kind)).toEqual(['metric', 'gain', 'metric', 'piling', 'recommendation', 'note']);
    expect(line.parts[1].text).toBe('Expected TTFT has 8.1x lower p99 TTFT than Round robin (87.0 ms vs 707 ms).');
    expect(line.parts[3].text).toMatch(/^Expected TTFT piles its work onto few replicas: imbalance 8\.00 of at most 8/);
    expect(line.parts[4].text).toBe('No badge: Expected TTFT beats the recommended Affinity balanced here.');
    expect(line.recommendation.kind).toBe('withheld');
  });

  it('warns about a piling policy the line names, not about one it does not', () => {
    const doc = run([
      policyRow('round_robin', 'Round robin', 700),
      policyRow('affinity_balanced', 'Affinity balanced', 100),
      policyRow('affinity', 'Affinity', 95),
      policyRow('llmd', 'LLMD', 400, { imbalance: 6, prefill: 2000 }),
    ], 1);
    const line = verdictLine(doc, COLUMNS);
    expect(line.parts.some((p) => p.kind === 'piling')).toBe(false);
    expect(line.recommendation.kind).toBe('holds');
    const piled = run(doc.results.map((r) => (r.policy === 'round_robin' ? { ...r, imbalance: 3 } : r)), 1);
    expect(verdictLine(piled, COLUMNS).parts.find((p) => p.kind === 'piling')?.text).toMatch(/^Round robin piles its work/);
  });
});
