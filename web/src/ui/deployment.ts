// What the page says about the deployment a scenario models: which controls
// sit at the top of the Scenario panel, which workload fields the chosen
// workload kind reads, and the one-line "what this means" from the core's
// hardware summary ("prefixroute.hardware/1", the results JSON's `hardware`
// section; core/include/prefixroute/scenario/hardware_summary.h). Pure functions: the
// numbers and their sources are the module's, only the wording is the page's.

import { formatCount } from './format';
import type { FieldInfo } from '../state/schema';

/** The pickers at the top of the Scenario panel, in this order (docs/guide/hardware.md: your model on your GPUs). */
export const DEPLOYMENT_KEYS: readonly string[] = ['hardware.model', 'hardware.gpu', 'hardware.tp', 'cluster.engine'];

/** Whether a field applies under this workload kind (the schema's x-kinds; fields without it apply to every kind). */
export function readByKind(field: FieldInfo, kind: string): boolean {
  return !field.kinds || field.kinds.includes(kind);
}

/** One derivable raw field as the summary reports it. */
export interface SummaryField {
  key: string;
  in_force: number;
  /** "given" (the scenario sets it), "derived" (from hardware.*) or "default" (no model). */
  source: string;
  derived: number | null;
  formula: string | null;
}

/** The parts of the hardware summary the page reads. */
export interface HardwareSummary {
  model: string;
  engine?: string;
  replica?: { gpus?: number };
  presets?: { model?: { label?: string }; gpu?: { label?: string } };
  memory?: { kv_bytes_per_token?: number };
  fields: SummaryField[];
  text?: string;
}

/** Reads the summary out of a results document (absent without hardware.model). */
export function summaryOf(results: object): HardwareSummary | null {
  const s = (results as { hardware?: unknown }).hardware as HardwareSummary | undefined;
  return s && typeof s === 'object' && Array.isArray(s.fields) ? s : null;
}

/** 131072 → "128 KiB"; 1536 → "1.5 KiB". */
export function formatKiB(bytes: number): string {
  const kib = bytes / 1024;
  return `${Number.isInteger(kib) ? formatCount(kib) : kib.toPrecision(3)} KiB`;
}

function sourceNote(f: SummaryField): string {
  if (f.source === 'given') return f.derived === null ? 'given' : `given; derived would be ${formatCount(f.derived)}`;
  return f.source;
}

/**
 * The "what this means" line: cache tokens per replica, prefill tokens/s and
 * KV bytes per token, each value with where it comes from (derived from the
 * model and GPU, given as a raw field, or the raw default without a model).
 */
export function deploymentLine(summary: HardwareSummary | null, values: ReadonlyMap<string, string>): string {
  if (!summary) {
    // The core reports a summary only with a model; the raw fields are then the scenario's own.
    const cache = Number(values.get('cluster.cache_tokens'));
    const rate = Number(values.get('cluster.prefill_tokens_per_s'));
    const parts = [];
    if (Number.isFinite(cache)) parts.push(`${formatCount(cache)} cache tokens per replica`);
    if (Number.isFinite(rate)) parts.push(`prefill ${formatCount(rate)} tokens/s`);
    return `No model chosen: the raw settings are in force${parts.length ? ` (${parts.join(', ')})` : ''}. Pick a model and GPU to derive them.`;
  }
  const field = (key: string) => summary.fields.find((f) => f.key === key);
  const parts: string[] = [];
  const cache = field('cluster.cache_tokens');
  if (cache) parts.push(`${formatCount(cache.in_force)} cache tokens per replica (${sourceNote(cache)})`);
  const rate = field('cluster.prefill_tokens_per_s');
  if (rate) parts.push(`prefill ${formatCount(rate.in_force)} tokens/s (${sourceNote(rate)})`);
  const kv = summary.memory?.kv_bytes_per_token;
  if (kv !== undefined) parts.push(`${formatKiB(kv)} of KV per token`);
  const model = summary.presets?.model?.label ?? summary.model;
  const gpu = summary.presets?.gpu?.label;
  const gpus = summary.replica?.gpus ?? 1;
  const what = gpu ? `${model} on ${gpus} × ${gpu} per replica` : model;
  return `${what}: ${parts.join(', ')}.`;
}

/** What each derivable field's control shows: the value in force and how it was obtained. */
export function derivedNotes(summary: HardwareSummary | null): Map<string, { inForce: number; source: string; formula: string }> {
  const notes = new Map<string, { inForce: number; source: string; formula: string }>();
  for (const f of summary?.fields ?? []) notes.set(f.key, { inForce: f.in_force, source: f.source, formula: f.formula ?? '' });
  return notes;
}
