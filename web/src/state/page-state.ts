// The page's state, as its link carries it: the scenario's overrides, the
// trace replayed, the Sweep panel's inputs and the view options (embed).
// The page (page/playground.ts) reads it once from the address
// (pageStateFromUrl), renders from it, and writes it back as the page
// changes (pageStateToUrl); share links and the embed snippet are the same
// text. Both functions are pure.
//
// The format is url-state.ts's (`?v=1&…`: versioned, migrated, decoded
// defensively); on top of the scenario's keys it holds the trace's keys
// (trace-link.ts: taken out of the query before the scenario's keys are
// read) and the Sweep panel's (sweep-link.ts).
//
// Decoding never throws: what cannot be used is dropped with a notice that
// names what was dropped, to be shown beside the field, in the link's
// messages or in the Sweep section. What survives is only lexically
// plausible: the core validates the scenario, checkSweep the sweep's range.

import { DEFAULT_SWEEP, sweepableFields, type SweepState } from '../sweep/sweep-state';
import { preview } from './link-text';
import { isPageField, type FieldInfo, type Pair, UNSUPPORTED_GROUPS } from './schema';
import { decodeSweepKeys, sweepLinkPairs } from './sweep-link';
import { readTraceLink, splitTraceQuery, type TraceLink, traceLinkPairs } from './trace-link';
import { decodeUrlState, encodeUrlState, isEmbedQuery, URL_VERSION } from './url-state';

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
