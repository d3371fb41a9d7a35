// The page's state in its link (page-state.ts, trace-link.ts, sweep-link.ts on url-state.ts's format):
// round trips, migration of old links, the trace's and the sweep's keys, and
// hostile input, which must be reported with notices and never throw.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultPageState, type PageState, pageStateFromUrl, pageStateToUrl } from '../../web/src/state/page-state';
import { decodeSweepKeys, sweepLinkPairs } from '../../web/src/state/sweep-link';
import { readTraceLink, splitTraceQuery, traceLinkPairs, type TraceLink } from '../../web/src/state/trace-link';
import type { PrefixrouteModule } from '../../web/src/worker/prefixroute-module';
import { PRESETS, presetOverrides, PUBLISHED_GROUP } from '../../web/src/state/presets';
import { resolveOverrides } from '../../web/src/state/resolve';
import type { FieldInfo, Pair } from '../../web/src/state/schema';
import { nonDefaultOverrides, scenarioValues } from '../../web/src/state/schema';
import { checkSweep, DEFAULT_SWEEP } from '../../web/src/sweep/sweep-state';
import { EXCERPT } from '../../web/src/trace/trace-source';
import { URL_LIMITS } from '../../web/src/state/link-text';
import { isEmbedQuery, URL_VERSION } from '../../web/src/state/url-state';
import { loadCore, loadFields } from './core';

let fields: FieldInfo[];
let core: PrefixrouteModule;

beforeAll(async () => {
  core = await loadCore();
  fields = await loadFields();
});

const validate = (o: Pair[]) => core.validateScenario('{}', JSON.stringify(o));

/** The link of a state that differs from the default only in these overrides (and options). */
function link(overrides: Pair[], options: Partial<PageState> = {}): string {
  return pageStateToUrl({ ...defaultPageState(), overrides, ...options });
}

/** Decodes without ever throwing (a throw fails the test); the scenario's part as { overrides, messages, version, embed }. */
function decode(search: string) {
  let decoded;
  expect(() => {
    decoded = pageStateFromUrl(search, fields);
  }).not.toThrow();
  const d = decoded!;
  return { overrides: d.state.overrides, messages: d.notices, version: d.version, embed: d.state.embed, decoded: d };
}

describe('round trip', () => {
  it('writes v first, dotted keys, readable policy lists', () => {
    const q = link([
      ['seed', '7'],
      ['workload.requests', '8000'],
      ['policies', 'affinity,round_robin'],
    ]);
    expect(q).toBe('?v=1&seed=7&workload.requests=8000&policies=affinity,round_robin');
  });

  it('gives back the same overrides with no messages', () => {
    const cases: Pair[][] = [
      [],
      [['workload.requests', '8000']],
      [
        ['seed', '9007199254740991'],
        ['workload.zipf_s', '1.35'],
        ['workload.arrival_rate_per_s', '0.001'],
        ['cluster.cache_tokens', '0'],
        ['affinity_balanced.load_slack_s', '1e-3'],
        ['policies', 'affinity_balanced,round_robin'],
      ],
    ];
    for (const overrides of cases) {
      const state = decode(link(overrides));
      expect(state.messages).toEqual([]);
      expect(state.overrides).toEqual(overrides);
      expect(state.version).toBe(URL_VERSION);
      expect(state.embed).toBe(false);
    }
  });

  it('passes every catalogue policy name through a link', () => {
    const names = fields.find((f) => f.key === 'policies')!.options;
    const state = decode(link([['policies', names.join(',')]]));
    expect(state.messages).toEqual([]);
    expect(state.overrides).toEqual([['policies', names.join(',')]]);
    expect(validate(state.overrides).ok).toBe(true);
  });

  it('keeps the embed flag apart from the scenario', () => {
    const state = decode(link([['cluster.replicas', '8']], { embed: true }));
    expect(state.embed).toBe(true);
    expect(state.overrides).toEqual([['cluster.replicas', '8']]);
  });

  it('reproduces the canonical scenario through the core', () => {
    const overrides: Pair[] = [
      ['workload.tenants', '20'],
      ['cluster.replicas', '6'],
      ['workload.zipf_s', '1.5'],
      ['policies', 'round_robin,affinity'],
    ];
    const first = validate(overrides);
    expect(first.ok).toBe(true);
    const values = scenarioValues(first.scenarioJson!, fields);
    const again = validate(decode(link(nonDefaultOverrides(values, fields))).overrides);
    expect(again.scenarioJson).toBe(first.scenarioJson);
  });

  it('writes nothing but the version for the reference scenario', () => {
    const values = scenarioValues(validate([]).scenarioJson!, fields);
    expect(link(nonDefaultOverrides(values, fields))).toBe('?v=1');
    expect(pageStateToUrl(defaultPageState())).toBe('?v=1');
  });

  it('reads a link without v as the current version', () => {
    const state = decode('?workload.requests=500');
    expect(state.version).toBe(URL_VERSION);
    expect(state.overrides).toEqual([['workload.requests', '500']]);
  });

  it('every preset is a valid scenario', () => {
    for (const p of PRESETS) expect(validate(presetOverrides(p.document)).errors).toEqual([]);
  });

  it('lists every failure-mode preset of scenarios/, its description as its blurb', () => {
    const dir = fileURLToPath(new URL('../../scenarios/', import.meta.url));
    const shipped = fs.readdirSync(dir).filter((f) => f.startsWith('failure-') && f.endsWith('.json'));
    expect(shipped.length).toBeGreaterThan(0);
    for (const file of shipped) {
      const preset = PRESETS.find((p) => p.id === file.replace(/\.json$/, ''));
      expect(preset, file).toBeDefined();
      const doc = JSON.parse(fs.readFileSync(`${dir}/${file}`, 'utf8')) as { description: string[] };
      expect(preset!.blurb).toBe(doc.description.join(' '));
      expect(presetOverrides(preset!.document).some(([key]) => key === 'description')).toBe(false);
    }
  });

  it('lists every published experiment of scenarios/published/ under its group, labelled with its claim’s title, parsing in the core as the file does', () => {
    const dir = fileURLToPath(new URL('../../scenarios/published/', import.meta.url));
    const claims = (JSON.parse(fs.readFileSync(`${dir}/claims.json`, 'utf8')) as { claims: { id: string; title: string; scenario: string }[] }).claims;
    const files = fs.readdirSync(dir).filter((f) => f.endsWith('.json') && f !== 'claims.json').sort();
    expect(files.length).toBeGreaterThan(0);
    const published = PRESETS.filter((p) => p.group === PUBLISHED_GROUP);
    expect(published).toHaveLength(files.length);
    for (const file of files) {
      const text = fs.readFileSync(`${dir}/${file}`, 'utf8');
      const claim = claims.find((c) => c.scenario === `scenarios/published/${file}`);
      expect(claim, `${file}: no claim names it`).toBeDefined();
      const preset = published.find((p) => p.id === `published-${claim!.id}`);
      expect(preset, file).toBeDefined();
      expect(preset!.label).toBe(`${claim!.id}: ${claim!.title}`);
      expect(preset!.document).toEqual(JSON.parse(text));
      expect(preset!.blurb).toBe((JSON.parse(text) as { description: string[] }).description.join(' '));
      // The page runs the preset's overrides; the command line runs the file: the core reads the same scenario.
      const asFile = core.validateScenario(text, '[]');
      const asPreset = core.validateScenario('{}', JSON.stringify(presetOverrides(preset!.document)));
      expect(asFile.ok && asPreset.ok, `${file}: ${JSON.stringify(asFile.errors)} ${JSON.stringify(asPreset.errors)}`).toBe(true);
      if (asFile.ok && asPreset.ok) expect(asPreset.scenarioJson).toBe(asFile.scenarioJson);
    }
  });
});

describe('migration', () => {
  it('reads v0 links (short keys, policies joined by |) as v1', () => {
    const state = decode('?v=0&n=8000&r=8&c=12000&z=1.2&s=3&p=affinity|round_robin');
    expect(state.version).toBe(0);
    expect(state.messages).toEqual([]);
    expect(new Map(state.overrides)).toEqual(
      new Map([
        ['workload.requests', '8000'],
        ['cluster.replicas', '8'],
        ['cluster.cache_tokens', '12000'],
        ['workload.zipf_s', '1.2'],
        ['seed', '3'],
        ['policies', 'affinity,round_robin'],
      ]),
    );
    expect(validate(state.overrides).ok).toBe(true);
  });

  it('reads a link from a newer version as the current one, with a message', () => {
    const state = decode('?v=7&workload.requests=900');
    expect(state.overrides).toEqual([['workload.requests', '900']]);
    expect(state.messages.some((m) => /newer version/.test(m.text))).toBe(true);
  });

  it('reports a non-numeric version', () => {
    const state = decode('?v=abc&seed=1');
    expect(state.messages.some((m) => /version/.test(m.text))).toBe(true);
    expect(state.overrides).toEqual([['seed', '1']]);
  });
});

describe('hostile input', () => {
  const rejectedWithMessage = (search: string, key: string | null = null) => {
    const state = decode(search);
    expect(state.overrides).toEqual([]);
    expect(state.messages.length).toBeGreaterThan(0);
    if (key) expect(state.messages.some((m) => m.key === key)).toBe(true);
    return state;
  };

  it('drops script tags, raw or encoded', () => {
    rejectedWithMessage('?workload.requests=<script>alert(1)</script>', 'workload.requests');
    rejectedWithMessage('?workload.requests=%3Cscript%3Ealert(1)%3C%2Fscript%3E', 'workload.requests');
    rejectedWithMessage('?policies=round_robin,%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E', 'policies');
    rejectedWithMessage('?%3Cscript%3E=1');
  });

  it('drops double-encoded and odd encodings', () => {
    rejectedWithMessage('?workload.requests=%253Cscript%253E', 'workload.requests');
    rejectedWithMessage('?workload.requests=%E0%A4%A'); // truncated UTF-8 escape
    rejectedWithMessage('?workload.requests=%');
    rejectedWithMessage('?workload.requests=4%00000', 'workload.requests');
    rejectedWithMessage('?workload.requests=%EF%BC%94%EF%BC%90', 'workload.requests'); // full-width digits
    rejectedWithMessage('?workload.requests=%E2%80%AE0004', 'workload.requests'); // right-to-left override
    rejectedWithMessage('?workload.requests=+4000', 'workload.requests'); // '+' is a space
  });

  it('drops NaN, infinities, hex and numbers too large to represent', () => {
    for (const v of ['NaN', 'Infinity', '-Infinity', '0x10', '1e400', '-1e999', '4,000', '4000abc', '', '.5', '1.', '007']) {
      rejectedWithMessage(`?workload.requests=${encodeURIComponent(v)}`, 'workload.requests');
    }
  });

  it('lets the core refuse plausible numbers out of range, naming the field', () => {
    for (const [key, value] of [
      ['workload.requests', '0'],
      ['workload.requests', '1e30'],
      ['workload.zipf_s', '-1'],
      ['cluster.replicas', '2.5'],
      ['seed', '99999999999999999999'],
    ] as Pair[]) {
      const state = decode(`?${key}=${value}`);
      expect(state.overrides).toEqual([[key, value]]);
      const resolved = resolveOverrides(validate, state.overrides);
      expect(resolved.accepted).toEqual([]);
      expect(resolved.rejected).toHaveLength(1);
      expect(resolved.rejected[0].key).toBe(key);
      expect(resolved.rejected[0].message.length).toBeGreaterThan(0);
      expect(resolved.scenarioJson).toBe(validate([]).scenarioJson);
    }
  });

  it('keeps the valid fields when one is refused', () => {
    const state = decode('?workload.requests=500&cluster.replicas=0&policies=affinity,bogus');
    const resolved = resolveOverrides(validate, state.overrides);
    expect(resolved.accepted).toEqual([['workload.requests', '500']]);
    expect(resolved.rejected.map((r) => r.key).sort()).toEqual(['cluster.replicas', 'policies']);
  });

  it('handles a cross-field error that names a field the link did not set', () => {
    const resolved = resolveOverrides(validate, [['workload.prefix_tokens_max', '100']]);
    expect(resolved.accepted).toEqual([]);
    expect(resolved.rejected[0].key).toBe('workload.prefix_tokens_max');
    expect(resolved.rejected[0].message).toMatch(/prefix_tokens_min/);
  });

  it('accepts a pair of fields that are only valid together', () => {
    const pairs: Pair[] = [
      ['workload.prefix_tokens_min', '1200'],
      ['workload.prefix_tokens_max', '1500'],
    ];
    const resolved = resolveOverrides(validate, pairs);
    expect(resolved.rejected).toEqual([]);
    expect(resolved.accepted).toEqual(pairs);
  });

  it('uses the last of repeated keys, with a message', () => {
    const state = decode('?workload.requests=100&workload.requests=200&workload.requests=300');
    expect(state.overrides).toEqual([['workload.requests', '300']]);
    expect(state.messages).toEqual([{ section: 'scenario', key: 'workload.requests', text: expect.stringMatching(/3 times/) }]);
  });

  it('ignores unknown keys, prototype names included', () => {
    const state = decode('?__proto__=1&constructor=2&toString=3&workload=4&workload.bogus=5&x.y.z=6&seed=5');
    expect(state.overrides).toEqual([['seed', '5']]);
    expect(state.messages).toHaveLength(6);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('caps very long values, keys and queries', () => {
    rejectedWithMessage(`?workload.requests=${'9'.repeat(URL_LIMITS.value + 1)}`);
    rejectedWithMessage(`?${'k'.repeat(10_000)}=1`);
    const huge = `?seed=1&${'workload.tenants=3&'.repeat(50_000)}`;
    const started = performance.now();
    const state = decode(huge);
    expect(performance.now() - started).toBeLessThan(500);
    expect(state.messages.some((m) => /characters long/.test(m.text))).toBe(true);
    expect(state.overrides).toEqual([
      ['seed', '1'],
      ['workload.tenants', '3'],
    ]);
  });

  it('keeps messages short whatever the input', () => {
    const state = decode(`?workload.requests=${'<b>'.repeat(80)}&${'z'.repeat(60)}=1`);
    for (const m of state.messages) expect(m.text.length).toBeLessThan(200);
  });

  it('never throws on random garbage', () => {
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const alphabet = 'ab=&%?.+,;#<>"\'\\/ 0123456789eE-_\u0000\u00ff\u2028\ud800v';
    for (let i = 0; i < 3000; i++) {
      let s = '';
      const len = Math.floor(rand() * 80);
      for (let j = 0; j < len; j++) s += alphabet[Math.floor(rand() * alphabet.length)];
      const state = decode(s);
      expect(Array.isArray(state.overrides)).toBe(true);
    }
    for (const odd of [undefined, null, 42, {}] as unknown as string[]) decode(odd);
  });
});

describe('the whole state', () => {
  it('round trips: overrides, trace, sweep and embed come back as written, without notices', () => {
    const states: PageState[] = [
      defaultPageState(),
      {
        overrides: [['cluster.replicas', '8'], ['policies', 'affinity,round_robin']],
        trace: { kind: 'excerpt', onError: 'skip' },
        sweep: { param: 'workload.arrival_rate_per_s', from: '50', to: '150', steps: '5' },
        embed: false,
      },
      {
        overrides: [['seed', '3']],
        trace: { kind: 'file', name: 'my trace.jsonl', contentHash: '0123456789abcdef', onError: 'stop' },
        sweep: { ...DEFAULT_SWEEP },
        embed: true,
      },
    ];
    for (const state of states) {
      const decoded = pageStateFromUrl(pageStateToUrl(state), fields);
      expect(decoded.state).toEqual(state);
      expect(decoded.notices).toEqual([]);
      expect(decoded.runSweep).toBe(sweepLinkPairs(state.sweep).length > 0);
    }
  });

  it('writes the parts in a fixed order: scenario, trace, sweep, embed', () => {
    const query = pageStateToUrl({
      overrides: [['seed', '7']],
      trace: { kind: 'excerpt', onError: 'skip' },
      sweep: { param: 'cluster.replicas', from: '2', to: '6', steps: '3' },
      embed: true,
    });
    expect(query).toBe(
      `?v=1&seed=7&trace=${EXCERPT.linkValue}&trace.on_error=skip` +
        '&sweep.param=cluster.replicas&sweep.from=2&sweep.to=6&sweep.steps=3&embed=1',
    );
  });

  it('reads the embed flag exactly as isEmbedQuery does (the page decides its layout with it first)', () => {
    for (const q of ['?embed=1', '?v=1&embed=true', '?embed=0', '?embed=1&embed=0', '?%65mbed=1', '?xembed=1', '?embed=1x', '']) {
      expect(pageStateFromUrl(q, fields).state.embed, q).toBe(isEmbedQuery(q));
    }
  });

  it('drops the scenario keys the page offers no control for, naming them', () => {
    const d = pageStateFromUrl('?v=1&trace.block_size=4&seed=2', fields);
    expect(d.state.overrides).toEqual([['seed', '2']]);
    expect(d.notices).toEqual([{ section: 'scenario', key: null, text: expect.stringMatching(/^Ignored trace\.block_size: /) }]);
  });

  it('keeps each part’s notices in its own section', () => {
    const d = pageStateFromUrl('?v=1&bogus=1&trace=/etc/passwd&sweep.steps=abc', fields);
    expect(d.notices.map((n) => n.section)).toEqual(['scenario', 'scenario', 'sweep']);
  });
});

describe('trace keys', () => {
  it('the excerpt is named by one key and survives a round trip with the scenario keys', () => {
    const trace: TraceLink = { kind: 'excerpt', onError: 'skip' };
    const query = link([['cluster.replicas', '8']], { trace });
    expect(query).toBe(`?v=1&cluster.replicas=8&trace=${EXCERPT.linkValue}&trace.on_error=skip`);
    const split = splitTraceQuery(query);
    expect(split.rest).toBe('?v=1&cluster.replicas=8');
    expect(readTraceLink(split.trace)).toEqual({ link: trace, messages: [] });
  });

  it('an uploaded file travels as its name and content hash only', () => {
    const trace: TraceLink = { kind: 'file', name: 'my trace.jsonl', contentHash: '0123456789abcdef', onError: 'stop' };
    expect(traceLinkPairs(trace)).toEqual([['trace.name', 'my trace.jsonl'], ['trace.content_hash', '0123456789abcdef']]);
    expect(pageStateFromUrl(link([], { trace }), fields).state.trace).toEqual(trace);
  });

  it('no trace keys: nothing to replay, the query untouched', () => {
    expect(splitTraceQuery('?v=1&seed=7')).toEqual({ trace: new Map(), rest: '?v=1&seed=7' });
    expect(readTraceLink(new Map()).link).toEqual({ kind: 'none' });
    expect(traceLinkPairs({ kind: 'none' })).toEqual([]);
  });

  it('unusable values are dropped with a message, never thrown', () => {
    const bad = readTraceLink(new Map([['trace', '/etc/passwd'], ['trace.on_error', 'explode']]));
    expect(bad.link).toEqual({ kind: 'none' });
    expect(bad.messages).toHaveLength(2);
    const hash = readTraceLink(new Map([['trace.name', 'a.jsonl'], ['trace.content_hash', 'XYZ']]));
    expect(hash.link).toEqual({ kind: 'file', name: 'a.jsonl', contentHash: '', onError: 'stop' });
    expect(hash.messages[0]).toMatch(/16 lowercase hex digits/);
    expect(splitTraceQuery('?trace=%E0%A4%A&v=1').rest).toBe('?v=1');
    const long = readTraceLink(new Map([['trace.name', 'x'.repeat(1000)]]));
    expect(long.link.kind === 'file' && long.link.name.length).toBe(256);
  });

  it('the last occurrence of a key wins, as with repeated --set', () => {
    const split = splitTraceQuery('?trace.on_error=skip&trace=mooncake-excerpt&trace.on_error=stop');
    expect(readTraceLink(split.trace).link).toEqual({ kind: 'excerpt', onError: 'stop' });
  });
});

describe('sweep keys', () => {
  it('round trip; the default sweep writes nothing and runs nothing', () => {
    expect(sweepLinkPairs(DEFAULT_SWEEP)).toEqual([]);
    const sweep = { param: 'workload.arrival_rate_per_s', from: '50', to: '150', steps: '3' };
    const query = link([['seed', '7']], { sweep });
    expect(query).toBe('?v=1&seed=7&sweep.param=workload.arrival_rate_per_s&sweep.from=50&sweep.to=150&sweep.steps=3');
    expect(decodeSweepKeys(query)).toEqual({ state: sweep, present: true, messages: [] });
    // The scenario's keys and the sweep's keys do not disturb each other.
    const d = pageStateFromUrl(query, fields);
    expect(d.state.overrides).toEqual([['seed', '7']]);
    expect(d.state.sweep).toEqual(sweep);
    expect(d.notices).toEqual([]);
    expect(d.runSweep).toBe(true);
    expect(decodeSweepKeys('?v=1&seed=3')).toEqual({ state: { ...DEFAULT_SWEEP }, present: false, messages: [] });
    expect(pageStateFromUrl('?v=1&seed=3', fields).runSweep).toBe(false);
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
      let decoded;
      expect(() => {
        decoded = decodeSweepKeys(`?v=1&${part}`);
      }, part).not.toThrow();
      expect(decoded!.messages.length, part).toBe(1);
      // Quoted and cut short (the page shows messages with textContent only).
      expect(decoded!.messages[0].length).toBeLessThan(140);
      expect(pageStateFromUrl(`?v=1&${part}`, fields).state.sweep, part).toEqual(DEFAULT_SWEEP);
    }
  });

  it('a key that is no numeric page field falls back to the default sweep, with a notice', () => {
    // Plausible to the decoder …
    expect(decodeSweepKeys('?sweep.param=constructor').state.param).toBe('constructor');
    // … but not a field the panel offers.
    for (const param of ['constructor', 'trace.limit', 'policies']) {
      const d = pageStateFromUrl(`?sweep.param=${param}&sweep.from=1&sweep.to=2&sweep.steps=3`, fields);
      expect(d.state.sweep, param).toEqual(DEFAULT_SWEEP);
      expect(d.notices, param).toEqual([{ section: 'sweep', key: null, text: `Sweep: ${param} is not a numeric scenario field; the default sweep is used.` }]);
    }
  });

  it('a plausible value out of range survives reading; checkSweep names the range', () => {
    const d = pageStateFromUrl('?sweep.param=cluster.replicas&sweep.from=0&sweep.to=8&sweep.steps=3', fields);
    expect(d.notices).toEqual([]);
    expect(checkSweep(d.state.sweep, fields)).toMatchObject({ ok: false, problems: [{ input: 'from' }] });
  });

  it('repeated keys: the last wins; huge queries are cut, not choked on', () => {
    expect(decodeSweepKeys('?sweep.steps=3&sweep.steps=7').state.steps).toBe('7');
    const long = `?${Array.from({ length: 5000 }, () => 'sweep.steps=4').join('&')}`;
    expect(decodeSweepKeys(long).state.steps).toBe('4');
    expect(() => decodeSweepKeys(null as unknown as string)).not.toThrow();
  });
});
