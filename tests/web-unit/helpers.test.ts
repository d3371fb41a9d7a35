// The CDF downsampling, the counts in words, the CSV export, the schema
// reading and the labels in the core's messages.
import { describe, expect, it } from 'vitest';
import { cdfPoints } from '../../web/src/worker/cdf';
import { CSV_COLUMNS, CSV_OPTIONAL_COLUMNS, CSV_SOURCE_COLUMNS, CSV_STAGE_FIGURES, resultsToCsv } from '../../web/src/results/export';
import { formatChange, formatCountOf, formatMs, formatPointChange } from '../../web/src/ui/format';
import { parseResults } from '../../web/src/results/results';
import { PRESETS, presetOverrides } from '../../web/src/state/presets';
import { resolveOverrides } from '../../web/src/state/resolve';
import { isPageField, labelKeys, type Pair } from '../../web/src/state/schema';
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

  it('says 1 line, 2 lines: a count of exactly one takes the singular', () => {
    expect(formatCountOf(1, 'line')).toBe('1 line');
    expect(formatCountOf(0, 'line')).toBe('0 lines');
    expect(formatCountOf(2, 'line')).toBe('2 lines');
    expect(formatCountOf(1000, 'request')).toBe('1,000 requests');
    expect(formatCountOf(1, 'policy', 'policies')).toBe('1 policy');
    expect(formatCountOf(3, 'policy', 'policies')).toBe('3 policies');
  });
});

/**
 * Splits RFC 4180 CSV text into records of fields: CRLF between records,
 * quoted fields may hold commas, quotes (doubled) and line breaks. Throws on
 * anything else (a bare LF, a quote inside an unquoted field).
 */
function parseRfc4180(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) throw new Error('unterminated quoted field');
        if (text[i] === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
          } else {
            i++;
            break;
          }
        } else field += text[i++];
      }
    } else {
      while (i < text.length && text[i] !== ',' && text[i] !== '\r' && text[i] !== '\n') {
        if (text[i] === '"') throw new Error(`a quote inside an unquoted field at ${i}`);
        field += text[i++];
      }
    }
    record.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
      if (i === text.length) return records;
      continue;
    }
    throw new Error(`expected a comma or CRLF at ${i}, found ${JSON.stringify(text.slice(i, i + 10))}`);
  }
}

describe('exports', () => {
  it('CSV is plain RFC 4180: one header row, a row per policy, no comment lines; the command and link in columns', async () => {
    const core = await loadCore();
    const run = core.runScenario('{}', JSON.stringify([['workload.requests', '300']]), null);
    expect(run.ok).toBe(true);
    if (!run.ok) return;
    const results = parseResults(run.resultsJson);
    const link = 'https://example.org/prefixroute/?v=1&workload.requests=300';
    const csv = resultsToCsv(results, [['workload.requests', '300']], undefined, link);
    // Spreadsheets import `#` lines as data: there are none.
    expect(csv.split('\r\n').some((l) => l.startsWith('#'))).toBe(false);
    const records = parseRfc4180(csv);
    const header = [...CSV_COLUMNS, ...CSV_SOURCE_COLUMNS];
    expect(records[0]).toEqual(header);
    expect(records).toHaveLength(1 + results.results.length);
    for (const [i, row] of records.slice(1).entries()) {
      expect(row).toHaveLength(header.length);
      const cell = (c: string) => row[header.indexOf(c as (typeof header)[number])];
      expect(cell('policy')).toBe(results.results[i].policy);
      expect(Number(cell('hit_rate'))).toBe(results.results[i].hit_rate);
      expect(cell('workload_fingerprint')).toBe(results.workload.fingerprint);
      expect(cell('command')).toBe('prefixroute --set workload.requests=300');
      expect(cell('link')).toBe(link);
    }
  });

  it('CSV adds the decode and per-session figures when the run has them, at full precision', async () => {
    const core = await loadCore();
    const plain = core.runScenario('{}', JSON.stringify([['workload.requests', '50']]), null);
    if (!plain.ok) throw new Error('run failed');
    expect(parseRfc4180(resultsToCsv(parseResults(plain.resultsJson), []))[0]).toEqual([...CSV_COLUMNS, ...CSV_SOURCE_COLUMNS]);
    const overrides: Pair[] = [
      ['workload.kind', 'sessions'],
      ['workload.requests', '200'],
      ['cluster.engine', 'batched'],
      ['hardware.model', 'llama-3.1-8b'],
      ['hardware.gpu', 'h100'],
      ['policies', 'round_robin,affinity'],
    ];
    const run = core.runScenario('{}', JSON.stringify(overrides), null);
    if (!run.ok) throw new Error('run failed');
    const results = parseResults(run.resultsJson);
    const records = parseRfc4180(resultsToCsv(results, overrides));
    expect(records[0]).toEqual([...CSV_COLUMNS, ...CSV_OPTIONAL_COLUMNS, ...CSV_SOURCE_COLUMNS]);
    for (const [i, row] of records.slice(1).entries()) {
      const r = results.results[i] as unknown as Record<string, number>;
      for (const c of ['p99_tpot_ms', 'output_tokens_per_s', 'later_call_hit_rate', 'one_replica_session_share']) {
        expect(Number(row[records[0].indexOf(c)])).toBe(r[c]);
      }
    }
  });

  it('CSV of results with load stages: a stage column, each policy’s whole-run row followed by a row per stage with the JSON’s stage figures', async () => {
    const core = await loadCore();
    const overrides: Pair[] = [...presetOverrides(PRESETS.find((p) => p.id === 'load-ladder')!.document), ['policies', 'round_robin,affinity']];
    const run = core.runScenario('{}', JSON.stringify(overrides), null);
    if (!run.ok) throw new Error('run failed');
    const results = parseResults(run.resultsJson);
    const doc = JSON.parse(run.resultsJson) as { results: Record<string, unknown>[] & { stages: Record<string, unknown>[] }[] };
    const records = parseRfc4180(resultsToCsv(results, overrides));
    const header = records[0];
    expect(header.slice(0, 3)).toEqual(['policy', 'label', 'stage']);
    // Every stage figure has a column: the run's column of its name, or one of its own after the run's.
    for (const key of CSV_STAGE_FIGURES) expect(header, key).toContain(key);
    expect(Object.keys(doc.results[0].stages[0]).sort()).toEqual([...CSV_STAGE_FIGURES].sort());
    expect(header.slice(-CSV_SOURCE_COLUMNS.length)).toEqual([...CSV_SOURCE_COLUMNS]);
    const rows = records.slice(1);
    expect(rows.map((r) => `${r[0]}:${r[2]}`)).toEqual(
      ['round_robin', 'affinity'].flatMap((p) => [`${p}:`, ...[1, 2, 3, 4, 5, 6].map((k) => `${p}:${k}`)]),
    );
    const cell = (row: string[], c: string) => row[header.indexOf(c)];
    for (const row of rows) {
      expect(row).toHaveLength(header.length);
      const policy = doc.results.find((r) => r.policy === row[0])!;
      if (row[2] === '') {
        expect(Number(cell(row, 'p90_ttft_ms'))).toBe(policy.p90_ttft_ms);
        expect(Number(cell(row, 'prefill_tokens'))).toBe(policy.prefill_tokens);
        expect(cell(row, 'load')).toBe('');
        expect(cell(row, 'completed_per_s')).toBe('');
        continue;
      }
      const stage = policy.stages[Number(row[2]) - 1];
      for (const key of CSV_STAGE_FIGURES) {
        const v = stage[key];
        expect(cell(row, key), `${row[0]} stage ${row[2]} ${key}`).toBe(v === null ? '' : String(v));
      }
      expect(cell(row, 'prefill_tokens')).toBe('');
      expect(cell(row, 'command')).toBe(cell(rows[0], 'command'));
    }
    // The stage rows' p90 TTFT differ from their run row's: the cells are the stages' own.
    expect(cell(rows[1], 'p90_ttft_ms')).not.toBe(cell(rows[0], 'p90_ttft_ms'));
  });

  it('CSV names a replayed trace in its command, quoted for the shell when it must be', async () => {
    const core = await loadCore();
    const run = core.runScenario('{}', JSON.stringify([['workload.requests', '50']]), null);
    if (!run.ok) throw new Error('run failed');
    const results = parseResults(run.resultsJson);
    const records = parseRfc4180(resultsToCsv(results, [['cluster.replicas', '8']], "my trace's.jsonl"));
    const command = records[1][records[0].indexOf('command')];
    expect(command).toBe("prefixroute --trace 'my trace'\\''s.jsonl' --set cluster.replicas=8");
  });

  it('reads every scenario field from the schema with range and default', async () => {
    const fields = await loadFields();
    const keys = fields.map((f) => f.key);
    for (const k of ['seed', 'workload.requests', 'cluster.cache_tokens', 'affinity_balanced.load_slack_s', 'policies']) {
      expect(keys).toContain(k);
    }
    // Of the trace settings only the slicing fields and an openai log's key choices are controls (in the Trace replay panel).
    const shown = fields.filter(isPageField).map((f) => f.key);
    expect(shown.filter((k) => k.startsWith('trace.')).sort()).toEqual(['trace.end_s', 'trace.limit', 'trace.prompt_field', 'trace.session_field', 'trace.start_s', 'trace.time_field', 'trace.time_scale']);
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

describe('labels in the core\'s messages', () => {
  it('a field error beside a control names other fields by their labels, not their keys', async () => {
    const core = await loadCore();
    const fields = (await loadFields()).filter(isPageField);
    const validate = (o: Pair[]) => core.validateScenario('{}', JSON.stringify(o));
    const { rejected } = resolveOverrides(validate, [['workload.prefix_tokens_min', '1000']]);
    expect(rejected).toHaveLength(1);
    // The core's message keeps the key (the command line relies on it) ...
    expect(rejected[0].message).toContain('workload.prefix_tokens_max (880)');
    // ... the page shows the label.
    const shown = labelKeys(rejected[0].message, fields);
    expect(shown).toContain('“Prefix length, max” (880)');
    expect(shown).not.toContain('workload.');
  });

  it('replaces whole dotted keys only; a shared label gets its group', async () => {
    const fields = (await loadFields()).filter(isPageField);
    expect(labelKeys('workload.prefix_tokens_min: must be <= workload.prefix_tokens_max.', fields))
      .toBe('“Prefix length, min”: must be <= “Prefix length, max”.');
    // Not a key: a longer name, or a key inside another word.
    expect(labelKeys('workload.prefix_tokens_maxx and xworkload.requests', fields)).toBe('workload.prefix_tokens_maxx and xworkload.requests');
    // Top-level keys are words of the messages too: left alone.
    expect(labelKeys('the seed and the policies', fields)).toBe('the seed and the policies');
    // "Block size" is the label of several policies' fields.
    expect(labelKeys('must be <= dynamo_kv.block_size', fields, (g) => (g === 'dynamo_kv' ? 'Dynamo KV' : g))).toBe('must be <= “Block size” (Dynamo KV)');
  });
});
