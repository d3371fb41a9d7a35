// The page's state, as its link carries it: the scenario's overrides, the
// trace replayed, the Sweep panel's inputs and the view options (embed).
// main.ts reads it once from the address (pageStateFromUrl), renders from it,
// and writes it back as the page changes (pageStateToUrl); share links and
// the embed snippet are the same text. Both functions are pure.
//
// The format is url-state.ts's (`?v=1&…`: versioned, migrated, decoded
// defensively); on top of the scenario's keys this module reads:
//
// - Trace keys. The shipped excerpt is `trace=mooncake-excerpt`. An uploaded
//   file cannot travel: its link carries the keys the command line uses for
//   it (`trace.name=FILE&trace.content_hash=HEX`), and opening it asks the
//   user to load the file again (the core then checks the hash). The bad-line
//   mode travels as `trace.on_error=skip`. They are taken out of the query
//   before the scenario's keys are read.
// - Sweep keys, `sweep.param`, `sweep.from`, `sweep.to`, `sweep.steps`: only
//   a sweep that differs from the default is written, and then all four; a
//   link naming any of them runs its sweep when opened.
//
// Decoding never throws: what cannot be used is dropped with a notice that
// names what was dropped, to be shown beside the field, in the link's
// messages or in the Sweep section. What survives is only lexically
// plausible: the core validates the scenario, checkSweep the sweep's range.

import { isPageField, type FieldInfo, type Pair, UNSUPPORTED_GROUPS } from './schema';
import { DEFAULT_SWEEP, isDefaultSweep, sweepableFields, type SweepState } from './sweep-state';
import { EXCERPT, type OnError } from './trace-source';
import { decodeComponent, decodeUrlState, encodeUrlState, isEmbedQuery, preview, URL_LIMITS, URL_VERSION } from './url-state';

/** What a link says about the trace to replay instead of the synthetic workload. */
export type TraceLink =
  | { kind: 'none' }
  | { kind: 'excerpt'; onError: OnError }
  | { kind: 'file'; name: string; contentHash: string; onError: OnError };

/** Everything of the page a link carries. */
export interface PageState {
  /**
   * Scenario overrides (dotted key, value text) in link order: only
   * lexically plausible, not validated (the worker resolves them with the
   * core and keeps what it accepts).
   */
  overrides: Pair[];
  /** The trace replayed instead of the synthetic workload. */
  trace: TraceLink;
  /** The Sweep panel's inputs, as texts. */
  sweep: SweepState;
  /** The compact layout for iframes: no controls, table and one chart; the address is never rewritten. */
  embed: boolean;
}

/** Something of a link that could not be used as it was. */
export interface UrlNotice {
  /** Where the page shows it: with the scenario (beside `key`, and in the link's messages) or in the Sweep section. */
  section: 'scenario' | 'sweep';
  /** The scenario field it is about (a known dotted key), or null for the link as a whole. */
  key: string | null;
  /** Plain text (shown with textContent): untrusted parts are quoted and cut short. */
  text: string;
}

/** pageStateFromUrl's answer. */
export interface DecodedPageState {
  state: PageState;
  /** Everything dropped or replaced, per section in link order. */
  notices: UrlNotice[];
  /** The link's format version before migration. */
  version: number;
  /** Whether the link named any sweep key: a shared sweep runs when the page opens. */
  runSweep: boolean;
}

/** The reference scenario, synthetic workload, default sweep, full layout: what `?v=1` means. */
export function defaultPageState(): PageState {
  return { overrides: [], trace: { kind: 'none' }, sweep: { ...DEFAULT_SWEEP }, embed: false };
}

// ---- trace keys ----

/** Query keys of the trace; the rest of the query is the scenario's and the sweep's. */
export const TRACE_LINK_KEYS = ['trace', 'trace.name', 'trace.content_hash', 'trace.on_error'] as const;

const HASH_RE = /^[0-9a-f]{16}$/;
const MAX_NAME = 256;

/**
 * Splits a query into the trace's pairs (the last occurrence of a key wins;
 * a value with bad percent-encoding is dropped) and the rest, returned as a
 * query string for decodeUrlState.
 */
export function splitTraceQuery(search: string): { trace: Map<string, string>; rest: string } {
  let query = String(search ?? '');
  if (query.startsWith('?')) query = query.slice(1);
  const trace = new Map<string, string>();
  const rest: string[] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const key = decodeComponent(eq >= 0 ? part.slice(0, eq) : part);
    if (key !== null && (TRACE_LINK_KEYS as readonly string[]).includes(key)) {
      const value = decodeComponent(eq >= 0 ? part.slice(eq + 1) : '');
      if (value !== null) trace.set(key, value);
    } else {
      rest.push(part);
    }
  }
  return { trace, rest: rest.length ? `?${rest.join('&')}` : '' };
}

/** Reads the trace part of a link, with messages for anything unusable. Never throws. */
export function readTraceLink(pairs: Map<string, string>): { link: TraceLink; messages: string[] } {
  const messages: string[] = [];
  const onErrorText = pairs.get('trace.on_error');
  let onError: OnError = 'stop';
  if (onErrorText === 'skip' || onErrorText === 'stop') onError = onErrorText;
  else if (onErrorText !== undefined) messages.push('Ignored trace.on_error: it must be stop or skip.');
  const source = pairs.get('trace');
  const name = pairs.get('trace.name');
  if (source !== undefined) {
    if (source === EXCERPT.linkValue) return { link: { kind: 'excerpt', onError }, messages };
    messages.push(`Ignored trace=${source.slice(0, 40)}: the only trace a link can name is ${EXCERPT.linkValue}.`);
  }
  if (name !== undefined && name !== '') {
    const hash = pairs.get('trace.content_hash') ?? '';
    if (hash !== '' && !HASH_RE.test(hash)) {
      messages.push('Ignored trace.content_hash: it must be 16 lowercase hex digits.');
      return { link: { kind: 'file', name: name.slice(0, MAX_NAME), contentHash: '', onError }, messages };
    }
    return { link: { kind: 'file', name: name.slice(0, MAX_NAME), contentHash: hash, onError }, messages };
  }
  if (onErrorText !== undefined && source === undefined) messages.push('Ignored trace.on_error: the link replays no trace.');
  return { link: { kind: 'none' }, messages };
}

/** The link pairs of a replayed trace (written after the scenario's overrides). */
export function traceLinkPairs(link: TraceLink): Pair[] {
  const pairs: Pair[] = [];
  if (link.kind === 'excerpt') pairs.push(['trace', EXCERPT.linkValue]);
  if (link.kind === 'file') {
    pairs.push(['trace.name', link.name]);
    if (link.contentHash) pairs.push(['trace.content_hash', link.contentHash]);
  }
  if (link.kind !== 'none' && link.onError === 'skip') pairs.push(['trace.on_error', 'skip']);
  return pairs;
}

// ---- sweep keys ----

/** Query keys of the Sweep panel's four inputs. */
export const SWEEP_KEYS: Readonly<Record<keyof SweepState, string>> = {
  param: 'sweep.param',
  from: 'sweep.from',
  to: 'sweep.to',
  steps: 'sweep.steps',
};

const NUMBER_SHAPE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const SWEEP_SHAPES: Record<keyof SweepState, { re: RegExp; what: string }> = {
  param: { re: /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)?$/, what: 'a dotted scenario key' },
  from: { re: NUMBER_SHAPE, what: 'a number' },
  to: { re: NUMBER_SHAPE, what: 'a number' },
  steps: { re: /^[0-9]{1,4}$/, what: 'a whole number' },
};

/**
 * Reads the sweep keys of a query (its first URL_LIMITS.query characters and
 * URL_LIMITS.params parameters) over the default sweep. Drops bad
 * percent-encoding, unknown `sweep.` keys, values over URL_LIMITS.key
 * characters and values of the wrong shape, each with a message; the last of
 * repeated keys wins. `present`: the query named a sweep key. Never throws.
 */
export function decodeSweepKeys(search: string): { state: SweepState; present: boolean; messages: string[] } {
  const result = { state: { ...DEFAULT_SWEEP }, present: false, messages: [] as string[] };
  try {
    const byKey = new Map(Object.entries(SWEEP_KEYS).map(([input, key]) => [key, input as keyof SweepState]));
    let query = String(search ?? '');
    if (query.startsWith('?')) query = query.slice(1);
    const parts = query.slice(0, URL_LIMITS.query).split('&').slice(0, URL_LIMITS.params);
    for (const part of parts) {
      if (!part.startsWith('sweep.') && !part.startsWith('sweep%2E') && !part.startsWith('sweep%2e')) continue;
      const eq = part.indexOf('=');
      const key = decodeComponent(eq >= 0 ? part.slice(0, eq) : part);
      const value = decodeComponent(eq >= 0 ? part.slice(eq + 1) : '');
      if (key === null || value === null) {
        result.messages.push(`Sweep: ignored ${preview(part)}: not valid percent-encoding.`);
        continue;
      }
      const input = byKey.get(key);
      if (!input) {
        result.messages.push(`Sweep: ignored unknown key ${preview(key)}.`);
        continue;
      }
      result.present = true;
      if (value.length > URL_LIMITS.key) {
        result.messages.push(`Sweep: ignored ${key}: its value has ${value.length} characters (at most ${URL_LIMITS.key}).`);
        continue;
      }
      const shape = SWEEP_SHAPES[input];
      if (!shape.re.test(value)) {
        result.messages.push(`Sweep: ignored ${key}: ${preview(value)} is not ${shape.what}.`);
        continue;
      }
      result.state[input] = value;
    }
  } catch (error) {
    result.state = { ...DEFAULT_SWEEP };
    result.messages.push(`Sweep: the link could not be read (${preview(String(error), 80)}); the default sweep is used.`);
  }
  return result;
}

/** The link's sweep keys: none for the default sweep, else all four. */
export function sweepLinkPairs(state: SweepState): Pair[] {
  if (isDefaultSweep(state)) return [];
  return (Object.keys(SWEEP_KEYS) as (keyof SweepState)[]).map((input) => [SWEEP_KEYS[input], state[input].trim()]);
}

// ---- the whole state ----

/**
 * Reads the page's state out of a query string (`location.search`), with
 * notices for everything dropped or replaced. `fields` are the schema's
 * scenario fields: keys the page offers no control for (UNSUPPORTED_GROUPS)
 * are dropped, and a sweep of a field that is not a numeric page field falls
 * back to the default sweep. The embed flag is isEmbedQuery's reading, which
 * the page also uses before the schema is loaded. Never throws.
 */
export function pageStateFromUrl(search: string, fields: readonly FieldInfo[]): DecodedPageState {
  try {
    const split = splitTraceQuery(search);
    const trace = readTraceLink(split.trace);
    const scenario = decodeUrlState(split.rest, fields);
    const notices: UrlNotice[] = scenario.messages.map((m) => ({ section: 'scenario', key: m.key, text: m.text }));
    for (const text of trace.messages) notices.push({ section: 'scenario', key: null, text });
    const byKey = new Map(fields.map((f) => [f.key, f]));
    const overrides = scenario.overrides.filter(([key]) => {
      const field = byKey.get(key);
      if (!field || isPageField(field)) return true;
      notices.push({ section: 'scenario', key: null, text: `Ignored ${key}: ${UNSUPPORTED_GROUPS[field.group]}.` });
      return false;
    });
    const sweep = decodeSweepKeys(search);
    for (const text of sweep.messages) notices.push({ section: 'sweep', key: null, text });
    let sweepState = sweep.state;
    if (!sweepableFields(fields).some((f) => f.key === sweepState.param)) {
      notices.push({ section: 'sweep', key: null, text: `Sweep: ${sweepState.param} is not a numeric scenario field; the default sweep is used.` });
      sweepState = { ...DEFAULT_SWEEP };
    }
    return {
      state: { overrides, trace: trace.link, sweep: sweepState, embed: isEmbedQuery(search) },
      notices,
      version: scenario.version,
      runSweep: sweep.present,
    };
  } catch (error) {
    // Nothing above should throw; if it does, the link is ignored, not the page.
    return {
      state: { ...defaultPageState(), embed: isEmbedQuery(search) },
      notices: [{ section: 'scenario', key: null, text: `The link could not be read (${preview(String(error), 80)}); defaults are used.` }],
      version: URL_VERSION,
      runSweep: false,
    };
  }
}

/**
 * The query string of a page state: `?v=1`, the overrides in order, the
 * trace's keys, the sweep's keys (none for the default sweep), `embed=1`
 * last when set. Reading it back gives the same state.
 */
export function pageStateToUrl(state: PageState): string {
  return encodeUrlState([...state.overrides, ...traceLinkPairs(state.trace), ...sweepLinkPairs(state.sweep)], { embed: state.embed });
}
