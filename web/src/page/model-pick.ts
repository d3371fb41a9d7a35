// What picking a model in the form brings with it, so the choice works at
// once: the tensor parallelism the core chooses for the model on the GPU
// (the smallest that holds its weights with room for the KV cache of one
// full-context request: cluster/tp_choice.h, asked of the worker; the page
// computes nothing of it), and the batched engine (a model decodes, and only
// that engine simulates decode). Each value the page sets comes with a
// one-line reason shown beside its field.
//
// A value the reader set (or a link or preset set) is never overwritten
// silently: it is kept, with a note when the core would choose otherwise, and
// changed only where the core refuses it (weights that do not fit), saying so
// beside the field.

import type { TpPick } from '../worker/protocol';

const MODEL = 'hardware.model';
const TP = 'hardware.tp';
const ENGINE = 'cluster.engine';

/** The fields the page may set for a model, in the order their reasons show. */
export const PICKED_KEYS: readonly string[] = [TP, ENGINE];

/** The fields the core's TP choice reads: a change to one of them, with a model chosen, asks it again. */
const CHOICE_INPUTS: readonly string[] = [
  MODEL,
  'hardware.gpu',
  'hardware.weight_dtype',
  'hardware.kv_dtype',
  'hardware.memory_utilization',
  'cluster.kv_block_tokens',
];

/** A value the page set or kept for a model, and why (shown beside the field while the value stays). */
export interface PickReason {
  key: string;
  value: string;
  text: string;
}

/**
 * Whether these form values change what the core's TP choice reads from the
 * scenario on screen (`shown`), with a model chosen.
 */
export function changesDeployment(values: ReadonlyMap<string, string>, shown: ReadonlyMap<string, string> | null): boolean {
  const model = values.get(MODEL);
  if (!shown || !model || model === 'none') return false;
  return CHOICE_INPUTS.some((k) => (values.get(k) ?? '') !== (shown.get(k) ?? ''));
}

/**
 * Sets TP and engine in `values` for the deployment they name (see above)
 * and returns the reasons to show. `pick` is the core's choice (null: no
 * choice to offer; the run says why). `explicit` holds the keys of
 * PICKED_KEYS the reader, a link or a preset set.
 */
export function pickForModel(
  values: Map<string, string>,
  shown: ReadonlyMap<string, string>,
  pick: TpPick | null,
  explicit: ReadonlySet<string>,
): PickReason[] {
  const reasons: PickReason[] = [];
  const tpText = values.get(TP) ?? '1';
  const current = Number(tpText);
  if (pick && pick.tp === 0) {
    reasons.push({ key: TP, value: tpText, text: pick.reason });
  } else if (pick && !explicit.has(TP)) {
    values.set(TP, String(pick.tp));
    reasons.push({ key: TP, value: String(pick.tp), text: pick.reason });
  } else if (pick && current < pick.minFitTp) {
    values.set(TP, String(pick.tp));
    reasons.push({ key: TP, value: String(pick.tp), text: `Changed from ${current}, which was set: the weights do not fit at TP ${current}. ${pick.reason}` });
  } else if (pick && current !== pick.tp) {
    reasons.push({ key: TP, value: tpText, text: `Kept at ${current}, as set. The page would choose ${pick.reason}` });
  }
  const modelPicked = values.get(MODEL) !== shown.get(MODEL);
  if (modelPicked && values.get(ENGINE) === 'fifo') {
    if (!explicit.has(ENGINE)) {
      values.set(ENGINE, 'batched');
      reasons.push({ key: ENGINE, value: 'batched', text: 'Engine: batched, so TPOT and throughput are modelled (a model decodes; fifo ends each request at its first token).' });
    } else {
      reasons.push({ key: ENGINE, value: 'fifo', text: 'Kept at fifo, as set: TPOT and throughput are not modelled (fifo ends each request at its first token); batched models decode.' });
    }
  }
  return reasons;
}
