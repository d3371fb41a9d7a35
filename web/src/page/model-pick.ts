// What picking a model in the form brings with it, so the choice works at
// once: the smallest tensor parallelism the core accepts for the model on
// the GPU chosen (its weights must fit with room for the KV cache; the core
// decides, in the worker), and, when the model is the first one picked, the
// batched engine (a model decodes, and only that engine simulates decode).
// Each value the page sets comes with a one-line reason shown beside its
// field; the reader can change either afterwards.

const MODEL = 'hardware.model';
const GPU = 'hardware.gpu';
const TP = 'hardware.tp';
const ENGINE = 'cluster.engine';

/** A value the page set, and why (shown beside the field while the value stays). */
export interface PickReason {
  key: string;
  value: string;
  text: string;
}

/** Whether these form values pick a model the scenario on screen (`shown`) did not have. */
export function picksModel(values: ReadonlyMap<string, string>, shown: ReadonlyMap<string, string> | null): boolean {
  const model = values.get(MODEL);
  return !!shown && !!model && model !== 'none' && model !== shown.get(MODEL);
}

/**
 * Sets TP and engine in `values` for the model they pick (see above) and
 * returns the reasons for what changed. `smallestTp` asks the core for these
 * values (null: no TP up to the field's maximum holds the model on this GPU:
 * TP is left, and the run says why the model is refused).
 */
export async function pickForModel(
  values: Map<string, string>,
  shown: ReadonlyMap<string, string>,
  smallestTp: (values: ReadonlyMap<string, string>) => Promise<number | null>,
): Promise<PickReason[]> {
  const model = values.get(MODEL) ?? '';
  const gpu = values.get(GPU) ?? '';
  const reasons: PickReason[] = [];
  const tp = await smallestTp(values);
  if (tp !== null && String(tp) !== values.get(TP)) {
    values.set(TP, String(tp));
    reasons.push({
      key: TP,
      value: String(tp),
      text: `Set to ${tp} for ${model}: the fewest ${gpu} GPUs per replica that hold its weights with room for the KV cache (more GPUs hold more cache).`,
    });
  }
  if (shown.get(MODEL) === 'none' && values.get(ENGINE) === 'fifo') {
    values.set(ENGINE, 'batched');
    reasons.push({
      key: ENGINE,
      value: 'batched',
      text: `Set to batched for ${model}: a model decodes, and only the batched engine simulates decode (time per output token, output tokens/s); fifo ends each request at its first token.`,
    });
  }
  return reasons;
}
