// Which benchmark-client fields (client.*) the chosen client kind reads, so
// the Scenario panel can grey out the others and say why, as it hides the
// workload fields a workload kind does not read. The rule is the core's: the
// schema's x-client-kinds (the kinds that read a field) and x-client-needs
// (the fields one of which must be given), the same field table the core's
// validation refuses a misplaced value by. Only presentation here: a value
// set where it is not read is refused by the core, by name, and that message
// is shown beside the field.

import type { FieldInfo } from '../state/schema';

/** The client kind's key: its picker decides which client fields are offered. */
export const CLIENT_KIND_KEY = 'client.kind';

/** "a", "a or b", "a, b or c". */
function either(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

/** Whether a client field's text holds a value: its defaults are 0 and empty. */
function given(text: string): boolean {
  return text.trim() !== '' && Number(text) !== 0;
}

/**
 * Why a client field is not read with these values (the form's override
 * texts, by key), or null when it is read (and for every field the schema
 * gives no client rule, such as client.timeout_s, which every kind reads).
 * `labels` names the fields a rule needs (the page's labels, by key).
 */
export function clientFieldUnused(
  field: FieldInfo,
  values: ReadonlyMap<string, string>,
  labels: ReadonlyMap<string, string> = new Map(),
): string | null {
  const kind = values.get(CLIENT_KIND_KEY) ?? '';
  if (field.clientKinds && !field.clientKinds.includes(kind)) {
    return `Not read by a ${kind} client: read by a ${either(field.clientKinds)} client only.`;
  }
  const needs = field.clientNeeds;
  if (needs && needs.length > 0 && !needs.some((key) => given(values.get(key) ?? ''))) {
    return `Read only with stages (${either(needs.map((key) => labels.get(key) ?? key))} given).`;
  }
  return null;
}
