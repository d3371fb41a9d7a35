// The CDF downsampling, the CSV export and the schema reading.
import { describe, expect, it } from 'vitest';
import { cdfPoints } from '../../web/src/cdf';
import { CSV_COLUMNS, resultsToCsv } from '../../web/src/export';
import { formatChange, formatMs, formatPointChange } from '../../web/src/format';
import { parseResults } from '../../web/src/results';
import { isPageField } from '../../web/src/schema';
import { loadCore, loadFields } from './core';

describe('cdfPoints', () => {
  it('is monotone, ends at 1 and stays small', () => {
    const samples = Float64Array.from({ length: 100_000 }, (_, i) => ((i * 7919) % 100_000) / 10);
    const { x, y } = cdfPoints(samples);
    expect(x.length).toBeLessThanOrEqual(220);
    expect(y[y.length - 1]).toBe(1);
    expect(x[x.length - 1]).toBe(9999.9);
    for (let i = 1; i < x.length; i++) {
      expect(x[i]).toBeGreaterThan(x[i - 1]);
      expect(y[i]).toBeGreaterThan(y[i - 1]);
    }
  });

  it('handles empty and constant series', () => {
    expect(cdfPoints([])).toEqual({ x: [], y: [] });
    expect(cdfPoints([2, 2, 2])).toEqual({ x: [2], y: [1] });
  });
});

describe('formats', () => {
  it('shows changes against round robin with a real minus sign', () => {
    expect(formatChange(1, 10)).toBe('\u221290%');
    expect(formatChange(11, 10)).toBe('+10%');
    expect(formatChange(10.01, 10)).toBe('±0%');
    expect(formatPointChange(0.9, 0.8)).toBe('+10.0 pp');
    expect(formatMs(3.35280342675)).toBe('3.35');
    expect(formatMs(18.125)).toBe('18.1');
    expect(formatMs(1234.5)).toBe('1,235');
  });
});

describe('exports', () => {
  it('CSV has the scenario in comment lines and one row per policy', async () => {
    const core = await loadCore();
    const run = core.runScenario('{}', JSON.stringify([['workload.requests', '300']]), null);
    expect(run.ok).toBe(true);
    if (!run.ok) return;
    const results = parseResults(run.resultsJson);
    const csv = resultsToCsv(results, [['workload.requests', '300']]);
    const lines = csv.trimEnd().split('\n');
    const comments = lines.filter((l) => l.startsWith('#'));
    expect(comments.some((l) => l.includes('"requests":300'))).toBe(true);
    expect(comments.some((l) => l.includes('--set workload.requests=300'))).toBe(true);
    const rows = lines.filter((l) => !l.startsWith('#'));
    expect(rows[0]).toBe(CSV_COLUMNS.join(','));
    expect(rows).toHaveLength(1 + results.results.length);
    expect(rows[1].split(',')[0]).toBe(results.results[0].policy);
  });

  it('reads every scenario field from the schema with range and default', async () => {
    const fields = await loadFields();
    const keys = fields.map((f) => f.key);
    for (const k of ['seed', 'workload.requests', 'cluster.cache_tokens', 'affinity_balanced.load_slack_s', 'policies']) {
      expect(keys).toContain(k);
    }
    // Trace settings are not controls: a trace is chosen in the Trace replay panel.
    const shown = fields.filter(isPageField).map((f) => f.key);
    expect(shown.some((k) => k.startsWith('trace.'))).toBe(false);
    expect(shown).toContain('workload.requests');
    const requests = fields.find((f) => f.key === 'workload.requests')!;
    expect(requests.kind).toBe('integer');
    expect(requests.min).toBeGreaterThanOrEqual(1);
    expect(requests.description.length).toBeGreaterThan(0);
  });

  it('labels every field the page shows with the schema’s x-label', async () => {
    const fields = (await loadFields()).filter(isPageField);
    expect(fields.find((f) => f.key === 'workload.requests')?.label).toBe('Requests');
    // A field without x-label would be shown under its dotted key: none is.
    expect(fields.filter((f) => f.label === f.key || f.label === '').map((f) => f.key)).toEqual([]);
  });
});
