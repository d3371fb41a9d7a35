// What the core read from a trace, as the guided import states it: the
// figures of the core's trace summary ("prefixroute.trace/1", the module's
// TraceLoader and `prefixroute --trace FILE --trace-summary --json` write the
// same bytes; core/include/prefixroute/io/trace_summary_json.h), how an
// openai log's keys were mapped with the choices the reader has, and the
// cluster the replay will model (the core's hardware summary). Pure
// functions: every number is the core's, only the wording is the page's.

import { formatCount, formatPercent } from '../ui/format';
import type { HardwareSummary } from '../ui/deployment';

/** Lengths of the prompts or outputs, in tokens (the core's nearest-rank percentiles). */
export interface LengthFigures {
  total: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

/** How one part of an openai request (time, prompt, session) was read. */
export interface FieldUse {
  /** The scenario's choice (trace.time_field, prompt_field, session_field): "auto" or a key. */
  chosen: string;
  /** Requests whose part each key gave ("none" under session: a session of their own). */
  read: Record<string, number>;
  /** Requests that have each key. */
  present: Record<string, number>;
}

/** The core's trace summary. */
export interface TraceFigures {
  name: string;
  format: string;
  lines: number;
  skipped_lines: number;
  content_hash: string;
  requests: number;
  duration_s: number;
  request_rate_per_s: number;
  prompt_tokens: LengthFigures;
  output_tokens: LengthFigures;
  sessions: { count: number; multi_request: number } | null;
  shared_prefix_tokens: number;
  shared_prefix_share: number;
  ideal_hit_rate: number;
  fields: { time: FieldUse; prompt: FieldUse; session: FieldUse } | null;
}

/** Reads the core's summary JSON; null when there is none (nothing was read) or it is not one. */
export function parseTraceFigures(json: string): TraceFigures | null {
  if (!json) return null;
  try {
    const doc = JSON.parse(json) as TraceFigures & { schema?: string };
    return doc.schema === 'prefixroute.trace/1' ? doc : null;
  } catch {
    return null;
  }
}

/** Seconds as a person reads a trace's span: "45 s", "12.5 min", "3.2 h". */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '—';
  if (seconds < 120) return `${seconds < 10 ? Number(seconds.toFixed(2)) : Number(seconds.toFixed(1))} s`;
  if (seconds < 7200) return `${Number((seconds / 60).toFixed(1))} min`;
  return `${Number((seconds / 3600).toFixed(1))} h`;
}

/** Requests per second with three significant digits (0 when every request arrives at once). */
export function formatRate(perSecond: number): string {
  if (!Number.isFinite(perSecond) || perSecond === 0) return '—';
  return `${Number(perSecond.toPrecision(3))} requests/s`;
}

/** "mean 14,025 · p50 13,900 · p99 28,100 tokens". */
export function lengthText(f: LengthFigures): string {
  return `mean ${formatCount(f.mean)} · p50 ${formatCount(f.p50)} · p99 ${formatCount(f.p99)} tokens`;
}

/** One line of the import's "What was read" list: its label, the text shown, and the core's number behind it. */
export interface FigureRow {
  key: string;
  label: string;
  text: string;
  /** The core's value (the e2e tests compare it with the command line's). */
  value: number;
}

const FORMAT_NAMES: Record<string, string> = {
  mooncake: 'Mooncake (timestamps in ms, 512-token block ids)',
  bailian: 'Qwen-Bailian (timestamps in s, 16-token block ids, sessions from parent_chat_id)',
  openai: 'OpenAI request log (text tokenized by a fixed rule, 16-token blocks)',
};

/** The format as the import names it. */
export function formatName(format: string): string {
  return FORMAT_NAMES[format] ?? format;
}

/** The rows of "What was read", in the order a reader asks about them. */
export function figureRows(f: TraceFigures): FigureRow[] {
  const rows: FigureRow[] = [
    { key: 'requests', label: 'Requests', text: `${formatCount(f.requests)} from ${formatCount(f.lines)} lines${f.skipped_lines ? ` (${formatCount(f.skipped_lines)} bad lines skipped)` : ''}`, value: f.requests },
    { key: 'duration_s', label: 'Duration', text: formatDuration(f.duration_s), value: f.duration_s },
    { key: 'request_rate_per_s', label: 'Request rate', text: formatRate(f.request_rate_per_s), value: f.request_rate_per_s },
    { key: 'prompt_tokens', label: 'Prompt length', text: lengthText(f.prompt_tokens), value: f.prompt_tokens.mean },
    { key: 'output_tokens', label: 'Output length', text: lengthText(f.output_tokens), value: f.output_tokens.mean },
    {
      key: 'sessions',
      label: 'Sessions',
      text: f.sessions
        ? `${formatCount(f.sessions.count)} (${formatCount(f.sessions.multi_request)} of more than one request)`
        : 'none: the format has no sessions, every request is its own',
      value: f.sessions?.count ?? 0,
    },
    {
      key: 'shared_prefix_share',
      label: 'Prompt tokens in shared prefixes',
      text: `${formatPercent(f.shared_prefix_share)} (${formatCount(f.shared_prefix_tokens)} tokens that another request also begins with)`,
      value: f.shared_prefix_share,
    },
    {
      key: 'ideal_hit_rate',
      label: 'Ideal hit rate',
      text: `${formatPercent(f.ideal_hit_rate)} (one cache holding every prompt: no router can hit more)`,
      value: f.ideal_hit_rate,
    },
  ];
  return rows;
}

/** The keys an openai part may be read from, in the order offered. */
const PART_KEYS = {
  time: ['timestamp', 'created'],
  prompt: ['messages', 'prompt'],
  session: ['session_id', 'user'],
} as const;
export type Part = keyof typeof PART_KEYS;

/** The scenario field of each part's choice. */
export const PART_FIELDS: Record<Part, string> = {
  time: 'trace.time_field',
  prompt: 'trace.prompt_field',
  session: 'trace.session_field',
};

const PART_LABELS: Record<Part, string> = { time: 'Arrival time', prompt: 'Prompt', session: 'Session' };

/** One part's mapping as the import shows it: what was read, and the choices the reader has (none: nothing to choose). */
export interface MappingRow {
  part: Part;
  label: string;
  text: string;
  field: string;
  chosen: string;
  /** The values the reader may choose ("auto" first); empty when the log leaves no choice. */
  choices: { value: string; text: string }[];
}

function keyCounts(use: FieldUse, keys: readonly string[], extra: string[] = []): string {
  const parts = [...keys, ...extra].filter((k) => (use.read[k] ?? 0) > 0).map((k) => `${k === 'none' ? 'none (a session of its own)' : k} for ${formatCount(use.read[k])}`);
  return parts.length ? parts.join(', ') : 'none';
}

/**
 * How an openai log's keys were mapped (empty for the other formats, whose
 * keys are fixed). A choice is offered where the log has both keys of a
 * pair (time, prompt), and for sessions wherever it has a session key (either
 * one, or none at all: every request its own session).
 */
export function mappingRows(f: TraceFigures): MappingRow[] {
  if (!f.fields) return [];
  const rows: MappingRow[] = [];
  for (const part of ['time', 'prompt', 'session'] as const) {
    const use = f.fields[part];
    const keys = PART_KEYS[part];
    const present = keys.filter((k) => (use.present[k] ?? 0) > 0);
    const choices: { value: string; text: string }[] = [];
    const both = present.length === keys.length;
    if (part === 'session' ? present.length > 0 || use.chosen !== 'auto' : both || use.chosen !== 'auto') {
      const auto = part === 'time' ? 'timestamp, else created' : part === 'prompt' ? 'whichever a line has' : 'session_id, else user';
      choices.push({ value: 'auto', text: `auto (${auto})` });
      for (const k of keys) if (present.includes(k) || use.chosen === k) choices.push({ value: k, text: `${k} (on ${formatCount(use.present[k] ?? 0)} lines)` });
      if (part === 'session') choices.push({ value: 'none', text: 'none (every request a session of its own)' });
    }
    const read = keyCounts(use, keys, part === 'session' ? ['none'] : []);
    rows.push({ part, label: PART_LABELS[part], text: `from ${read} requests`, field: PART_FIELDS[part], chosen: use.chosen, choices });
  }
  return rows;
}

/** The cluster the replay will model, as the import states it. */
export interface ClusterStatement {
  text: string;
  model: string;
  replicas: number;
  gpus: number;
  tp: number;
  cacheTokens: number;
  /** How the cache per replica is set: "derived" (from the model and GPU), "given", or "default" (no model). */
  cacheSource: string;
}

/**
 * "Will model Llama-3.1-70B on 3 × (4 × H100-SXM 80GB, TP 4), cache
 * 513,088 tokens per replica (derived from the model and GPU)", from the
 * scenario's canonical JSON and the core's hardware summary. Null when
 * either is missing (the scenario does not validate).
 */
export function clusterStatement(scenarioJson: string, hardwareJson: string): ClusterStatement | null {
  if (!scenarioJson || !hardwareJson) return null;
  let scenario: { cluster?: { replicas?: number }; hardware?: { tp?: number } };
  let hw: HardwareSummary & { replica?: { gpus?: number; tp?: number } };
  try {
    scenario = JSON.parse(scenarioJson);
    hw = JSON.parse(hardwareJson);
  } catch {
    return null;
  }
  const replicas = Number(scenario.cluster?.replicas ?? 0);
  const cache = hw.fields?.find((f) => f.key === 'cluster.cache_tokens');
  if (!cache || !(replicas > 0)) return null;
  const noModel = !hw.model || hw.model === 'none';
  const model = noModel ? 'no model' : hw.presets?.model?.label ?? hw.model;
  const gpu = hw.presets?.gpu?.label ?? '';
  const gpus = hw.replica?.gpus ?? 1;
  const tp = hw.replica?.tp ?? Number(scenario.hardware?.tp ?? 1);
  const source = cache.source === 'derived' ? 'derived from the model and GPU' : cache.source === 'given' ? 'given' : 'the default; no model chosen';
  const where = noModel ? `${formatCount(replicas)} replicas (the raw cost settings, no model)` : `${formatCount(replicas)} × (${formatCount(gpus)} × ${gpu}, TP ${tp})`;
  const what = noModel ? 'Will model' : `Will model ${model} on`;
  return {
    text: `${what} ${where}, cache ${formatCount(cache.in_force)} tokens per replica (${source}).`,
    model: noModel ? 'none' : hw.model,
    replicas,
    gpus,
    tp,
    cacheTokens: cache.in_force,
    cacheSource: cache.source,
  };
}
