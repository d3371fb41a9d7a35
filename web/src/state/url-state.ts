// The page's link format, and the scenario in it:
// `?v=1&seed=7&workload.requests=8000&policies=affinity,round_robin`.
// page-state.ts builds the page's whole state (PageState) on this module:
// the scenario keys here, the trace and sweep keys there.
//
// Query keys are exactly the scenario's dotted keys and values are the
// override texts, so a link says the same thing as the CLI's `--set` list.
// Only values that differ from the defaults are written (`?v=1` alone is the
// reference scenario). `v` versions the format; older links are migrated
// step by step by MIGRATIONS, so they keep working. `embed=1` asks for the
// compact iframe layout and is not part of the scenario; the `embed.` keys
// (what the embed shows) are embed-options.ts's.
//
// Decoding is defensive and never throws: anything odd (unknown or repeated
// keys, over-long text, bad percent-encoding, non-numbers, markup) is dropped
// with a message. What survives is only lexically plausible; the core's
// validateScenario has the last word on ranges and cross-field rules.

import { EMBED_PREFIX, guessedEmbedKeyHint } from '../embed/embed-options';
import { decodeComponent, preview, URL_LIMITS } from './link-text';
import type { FieldInfo, Pair } from './schema';

export const URL_VERSION = 1;

/** A problem found while reading a link. */
export interface UrlMessage {
  /** The field the message is about (a known dotted key), or null for the link as a whole. */
  key: string | null;
  text: string;
}

/** The scenario part of a link: its overrides, its version, and what was dropped. */
export interface UrlState {
  overrides: Pair[];
  /** The link's version before migration. */
  version: number;
  messages: UrlMessage[];
}

/** Rewrites the pairs of a version-N link into version N+1. */
export type Migration = (pairs: Pair[], messages: UrlMessage[]) => Pair[];

/**
 * Version 0 was the draft format: short keys and policies joined by "|"
 * (`?v=0&n=8000&r=8&p=affinity|round_robin`). Kept as the worked example of
 * a migration; a future v2 adds MIGRATIONS[1].
 */
const V0_KEYS: Record<string, string> = {
  s: 'seed',
  n: 'workload.requests',
  t: 'workload.tenants',
  z: 'workload.zipf_s',
  rate: 'workload.arrival_rate_per_s',
  r: 'cluster.replicas',
  c: 'cluster.cache_tokens',
  p: 'policies',
};

export const MIGRATIONS: Record<number, Migration> = {
  0: (pairs) =>
    pairs.map(([key, value]): Pair => {
      const renamed = Object.prototype.hasOwnProperty.call(V0_KEYS, key) ? V0_KEYS[key] : key;
      return [renamed, renamed === 'policies' ? value.split('|').join(',') : value];
    }),
};

const RESERVED = new Set(['v', 'embed']);
/** Keys of the Sweep panel's state (read by page-state.ts); not scenario keys. */
export const SWEEP_PREFIX = 'sweep.';
const NUMBER_RE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const POLICIES_RE = /^[a-z0-9_]+(,[a-z0-9_]+)*$/;

/** Checks a value's shape for its field; returns a message or null when plausible. */
function lexicalProblem(field: FieldInfo, value: string): string | null {
  if (value === '') return 'is empty';
  if (field.kind === 'policies') {
    return POLICIES_RE.test(value) ? null : `${preview(value)} is not a comma-separated list of policy names`;
  }
  if (field.kind === 'choice') {
    return field.options.includes(value) ? null : `${preview(value)} is not one of ${field.options.join(', ')}`;
  }
  // A free text (client.stages) has a syntax of the core's: the core reads it and names what is wrong.
  if (field.kind === 'text') return value.length <= field.max ? null : `${preview(value)} is longer than ${field.max} characters`;
  if (!NUMBER_RE.test(value)) return `${preview(value)} is not a number`;
  if (!Number.isFinite(Number(value))) return `${preview(value)} is too large to be a number`;
  return null;
}

/**
 * Reads the scenario overrides, the version and problems out of a query
 * string. The reserved keys (v, embed) are not scenario keys; the embed flag
 * is isEmbedQuery's. Never throws.
 */
export function decodeUrlState(search: string, fields: readonly FieldInfo[]): UrlState {
  const messages: UrlMessage[] = [];
  const state: UrlState = { overrides: [], version: URL_VERSION, messages };
  try {
    let query = String(search ?? '');
    if (query.startsWith('?')) query = query.slice(1);
    if (query.length > URL_LIMITS.query) {
      messages.push({
        key: null,
        text: `The link is ${query.length} characters long; only the first ${URL_LIMITS.query} are read.`,
      });
      query = query.slice(0, URL_LIMITS.query);
      const lastAmp = query.lastIndexOf('&');
      query = lastAmp >= 0 ? query.slice(0, lastAmp) : '';
    }
    let parts = query.split('&').filter((p) => p !== '');
    if (parts.length > URL_LIMITS.params) {
      messages.push({ key: null, text: `The link has ${parts.length} parameters; only the first ${URL_LIMITS.params} are read.` });
      parts = parts.slice(0, URL_LIMITS.params);
    }

    let pairs: Pair[] = [];
    for (const part of parts) {
      const eq = part.indexOf('=');
      const key = decodeComponent(eq >= 0 ? part.slice(0, eq) : part);
      const value = decodeComponent(eq >= 0 ? part.slice(eq + 1) : '');
      if (key === null || value === null) {
        messages.push({ key: null, text: `Ignored ${preview(part)}: not valid percent-encoding.` });
        continue;
      }
      if (key.length > URL_LIMITS.key) {
        messages.push({ key: null, text: `Ignored a key of ${key.length} characters (${preview(key)}).` });
        continue;
      }
      if (value.length > URL_LIMITS.value) {
        messages.push({
          key: null,
          text: `Ignored ${preview(key)}: its value has ${value.length} characters (at most ${URL_LIMITS.value}).`,
        });
        continue;
      }
      pairs.push([key, value]);
    }

    // Reserved keys: of v the last occurrence counts, like every other key; embed is isEmbedQuery's.
    const rest: Pair[] = [];
    let versionText: string | null = null;
    for (const [key, value] of pairs) {
      if (key === 'v') versionText = value;
      else if (key !== 'embed') rest.push([key, value]);
    }
    pairs = rest;
    if (versionText !== null) {
      const v = /^[0-9]{1,4}$/.test(versionText) ? Number(versionText) : NaN;
      if (Number.isNaN(v)) {
        messages.push({ key: null, text: `Unknown link version ${preview(versionText)}; read as version ${URL_VERSION}.` });
      } else if (v > URL_VERSION) {
        messages.push({ key: null, text: `The link is from a newer version (v${v}); read as version ${URL_VERSION}.` });
      } else {
        state.version = v;
      }
    }
    for (let v = state.version; v < URL_VERSION; v++) {
      const migrate = MIGRATIONS[v];
      if (migrate) pairs = migrate(pairs, messages);
    }

    const byKey = new Map(fields.map((f) => [f.key, f]));
    const chosen = new Map<string, string>();
    const counts = new Map<string, number>();
    for (const [key, value] of pairs) {
      const field = byKey.get(key);
      if (!field) {
        // `sweep.` keys are the Sweep panel's (page-state.ts), `embed.` keys the embed's
        // (embed-options.ts): each reports its own problems.
        if (!RESERVED.has(key) && !key.startsWith(SWEEP_PREFIX) && !key.startsWith(EMBED_PREFIX)) {
          messages.push({ key: null, text: guessedEmbedKeyHint(key) ?? `Ignored unknown key ${preview(key)}.` });
        }
        continue;
      }
      counts.set(key, (counts.get(key) ?? 0) + 1);
      chosen.set(key, value); // later occurrences win, as with repeated --set
    }
    for (const [key, value] of chosen) {
      const field = byKey.get(key)!;
      const n = counts.get(key)!;
      if (n > 1) messages.push({ key, text: `Appears ${n} times in the link; the last value is used.` });
      const problem = lexicalProblem(field, value);
      if (problem) {
        messages.push({ key, text: `Link value ${problem}; the default is used.` });
        continue;
      }
      state.overrides.push([key, value]);
    }
  } catch (error) {
    // Nothing above should throw; if it does, the link is ignored, not the page.
    state.overrides = [];
    messages.push({ key: null, text: `The link could not be read (${preview(String(error), 80)}); defaults are used.` });
  }
  return state;
}

function encodeValue(value: string): string {
  // Commas are legal in a query and keep policy lists readable.
  return encodeURIComponent(value).replace(/%2C/gi, ',');
}

/**
 * The query string for these pairs in order (a scenario's non-default
 * overrides, then the trace's and the sweep's keys), versioned; `embed`
 * adds the embed flag last.
 */
export function encodeUrlState(pairs: readonly Pair[], options: { embed?: boolean } = {}): string {
  const parts = [`v=${URL_VERSION}`];
  for (const [key, value] of pairs) parts.push(`${encodeURIComponent(key)}=${encodeValue(value)}`);
  if (options.embed) parts.push('embed=1');
  return `?${parts.join('&')}`;
}

/**
 * Whether a query string asks for the embed layout: `embed=1` or
 * `embed=true` anywhere in it, undecoded. The page reads it before anything
 * else (before the schema is loaded), so that the layout is right from the
 * first paint; pageStateFromUrl reads the flag with it too.
 */
export function isEmbedQuery(search: string): boolean {
  return /(^|[?&])embed=(1|true)(&|$)/.test(String(search ?? ''));
}
