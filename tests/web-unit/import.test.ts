// The guided import's texts (trace-figures.ts: the core's trace summary and
// hardware summary as the dialog states them, the mapping choices offered),
// its override edits (import-edits.ts), the replay's "Same as" command and a full-page link's hosted trace
// (trace-link.ts): pure logic, no DOM, no module needed.
import { describe, expect, test } from 'vitest';
import { readTraceLink, splitTraceQuery, traceLinkPairs, type TraceLink } from '../../web/src/state/trace-link';
import { applyEdits } from '../../web/src/trace/import-edits';
import { sameAsCommand } from '../../web/src/trace/trace-summary';
import { clusterStatement, figureRows, formatDuration, formatRate, mappingRows, parseTraceFigures, type TraceFigures } from '../../web/src/trace/trace-figures';

const lengths = (mean: number, p50: number, p99: number) => ({ total: 0, mean, p50, p99, max: p99 });

function figures(over: Partial<TraceFigures> = {}): TraceFigures {
  return {
    name: 'log.jsonl', format: 'openai', lines: 24, skipped_lines: 0, content_hash: '0123456789abcdef',
    requests: 24, duration_s: 69, request_rate_per_s: 24 / 69,
    prompt_tokens: lengths(41.5, 41, 43), output_tokens: lengths(41.5, 41, 53),
    sessions: { count: 4, multi_request: 4 }, shared_prefix_tokens: 700, shared_prefix_share: 0.7031, ideal_hit_rate: 0.6441,
    fields: {
      time: { chosen: 'auto', read: { timestamp: 0, created: 24 }, present: { timestamp: 0, created: 24 } },
      prompt: { chosen: 'auto', read: { messages: 24, prompt: 0 }, present: { messages: 24, prompt: 0 } },
      session: { chosen: 'auto', read: { session_id: 0, user: 24, none: 0 }, present: { session_id: 0, user: 24 } },
    },
    ...over,
  };
}

describe('what was read', () => {
  test('reads only the core’s trace summary', () => {
    expect(parseTraceFigures('')).toBeNull();
    expect(parseTraceFigures('{"schema": "prefixroute.hardware/1"}')).toBeNull();
    expect(parseTraceFigures('not json')).toBeNull();
    expect(parseTraceFigures(JSON.stringify({ ...figures(), schema: 'prefixroute.trace/1' }))?.requests).toBe(24);
  });

  test('states every figure with the core’s number behind it', () => {
    const rows = figureRows(figures());
    expect(rows.map((r) => r.key)).toEqual(['requests', 'duration_s', 'request_rate_per_s', 'prompt_tokens', 'output_tokens', 'sessions', 'shared_prefix_share', 'ideal_hit_rate']);
    const by = Object.fromEntries(rows.map((r) => [r.key, r]));
    expect(by.requests.text).toBe('24 from 24 lines');
    expect(by.duration_s.text).toBe('69 s');
    expect(by.request_rate_per_s.text).toBe('0.348 requests/s');
    expect(by.prompt_tokens.text).toBe('mean 42 · p50 41 · p99 43 tokens');
    expect(by.sessions.text).toBe('4 (4 of more than one request)');
    expect(by.shared_prefix_share.value).toBe(0.7031);
    expect(by.shared_prefix_share.text).toMatch(/^70\.3% \(700 tokens/);
    expect(by.ideal_hit_rate.text).toMatch(/^64\.4% /);
    expect(figureRows(figures({ sessions: null })).find((r) => r.key === 'sessions')?.text).toMatch(/^none/);
  });

  test('durations and rates read as a person says them', () => {
    expect(formatDuration(4.25)).toBe('4.25 s');
    expect(formatDuration(600)).toBe('10 min');
    expect(formatDuration(36000)).toBe('10 h');
    expect(formatRate(0)).toBe('—');
    expect(formatRate(1234.5)).toBe('1230 requests/s');
  });
});

describe('the mapping', () => {
  test('says which key gave each part, and offers a choice only where the log has one', () => {
    const rows = mappingRows(figures());
    expect(rows.map((r) => r.text)).toEqual(['from created for 24 requests', 'from messages for 24 requests', 'from user for 24 requests']);
    expect(rows[0].choices).toEqual([]);  // only created: nothing to choose
    expect(rows[1].choices).toEqual([]);
    expect(rows[2].choices.map((c) => c.value)).toEqual(['auto', 'user', 'none']);
    expect(rows[2].field).toBe('trace.session_field');
  });

  test('both time keys in the log: timestamp or created may be chosen', () => {
    const f = figures();
    f.fields!.time = { chosen: 'created', read: { timestamp: 0, created: 24 }, present: { timestamp: 24, created: 24 } };
    const time = mappingRows(f)[0];
    expect(time.chosen).toBe('created');
    expect(time.choices.map((c) => c.value)).toEqual(['auto', 'timestamp', 'created']);
  });

  test('a Mooncake or Bailian trace has fixed keys: no rows', () => {
    expect(mappingRows(figures({ format: 'mooncake', fields: null }))).toEqual([]);
  });
});

describe('the cluster', () => {
  const hardware = (over: object) => JSON.stringify({
    schema: 'prefixroute.hardware/1', model: 'llama-3.1-70b', replica: { gpus: 4, tp: 4 },
    presets: { model: { label: 'Llama-3.1-70B' }, gpu: { label: 'H100-SXM 80GB' } },
    fields: [{ key: 'cluster.cache_tokens', in_force: 513088, source: 'derived', derived: 513088, formula: null }],
    ...over,
  });

  test('states the model, replicas, GPUs, TP and the derived cache', () => {
    const s = clusterStatement('{"cluster": {"replicas": 3}}', hardware({}));
    expect(s?.text).toBe('Will model Llama-3.1-70B on 3 × (4 × H100-SXM 80GB, TP 4), cache 513,088 tokens per replica (derived from the model and GPU).');
    expect(s?.cacheTokens).toBe(513088);
  });

  test('without a model, the raw settings', () => {
    const s = clusterStatement('{"cluster": {"replicas": 4}}', hardware({ model: 'none', replica: undefined, presets: undefined,
      fields: [{ key: 'cluster.cache_tokens', in_force: 4000, source: 'default', derived: null, formula: null }] }));
    expect(s?.text).toBe('Will model 4 replicas (the raw cost settings, no model), cache 4,000 tokens per replica (the default; no model chosen).');
  });

  test('nothing to state without a valid scenario', () => {
    expect(clusterStatement('', hardware({}))).toBeNull();
    expect(clusterStatement('{"cluster": {"replicas": 3}}', '')).toBeNull();
  });
});

describe('edits and commands', () => {
  test('an edit replaces or removes a key, the others kept in order', () => {
    expect(applyEdits([['cluster.replicas', '3'], ['policies', 'round_robin']], new Map([['cluster.replicas', '6'], ['trace.session_field', 'user']])))
      .toEqual([['cluster.replicas', '6'], ['policies', 'round_robin'], ['trace.session_field', 'user']]);
    expect(applyEdits([['cluster.cache_tokens', '1000'], ['policies', 'affinity']], new Map([['cluster.cache_tokens', null]])))
      .toEqual([['policies', 'affinity']]);
  });

  test('the "Same as" command of a replay', () => {
    expect(sameAsCommand('log.jsonl', [['cluster.replicas', '3'], ['trace.session_field', 'user']], 'stop'))
      .toBe('prefixroute --trace log.jsonl --set cluster.replicas=3 --set trace.session_field=user');
    expect(sameAsCommand('log.jsonl', [], 'skip')).toBe('prefixroute --trace log.jsonl --set trace.on_error=skip');
  });
});

describe('a full-page link to a hosted trace', () => {
  const sha = 'ab'.repeat(32);
  test('travels as trace.url and trace.sha256, and reads back', () => {
    const link: TraceLink = { kind: 'hosted', url: 'https://example.org/t.jsonl', sha256: sha, onError: 'skip' };
    const pairs = traceLinkPairs(link);
    expect(pairs).toEqual([['trace.url', 'https://example.org/t.jsonl'], ['trace.sha256', sha], ['trace.on_error', 'skip']]);
    const query = `?v=1&${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}&cluster.replicas=3`;
    const split = splitTraceQuery(query);
    expect(split.rest).toBe('?v=1&cluster.replicas=3');
    expect(readTraceLink(split.trace)).toEqual({ link, messages: [] });
  });

  test('an http address or a bad hash is dropped with a message naming it', () => {
    const http = readTraceLink(new Map([['trace.url', 'http://example.org/t.jsonl'], ['trace.sha256', sha]]));
    expect(http.link).toEqual({ kind: 'none' });
    expect(http.messages[0]).toMatch(/^Ignored trace\.url \(.*not an https URL/);
    const bad = readTraceLink(new Map([['trace.url', 'https://example.org/t.jsonl'], ['trace.sha256', 'xyz']]));
    expect(bad.link).toEqual({ kind: 'none' });
    expect(bad.messages[0]).toMatch(/^Ignored trace\.sha256 \(must be 64 lowercase hex digits/);
  });
});
