// The embed's link options (embed-options.ts), its snippet (embed-snippet.ts) and
// the hosted-trace check (hosted-trace.ts): every option round-trips through
// the link, bad keys and values are named with what is allowed, and a
// hosted trace is replayed only while its bytes have the linked SHA-256.
import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  decodeEmbedOptions,
  defaultEmbedOptions,
  EMBED_CHARTS,
  EMBED_THEMES,
  EMBED_VIEWS,
  type EmbedOptions,
  embedOptionPairs,
  MAX_READER_CONTROLS,
} from '../../web/src/embed/embed-options';
import { fetchHostedTrace, HostedTraceError, sha256Hex } from '../../web/src/trace/hosted-trace';
import { defaultPageState, pageStateFromUrl } from '../../web/src/state/page-state';
import type { FieldInfo } from '../../web/src/state/schema';
import { embedLink, embedSnippet, hasSloBound, policiesShown } from '../../web/src/embed/embed-snippet';
import { fallbackHeight } from '../../web/src/embed/fallback-height';
import { loadFields } from './core';

let fields: FieldInfo[];
beforeAll(async () => {
  fields = await loadFields();
});

const BASE = 'https://example.org/play/';
const SHA = 'ab'.repeat(32);

/** The options an embed link made from these options reads back. */
function roundTrip(options: EmbedOptions): ReturnType<typeof decodeEmbedOptions> {
  const link = embedLink(defaultPageState(), options, BASE);
  return decodeEmbedOptions(new URL(link).search, fields);
}

describe('embed options in the link', () => {
  it('round-trip every view, chart, theme, up to three controls and a hosted trace', () => {
    const cases: EmbedOptions[] = [defaultEmbedOptions()];
    for (const view of EMBED_VIEWS) cases.push({ ...defaultEmbedOptions(), view });
    for (const chart of EMBED_CHARTS) cases.push({ ...defaultEmbedOptions(), view: 'chart', chart });
    for (const theme of EMBED_THEMES) cases.push({ ...defaultEmbedOptions(), theme });
    cases.push({ ...defaultEmbedOptions(), controls: ['cluster.replicas', 'workload.requests', 'policies'] });
    cases.push({ ...defaultEmbedOptions(), hosted: { url: 'https://traces.example.org/a b/c.jsonl?x=1&y=2', sha256: SHA } });
    for (const options of cases) {
      const back = roundTrip(options);
      expect(back.messages).toEqual([]);
      expect(back.options).toEqual(options);
    }
  });

  it('write only what differs from the defaults, and the embed flag for the page', () => {
    expect(embedOptionPairs(defaultEmbedOptions())).toEqual([]);
    const link = embedLink({ ...defaultPageState(), overrides: [['seed', '7']] }, { ...defaultEmbedOptions(), view: 'table', chart: 'cdf' }, BASE);
    expect(link).toBe(`${BASE}?v=1&seed=7&embed=1&embed.view=table`);
    // The scenario part of the link is still the page's: no message about the embed keys.
    const page = pageStateFromUrl(new URL(link).search, fields);
    expect(page.notices).toEqual([]);
    expect(page.state.embed).toBe(true);
  });

  it('name an unknown key, a bad value and what is allowed; keep the rest', () => {
    const { options, messages } = decodeEmbedOptions('?embed=1&embed.view=grid&embed.chart=cdf&embed.colour=red&embed.theme=DARK', fields);
    expect(options).toEqual({ ...defaultEmbedOptions(), chart: 'cdf' });
    expect(messages).toEqual([
      'Ignored "embed.colour": not an embed option; the options are embed.view, embed.chart, embed.theme, embed.controls, embed.trace_url or embed.trace_sha256.',
      'embed.view: "grid" is not allowed; use table-chart, table, chart, sweep, timeline or capacity. Using table-chart.',
      'embed.theme: "DARK" is not allowed; use host, light or dark. Using host.',
    ]);
  });

  it('a bare guess at an embed key (`&chart=cdf`) names the real key', () => {
    const page = pageStateFromUrl('?v=1&embed=1&chart=cdf', fields);
    expect(page.notices.map((n) => n.text)).toEqual(['Ignored "chart": an embed\'s chart is chosen with embed.chart.']);
  });

  it('offer at most three controls, all scenario fields', () => {
    const { options, messages } = decodeEmbedOptions('?embed.controls=seed,nope,cluster.replicas,seed,workload.requests,policies', fields);
    expect(options.controls).toEqual(['seed', 'cluster.replicas', 'workload.requests']);
    expect(options.controls.length).toBe(MAX_READER_CONTROLS);
    expect(messages[0]).toMatch(/^embed\.controls: "nope" is not a scenario field/);
    expect(messages[1]).toBe('embed.controls: at most 3 fields; "policies" and any after it are not offered.');
  });

  it('a hosted trace needs an https URL and a 64-digit SHA-256', () => {
    for (const [query, pattern] of [
      [`?embed.trace_url=http%3A%2F%2Fx.org%2Ft.jsonl&embed.trace_sha256=${SHA}`, /embed\.trace_url "http:\/\/x\.org\/t\.jsonl" is not an https URL/],
      [`?embed.trace_url=javascript%3Aalert(1)&embed.trace_sha256=${SHA}`, /is not an https URL/],
      ['?embed.trace_url=https%3A%2F%2Fx.org%2Ft.jsonl&embed.trace_sha256=abc', /embed\.trace_sha256 "abc" is not 64 lowercase hex digits/],
      ['?embed.trace_url=https%3A%2F%2Fx.org%2Ft.jsonl', /embed\.trace_sha256 is missing/],
    ] as const) {
      const { options, messages } = decodeEmbedOptions(query, fields);
      expect(options.hosted).toBeNull();
      expect(messages.join(' ')).toMatch(pattern);
    }
  });

  it('the snippet: the frame at a fallback height, then the host script that checks origin and source', () => {
    const options = { ...defaultEmbedOptions(), view: 'table' as const };
    const snippet = embedSnippet(defaultPageState(), options, BASE, 'a,b,c,d');
    const [frame, ...script] = snippet.split('\n');
    const height = fallbackHeight(options, 4);
    expect(frame).toBe(`<iframe src="${BASE}?v=1&amp;embed=1&amp;embed.view=table" title="prefixroute: prefix-cache-aware routing" width="100%" height="${height.attribute}" style="border:0;width:100%;height:${height.css};display:block" loading="lazy"></iframe>`);
    const js = script.join('\n');
    expect(js).toMatch(/e\.origin !== o \|\| e\.source !== f\.contentWindow/);
    expect(js).toMatch(/'prefixroute:height'/);
    // A hosted trace's embed is served as embed.html (the policy that allows the fetch).
    expect(embedLink(defaultPageState(), { ...defaultEmbedOptions(), hosted: { url: 'https://x.org/t.jsonl', sha256: SHA } }, `${BASE}index.html`))
      .toMatch(/^https:\/\/example\.org\/play\/embed\.html\?v=1&embed=1&embed\.trace_url=/);
  });
});

describe('the capacity embed', () => {
  it('is a view of the link, with the SLO of the scenario in the same link', () => {
    const state = { ...defaultPageState(), overrides: [['slo.ttft_ms', '2000'], ['slo.ttft_percentile', '90']] as [string, string][] };
    const link = embedLink(state, { ...defaultEmbedOptions(), view: 'capacity', chart: 'cdf' }, BASE);
    expect(link).toBe(`${BASE}?v=1&slo.ttft_ms=2000&slo.ttft_percentile=90&embed=1&embed.view=capacity`);
    const back = decodeEmbedOptions(new URL(link).search, fields);
    expect(back.messages).toEqual([]);
    expect(back.options.view).toBe('capacity');
    const page = pageStateFromUrl(new URL(link).search, fields);
    expect(page.notices).toEqual([]);
    expect(page.state.overrides).toEqual(state.overrides);
  });

  it('needs an SLO bound: TTFT or TPOT above 0 ms', () => {
    expect(hasSloBound(defaultPageState())).toBe(false);
    expect(hasSloBound({ ...defaultPageState(), overrides: [['slo.ttft_percentile', '90'], ['slo.ttft_ms', '0']] })).toBe(false);
    expect(hasSloBound({ ...defaultPageState(), overrides: [['slo.ttft_ms', '2000']] })).toBe(true);
    expect(hasSloBound({ ...defaultPageState(), overrides: [['slo.tpot_ms', '50']] })).toBe(true);
  });

  it('its fallback height holds a bar per policy in each of its two groups', () => {
    const two = fallbackHeight({ ...defaultEmbedOptions(), view: 'capacity' }, 2);
    const sixteen = fallbackHeight({ ...defaultEmbedOptions(), view: 'capacity' }, 16);
    expect(sixteen.attribute).toBeGreaterThan(two.attribute);
    // Taller than the chart view: the SLO inputs, two bar groups and the curve.
    expect(two.attribute).toBeGreaterThan(fallbackHeight({ ...defaultEmbedOptions(), view: 'chart' }, 2).attribute);
  });
});

describe('hosted trace', () => {
  const text = '{"timestamp":0,"input_length":10,"output_length":1,"hash_ids":[1]}\n';
  const sha = createHash('sha256').update(text).digest('hex');
  const serve = (body: string, status = 200) => (async () => new Response(body, { status, headers: { 'content-length': String(body.length) } })) as unknown as typeof fetch;

  it('hashes like sha256sum', async () => {
    expect(await sha256Hex(new Blob([text]))).toBe(sha);
  });

  it('is returned as a File when unchanged, with progress', async () => {
    const seen: number[] = [];
    const file = await fetchHostedTrace('https://x.org/dir/t.jsonl', sha, (b) => seen.push(b), serve(text));
    expect(file.name).toBe('t.jsonl');
    expect(await file.text()).toBe(text);
    expect(seen.at(-1)).toBe(text.length);
  });

  it('is refused when changed, unreachable or answered with an error', async () => {
    await expect(fetchHostedTrace('https://x.org/t.jsonl', sha, undefined, serve(`${text}x`))).rejects.toThrow(/has changed since this link was made/);
    await expect(fetchHostedTrace('https://x.org/t.jsonl', sha, undefined, serve('', 404))).rejects.toThrow(/the server answered 404/);
    const down = (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    await expect(fetchHostedTrace('https://x.org/t.jsonl', sha, undefined, down)).rejects.toThrow(HostedTraceError);
    await expect(fetchHostedTrace('https://x.org/t.jsonl', sha, undefined, down)).rejects.toThrow(/could not be fetched \(Failed to fetch\).*Access-Control-Allow-Origin/);
  });

  it('the fallback height: taller for narrower columns, more policies and reader controls; a CSS height that follows the viewport', () => {
    const views = ['table-chart', 'table', 'chart', 'sweep', 'timeline', 'capacity'] as const;
    const at = (css: string, vw: number) => {
      const m = /^max\((\d+)px, calc\((\d+)px - ([\d.]+)vw\)\)$/.exec(css);
      expect(m, css).not.toBeNull();
      return Math.max(Number(m![1]), Number(m![2]) - (Number(m![3]) * vw) / 100);
    };
    for (const view of views) {
      const base = fallbackHeight({ ...defaultEmbedOptions(), view }, 4);
      expect(at(base.css, 320)).toBeGreaterThan(at(base.css, 700));
      expect(at(base.css, 1200)).toBe(at(base.css, 2000));
      expect(base.attribute).toBeGreaterThanOrEqual(Math.round(at(base.css, 320)) - 1);
      const controls = fallbackHeight({ ...defaultEmbedOptions(), view, controls: ['seed'] }, 4);
      for (const vw of [320, 390, 700, 1200]) expect(at(controls.css, vw)).toBeGreaterThan(at(base.css, vw));
      if (view === 'table' || view === 'table-chart' || view === 'sweep' || view === 'capacity') {
        const more = fallbackHeight({ ...defaultEmbedOptions(), view }, 12);
        for (const vw of [320, 390, 700, 1200]) expect(at(more.css, vw)).toBeGreaterThan(at(base.css, vw));
      }
    }
    // The policies an embed shows: its state's, else the core's default list, else the bare page's most.
    expect(policiesShown({ ...defaultPageState(), overrides: [['policies', 'a,b']] }, 'x,y,z')).toBe(2);
    expect(policiesShown(defaultPageState(), 'x,y,z')).toBe(3);
    expect(policiesShown(defaultPageState())).toBe(8);
  });
});
