// Which benchmark-client fields (client.*) the chosen client kind reads, so
// the Scenario panel can grey out the others and say why, as it hides the
// workload fields a workload kind does not read. Only presentation: the core
// validates every combination (a field set for a kind that does not read it
// is refused by name, and that message is shown beside the field); this
// table only says which fields to offer. Its wording follows the field
// descriptions of the schema (core/src/scenario/fields.cpp).

/** The client kind's key: its picker decides which client fields are offered. */
export const CLIENT_KIND_KEY = 'client.kind';

/** The kinds that take a rate or a ladder of loads: every kind but burst (which sends all at t = 0). */
const LOADED_KINDS = ['poisson', 'constant', 'closed'];

interface ClientFieldUse {
  /** The client kinds that read the field. */
  kinds: readonly string[];
  /** Read only when the client has stages (client.stages or client.warmup given). */
  staged?: boolean;
  /** Why the field is not read, shown beside it while it is not. */
  why: string;
}

const USES: Readonly<Record<string, ClientFieldUse>> = {
  'client.rate_per_s': { kinds: LOADED_KINDS, why: 'Not read by a burst client: it sends every request at t = 0.' },
  'client.concurrency': { kinds: ['closed'], why: 'Read by a closed client only.' },
  'client.think_s': { kinds: ['closed'], why: 'Read by a closed client only.' },
  'client.stages': { kinds: LOADED_KINDS, why: 'Not read by a burst client: it sends every request at t = 0.' },
  'client.warmup': { kinds: LOADED_KINDS, why: 'Not read by a burst client: it sends every request at t = 0.' },
  'client.stage_interval_s': { kinds: LOADED_KINDS, staged: true, why: 'Read only with stages (Stages or Warm-up stage given).' },
};

/**
 * Why a client field is not read with these values (the form's override
 * texts), or null when it is read (and for every field this table does not
 * list, such as client.timeout_s, which every kind reads).
 */
export function clientFieldUnused(key: string, values: ReadonlyMap<string, string>): string | null {
  const use = USES[key];
  if (!use) return null;
  const kind = values.get(CLIENT_KIND_KEY) ?? '';
  if (!use.kinds.includes(kind)) return use.why;
  if (use.staged && !(values.get('client.stages') ?? '') && !(values.get('client.warmup') ?? '')) return use.why;
  return null;
}
