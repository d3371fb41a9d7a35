// What an embed shows, as its link carries it: the `embed.` keys of the
// page's query, beside `embed=1` (url-state.ts) and the scenario's keys.
//
//   embed.view=table-chart|table|chart|sweep|timeline|capacity   (default table-chart;
//                                        capacity: the Capacity view, searched at the link's slo.* fields)
//   embed.chart=ttft|hits|cdf|load                       (the chart of the chart views; default ttft)
//   embed.theme=host|light|dark                          (default host: follow the host page)
//   embed.controls=cluster.replicas,workload.requests    (at most three scenario fields the reader may change)
//   embed.trace_url=https://…&embed.trace_sha256=HEX64   (a trace the author hosts; the reader's browser fetches it)
//
// How tall the frame is when the host runs no script is fallback-height.ts's.
// Only values that differ from the defaults are written. Decoding never
// throws: an unknown `embed.` key or a bad value is dropped with a message
// that names the key and the values allowed, and the default is used.

import type { ChartId } from '../charts/charts';
import type { FieldInfo, Pair } from '../state/schema';
import { decodeComponent, preview, URL_LIMITS } from '../state/link-text';

/** The layouts an embed can show. */
export const EMBED_VIEWS = ['table-chart', 'table', 'chart', 'sweep', 'timeline', 'capacity'] as const;
export type EmbedView = (typeof EMBED_VIEWS)[number];
/** The charts an embed can name (charts.ts's ChartId). */
export const EMBED_CHARTS = ['ttft', 'hits', 'cdf', 'load'] as const satisfies readonly ChartId[];
/** host: the host page's colours (its background, posted by the snippet's script), else the reader's system setting. */
export const EMBED_THEMES = ['host', 'light', 'dark'] as const;
export type EmbedTheme = (typeof EMBED_THEMES)[number];
/** Most scenario fields a reader may change in place: more turns the embed into the playground. */
export const MAX_READER_CONTROLS = 3;

/** A trace the author serves at an https URL, pinned by the SHA-256 of its bytes. */
export interface HostedTrace {
  url: string;
  /** 64 lowercase hex digits. */
  sha256: string;
}

/** What an embed shows; defaultEmbedOptions() is what a bare `embed=1` means. */
export interface EmbedOptions {
  view: EmbedView;
  /** The chart of the `chart` and `table-chart` views. */
  chart: ChartId;
  theme: EmbedTheme;
  /** Dotted scenario keys, at most MAX_READER_CONTROLS, no repeats. */
  controls: string[];
  hosted: HostedTrace | null;
}

export function defaultEmbedOptions(): EmbedOptions {
  return { view: 'table-chart', chart: 'ttft', theme: 'host', controls: [], hosted: null };
}

/** The query keys of the embed options. */
export const EMBED_KEYS = {
  view: 'embed.view',
  chart: 'embed.chart',
  theme: 'embed.theme',
  controls: 'embed.controls',
  traceUrl: 'embed.trace_url',
  traceSha256: 'embed.trace_sha256',
} as const;
const KNOWN_KEYS: readonly string[] = Object.values(EMBED_KEYS);
export const EMBED_PREFIX = 'embed.';

/** Bare keys an author may guess for an embed option (`&chart=cdf`): their message names the real key. */
const GUESSED_KEYS: Record<string, string> = {
  view: EMBED_KEYS.view,
  chart: EMBED_KEYS.chart,
  theme: EMBED_KEYS.theme,
  controls: EMBED_KEYS.controls,
};

/** The message for an unknown query key that looks like a guess at an embed option, or null. */
export function guessedEmbedKeyHint(key: string): string | null {
  const real = Object.prototype.hasOwnProperty.call(GUESSED_KEYS, key) ? GUESSED_KEYS[key] : null;
  return real ? `Ignored ${preview(key)}: an embed's ${key} is chosen with ${real}.` : null;
}

const SHA256_RE = /^[0-9a-f]{64}$/;

/** The text of a list of allowed values: "a, b or c". */
function either(values: readonly string[]): string {
  return values.length < 2 ? values.join('') : `${values.slice(0, -1).join(', ')} or ${values[values.length - 1]}`;
}

/** Whether `text` is an https URL an embed may fetch (no credentials in it, at most URL_LIMITS.value characters). */
export function hostedUrlProblem(text: string): string | null {
  if (text.length > URL_LIMITS.value) return `is ${text.length} characters long (at most ${URL_LIMITS.value})`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `${preview(text)} is not a URL`;
  }
  if (url.protocol !== 'https:') return `${preview(text)} is not an https URL (a page served over https cannot fetch anything else)`;
  if (url.username || url.password) return 'must not carry a user name or password';
  return null;
}

/** decodeEmbedOptions' answer. */
export interface DecodedEmbedOptions {
  options: EmbedOptions;
  /** Plain text, one per problem: each names its key and what is allowed. */
  messages: string[];
}

/**
 * Reads the embed options of a query string (`location.search`). `fields`
 * (the page's scenario fields) checks embed.controls; without them the
 * controls are taken as written (the layout is decided before the schema is
 * in) and checked on a second reading. Never throws.
 */
export function decodeEmbedOptions(search: string, fields: readonly FieldInfo[] | null = null): DecodedEmbedOptions {
  const options = defaultEmbedOptions();
  const messages: string[] = [];
  try {
    let query = String(search ?? '');
    if (query.startsWith('?')) query = query.slice(1);
    const values = new Map<string, string>();
    for (const part of query.slice(0, URL_LIMITS.query).split('&').slice(0, URL_LIMITS.params)) {
      if (!/^embed(\.|%2e)/i.test(part)) continue;
      const eq = part.indexOf('=');
      const key = decodeComponent(eq >= 0 ? part.slice(0, eq) : part);
      const value = decodeComponent(eq >= 0 ? part.slice(eq + 1) : '');
      if (key === null || value === null) {
        messages.push(`Ignored ${preview(part)}: not valid percent-encoding.`);
        continue;
      }
      if (!key.startsWith(EMBED_PREFIX)) continue;
      if (!KNOWN_KEYS.includes(key)) {
        messages.push(`Ignored ${preview(key)}: not an embed option; the options are ${either(KNOWN_KEYS)}.`);
        continue;
      }
      values.set(key, value); // the last occurrence wins, as for the scenario's keys
    }

    const pick = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
      const value = values.get(key);
      if (value === undefined) return fallback;
      if ((allowed as readonly string[]).includes(value)) return value as T;
      messages.push(`${key}: ${preview(value)} is not allowed; use ${either(allowed)}. Using ${fallback}.`);
      return fallback;
    };
    options.view = pick(EMBED_KEYS.view, EMBED_VIEWS, options.view);
    options.chart = pick(EMBED_KEYS.chart, EMBED_CHARTS, options.chart);
    options.theme = pick(EMBED_KEYS.theme, EMBED_THEMES, options.theme);

    const controlsText = values.get(EMBED_KEYS.controls);
    if (controlsText !== undefined) {
      const known = fields ? new Set(fields.map((f) => f.key)) : null;
      for (const key of controlsText.split(',').map((k) => k.trim()).filter((k) => k !== '')) {
        if (options.controls.includes(key)) continue;
        if (known && !known.has(key)) {
          messages.push(`${EMBED_KEYS.controls}: ${preview(key)} is not a scenario field of this page; use the dotted keys of the Scenario panel (e.g. cluster.replicas).`);
          continue;
        }
        if (options.controls.length === MAX_READER_CONTROLS) {
          messages.push(`${EMBED_KEYS.controls}: at most ${MAX_READER_CONTROLS} fields; ${preview(key)} and any after it are not offered.`);
          break;
        }
        options.controls.push(key);
      }
    }

    const url = values.get(EMBED_KEYS.traceUrl);
    const sha = values.get(EMBED_KEYS.traceSha256);
    if (url !== undefined || sha !== undefined) {
      const urlProblem = url === undefined ? 'is missing' : hostedUrlProblem(url);
      const shaProblem = sha === undefined ? 'is missing' : SHA256_RE.test(sha) ? null : `${preview(sha)} is not 64 lowercase hex digits`;
      if (urlProblem) messages.push(`${EMBED_KEYS.traceUrl} ${urlProblem}; the embed replays no hosted trace.`);
      if (shaProblem) messages.push(`${EMBED_KEYS.traceSha256} ${shaProblem} (the SHA-256 of the hosted file); the embed replays no hosted trace.`);
      if (!urlProblem && !shaProblem) options.hosted = { url: url!, sha256: sha! };
    }
  } catch (error) {
    return { options: defaultEmbedOptions(), messages: [`The embed options could not be read (${preview(String(error), 80)}); the defaults are used.`] };
  }
  return { options, messages };
}

/** The link pairs of these options: only what differs from the defaults. */
export function embedOptionPairs(options: EmbedOptions): Pair[] {
  const d = defaultEmbedOptions();
  const pairs: Pair[] = [];
  if (options.view !== d.view) pairs.push([EMBED_KEYS.view, options.view]);
  if (options.chart !== d.chart && (options.view === 'chart' || options.view === 'table-chart')) pairs.push([EMBED_KEYS.chart, options.chart]);
  if (options.theme !== d.theme) pairs.push([EMBED_KEYS.theme, options.theme]);
  if (options.controls.length) pairs.push([EMBED_KEYS.controls, options.controls.slice(0, MAX_READER_CONTROLS).join(',')]);
  if (options.hosted) {
    pairs.push([EMBED_KEYS.traceUrl, options.hosted.url]);
    pairs.push([EMBED_KEYS.traceSha256, options.hosted.sha256]);
  }
  return pairs;
}
