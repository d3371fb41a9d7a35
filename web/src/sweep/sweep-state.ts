// What the Sweep panel asks for — which field to vary, from, to, in how many
// steps — and how that becomes the command line's --sweep text. The texts
// are kept as typed (form inputs and the link carry text); validation says,
// per input, what is wrong and what is allowed, from the schema's ranges.
// Which values the sweep runs is the core's business (expandSweep, in the
// worker): this module never computes them.

import pageDefaults from '../state/page-defaults.json';
import type { FieldInfo } from '../state/schema';
import { isPageField } from '../state/schema';

/** The panel's inputs, as texts. */
export interface SweepState {
  /** Dotted scenario key of a numeric field. */
  param: string;
  from: string;
  to: string;
  steps: string;
}

/** Which input a problem is about. */
export type SweepInput = keyof SweepState;

/** Steps the panel accepts: the core's parse_sweep allows 2..200. */
export const SWEEP_STEPS = { min: 2, max: 200 } as const;

/**
 * The default sweep (page-defaults.json: the page's editorial choices are
 * data, as the presets are): a few seconds of points. The link writes no
 * sweep keys for it, so changing it changes what a link without them shows.
 */
export const DEFAULT_SWEEP: Readonly<SweepState> = { ...pageDefaults.sweep };

/**
 * The sweep the inputs change to when the scenario on screen replays a trace
 * and they name a workload field, which the trace replaces
 * (page-defaults.json, "traceSweep": how many replicas this traffic needs).
 */
export const TRACE_SWEEP: Readonly<SweepState> = { ...pageDefaults.traceSweep };

/** Whether a sweep of this field means anything on a replayed trace: the trace replaces the synthetic workload's fields. */
export function sweepsOnTrace(field: FieldInfo): boolean {
  return field.group !== 'workload';
}

/** Ranges that say more than the generic one, for the fields a sweep is most often about (page-defaults.json). */
const SUGGESTED: Readonly<Record<string, readonly string[]>> = pageDefaults.suggestedSweepRanges;

/** Fields a sweep can vary: the numeric fields the page offers. */
export function sweepableFields(fields: readonly FieldInfo[]): FieldInfo[] {
  // Trace fields slice a replayed trace; a sweep runs the synthetic workload.
  return fields.filter((f) => (f.kind === 'integer' || f.kind === 'number') && isPageField(f) && f.group !== 'trace');
}

/** A starting range for a field: half to one and a half times its default, within its bounds. */
export function suggestedRange(field: FieldInfo): [string, string] {
  const known = Object.prototype.hasOwnProperty.call(SUGGESTED, field.key) ? SUGGESTED[field.key] : undefined;
  if (known?.length === 2) return [known[0], known[1]];
  const d = Number(field.defaultText);
  const clamp = (v: number) => Math.min(field.max, Math.max(field.min, v));
  const round = (v: number) => (field.kind === 'integer' ? Math.round(v) : Number(v.toPrecision(6)));
  let from = clamp(round(d > 0 ? d / 2 : field.min));
  let to = clamp(round(d > 0 ? d * 1.5 : field.min + 1));
  if (from === to) [from, to] = [clamp(field.min), clamp(Math.min(field.max, field.min + 10))];
  return [String(from), String(to)];
}

/** The state with the suggested range of a newly chosen field. */
export function withParam(state: SweepState, field: FieldInfo): SweepState {
  const [from, to] = suggestedRange(field);
  return { ...state, param: field.key, from, to };
}

/** Whether the state is the default sweep (nothing to write into the link). */
export function isDefaultSweep(state: SweepState): boolean {
  return (
    state.param === DEFAULT_SWEEP.param &&
    Number(state.from) === Number(DEFAULT_SWEEP.from) &&
    Number(state.to) === Number(DEFAULT_SWEEP.to) &&
    Number(state.steps) === Number(DEFAULT_SWEEP.steps)
  );
}

/** One input's problem, in words that name the field and what is allowed. */
export interface SweepProblem {
  input: SweepInput;
  message: string;
}

/** A checked sweep (its --sweep text), or every input's problem. */
export type SweepCheck =
  | { ok: true; field: FieldInfo; spec: string }
  | { ok: false; problems: SweepProblem[] };

const NUMBER_RE = /^\s*-?(0|[1-9][0-9]*)?(\.[0-9]+)?([eE][+-]?[0-9]+)?\s*$/;

function readNumber(text: string): number {
  return NUMBER_RE.test(text) && /[0-9]/.test(text) ? Number(text) : NaN;
}

function rangeText(field: FieldInfo): string {
  return `[${field.min}, ${field.max}]${field.unit ? ` ${field.unit}` : ''}`;
}

/**
 * Checks the inputs against the field's schema range and returns the
 * command line's --sweep text, "key=from:to:steps". For an integer field
 * the ends must be integers; the core rounds the points between them (and
 * drops repeats), so the sweep may run fewer points than steps. `replaying`:
 * the scenario replays a trace, so a workload field is no sweep (the core
 * refuses it too).
 */
export function checkSweep(state: SweepState, fields: readonly FieldInfo[], replaying = false): SweepCheck {
  const field = sweepableFields(fields).find((f) => f.key === state.param);
  if (!field) return { ok: false, problems: [{ input: 'param', message: 'Choose a numeric scenario field to vary.' }] };
  if (replaying && !sweepsOnTrace(field)) {
    return { ok: false, problems: [{ input: 'param', message: `${field.key} sets the synthetic workload, which the replayed trace replaces: choose a cluster, router or policy field.` }] };
  }
  const problems: SweepProblem[] = [];
  const integer = field.kind === 'integer';
  const bound = (input: 'from' | 'to', label: string): number => {
    const v = readNumber(state[input]);
    const ok = Number.isFinite(v) && v >= field.min && v <= field.max && (!integer || Number.isInteger(v));
    if (!ok) {
      problems.push({ input, message: `${label} must be ${integer ? 'an integer' : 'a number'} in ${rangeText(field)} (${field.key}).` });
    }
    return v;
  };
  const from = bound('from', 'From');
  const to = bound('to', 'To');
  const steps = readNumber(state.steps);
  if (!(Number.isInteger(steps) && steps >= SWEEP_STEPS.min && steps <= SWEEP_STEPS.max)) {
    problems.push({ input: 'steps', message: `Steps must be an integer in [${SWEEP_STEPS.min}, ${SWEEP_STEPS.max}].` });
  }
  if (problems.length) return { ok: false, problems };
  return { ok: true, field, spec: `${field.key}=${from}:${to}:${steps}` };
}
