// The URL state: round trips, migration of old links, and hostile input,
// which must be reported with messages and never throw.
import { beforeAll, describe, expect, it } from 'vitest';
import { PRESETS, presetOverrides } from '../../web/src/presets';
import { resolveOverrides } from '../../web/src/resolve';
import type { FieldInfo } from '../../web/src/schema';
import { nonDefaultOverrides, scenarioValues } from '../../web/src/schema';
import { decodeUrlState, encodeUrlState, URL_LIMITS, URL_VERSION, type Pair } from '../../web/src/url-state';
import { loadCore, loadFields } from './core';
import type { PrefixrouteModule } from '../../web/src/prefixroute-module';

let fields: FieldInfo[];
let core: PrefixrouteModule;

beforeAll(async () => {
  core = await loadCore();
  fields = await loadFields();
});

const validate = (o: Pair[]) => core.validateScenario('{}', JSON.stringify(o));

/** Decodes without ever throwing; a throw fails the test. */
function decode(search: string) {
  let state;
  expect(() => {
    state = decodeUrlState(search, fields);
  }).not.toThrow();
  return state!;
}

describe('round trip', () => {
  it('writes v first, dotted keys, readable policy lists', () => {
    const q = encodeUrlState([
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
      const state = decode(encodeUrlState(overrides));
      expect(state.messages).toEqual([]);
      expect(state.overrides).toEqual(overrides);
      expect(state.version).toBe(URL_VERSION);
      expect(state.embed).toBe(false);
    }
  });

  it('passes every catalogue policy name through a link', () => {
    const names = fields.find((f) => f.key === 'policies')!.options;
    const state = decode(encodeUrlState([['policies', names.join(',')]]));
    expect(state.messages).toEqual([]);
    expect(state.overrides).toEqual([['policies', names.join(',')]]);
    expect(validate(state.overrides).ok).toBe(true);
  });

  it('keeps the embed flag apart from the scenario', () => {
    const state = decode(encodeUrlState([['cluster.replicas', '8']], { embed: true }));
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
    const link = encodeUrlState(nonDefaultOverrides(values, fields));
    const again = validate(decode(link).overrides);
    expect(again.scenarioJson).toBe(first.scenarioJson);
  });

  it('writes nothing but the version for the reference scenario', () => {
    const values = scenarioValues(validate([]).scenarioJson!, fields);
    expect(encodeUrlState(nonDefaultOverrides(values, fields))).toBe('?v=1');
  });

  it('reads a link without v as the current version', () => {
    const state = decode('?workload.requests=500');
    expect(state.version).toBe(URL_VERSION);
    expect(state.overrides).toEqual([['workload.requests', '500']]);
  });

  it('every preset is a valid scenario', () => {
    for (const p of PRESETS) expect(validate(presetOverrides(p.document)).errors).toEqual([]);
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
    expect(state.messages).toEqual([{ key: 'workload.requests', text: expect.stringMatching(/3 times/) }]);
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
