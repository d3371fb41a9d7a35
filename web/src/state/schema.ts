// The scenario fields as the page needs them, read from the core's JSON
// Schema. Labels, ranges, defaults, units and help texts come only from
// there, so the page, the command line and the URL can never disagree about
// a field.

/** `text`: a free text the core parses and checks (e.g. client.stages' "1x10,2x10"); the page only passes it on. */
export type FieldKind = 'integer' | 'number' | 'policies' | 'choice' | 'text';

/** An override: a field's dotted key and its value text, as the CLI's `--set key=value` and the link carry it. */
export type Pair = [key: string, value: string];

/** One scenario field as the page shows it: what the schema says about it, nothing added. */
export interface FieldInfo {
  /** Dotted key, exactly as in the CLI's --set and the URL. */
  key: string;
  /** Short human label (the schema's x-label, e.g. "Load slack"); the key when the schema gives none. */
  label: string;
  kind: FieldKind;
  /** Top-level group ("workload", "cluster", ...), or "" for top-level fields. */
  group: string;
  min: number;
  max: number;
  /** Default as override text (numbers as JS prints them, policies comma-joined). */
  defaultText: string;
  unit: string;
  description: string;
  /** Allowed policy names (policies field), allowed values (choice field). */
  options: string[];
  /**
   * A raw field hardware.* derives unless given (the schema's x-derived-from):
   * its value text is "" while derived (the canonical scenario's null).
   */
  derived?: boolean;
  /** Workload fields: the workload kinds that read it (the schema's x-kinds); absent = every kind. */
  kinds?: string[];
  /** Client fields: the client kinds that read it (the schema's x-client-kinds); absent = every kind. */
  clientKinds?: string[];
  /** Client fields read only when one of these client fields is given (the schema's x-client-needs). */
  clientNeeds?: string[];
}

type JsonObject = Record<string, unknown>;

function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function strings(list: unknown[]): string[] {
  return list.filter((x): x is string => typeof x === 'string');
}

function readField(key: string, group: string, prop: JsonObject): FieldInfo | null {
  const common = {
    key,
    label: typeof prop['x-label'] === 'string' && prop['x-label'] !== '' ? prop['x-label'] : key,
    group,
    unit: typeof prop['x-unit'] === 'string' ? prop['x-unit'] : '',
    description: typeof prop.description === 'string' ? prop.description : '',
    ...(prop['x-derived-from'] !== undefined ? { derived: true } : {}),
    ...(Array.isArray(prop['x-kinds']) ? { kinds: strings(prop['x-kinds']) } : {}),
    ...(Array.isArray(prop['x-client-kinds']) ? { clientKinds: strings(prop['x-client-kinds']) } : {}),
    ...(Array.isArray(prop['x-client-needs']) ? { clientNeeds: strings(prop['x-client-needs']) } : {}),
  };
  if (prop.type === 'integer' || prop.type === 'number') {
    return {
      ...common,
      kind: prop.type,
      min: num(prop.minimum, -Number.MAX_VALUE),
      max: num(prop.maximum, Number.MAX_VALUE),
      defaultText: String(num(prop.default, 0)),
      options: [],
    };
  }
  if (prop.type === 'array' && isObject(prop.items) && Array.isArray(prop.items.enum)) {
    const options = prop.items.enum.filter((x): x is string => typeof x === 'string');
    const def = Array.isArray(prop.default) ? prop.default.filter((x): x is string => typeof x === 'string') : options;
    return { ...common, kind: 'policies', min: 0, max: 0, defaultText: def.join(','), options };
  }
  if (prop.type === 'string' && Array.isArray(prop.enum)) {
    const options = prop.enum.filter((x): x is string => typeof x === 'string');
    const def = typeof prop.default === 'string' ? prop.default : options[0] ?? '';
    return { ...common, kind: 'choice', min: 0, max: 0, defaultText: def, options };
  }
  if (prop.type === 'string') {
    // A free text: the core reads it (a syntax of its own, such as client.stages); its length bound is the schema's.
    return { ...common, kind: 'text', min: 0, max: num(prop.maxLength, 256), defaultText: typeof prop.default === 'string' ? prop.default : '', options: [] };
  }
  return null; // constants such as schema_version are not controls
}

/** Flattens the schema's properties (one level of nesting) into fields, in schema order. */
export function fieldsFromSchema(schemaText: string): FieldInfo[] {
  const schema: unknown = JSON.parse(schemaText);
  if (!isObject(schema) || !isObject(schema.properties)) throw new Error('scenario schema has no properties');
  const fields: FieldInfo[] = [];
  for (const [name, prop] of Object.entries(schema.properties)) {
    if (!isObject(prop)) continue;
    if (prop.type === 'object' && isObject(prop.properties)) {
      for (const [sub, subProp] of Object.entries(prop.properties)) {
        if (!isObject(subProp)) continue;
        const f = readField(`${name}.${sub}`, name, subProp);
        if (f) fields.push(f);
      }
    } else {
      const f = readField(name, '', prop);
      if (f) fields.push(f);
    }
  }
  return fields;
}

/** Override text of a value from the canonical scenario JSON. */
export function valueText(value: unknown): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((x) => typeof x === 'string')) return value.join(',');
  return null;
}

/** Reads every field's value (as override text) out of a canonical scenario JSON. */
export function scenarioValues(scenarioJson: string, fields: FieldInfo[]): Map<string, string> {
  const doc: unknown = JSON.parse(scenarioJson);
  const values = new Map<string, string>();
  for (const f of fields) {
    let node: unknown = doc;
    for (const part of f.key.split('.')) node = isObject(node) ? node[part] : undefined;
    // A derivable field left to hardware.* is null: "" (derived), not its default.
    const text = f.derived && node === null ? '' : valueText(node);
    values.set(f.key, text ?? f.defaultText);
  }
  return values;
}

/** Whether an override text means the field's default (4000 and 4e3 both do). */
export function isDefault(field: FieldInfo, text: string): boolean {
  if (field.kind === 'policies' || field.kind === 'choice' || field.kind === 'text') return text === field.defaultText;
  // "" is a derivable field left to hardware.* (see FieldInfo.derived); Number("") would read it as 0.
  if (text === '') return field.derived === true;
  return Number(text) === Number(field.defaultText);
}

/** The overrides that differ from the defaults, in field order: what the URL and --set carry. */
export function nonDefaultOverrides(values: Map<string, string>, fields: FieldInfo[]): Pair[] {
  const out: Pair[] = [];
  for (const f of fields) {
    const text = values.get(f.key);
    if (text !== undefined && !isDefault(f, text)) out.push([f.key, text]);
  }
  return out;
}

/**
 * Groups of the schema the page does not offer as controls, and why. A trace
 * is chosen in the Trace replay panel (trace-panel.ts; its link keys are read
 * by trace-link.ts), which also holds the trace fields of TRACE_PAGE_FIELDS;
 * the trace's other reading settings are the command line's. Everything else
 * the core adds later shows up as a control automatically.
 */
export const UNSUPPORTED_GROUPS: Record<string, string> = {
  trace:
    'the page sets only a replay’s time window, request limit, time scale and an OpenAI log’s key mapping ' +
    '(under Trace replay); for other trace settings use prefixroute --trace',
};

/**
 * The trace reading settings the page offers, in the Trace replay panel: they
 * slice a replayed trace (a window of its clock; its first N requests; its
 * clock stretched or squeezed) and choose an openai log's keys for the time,
 * the prompt and the session (also offered by the guided import). The
 * bad-line mode has a control and link key of its own there.
 */
export const TRACE_PAGE_FIELDS: readonly string[] = [
  'trace.start_s', 'trace.end_s', 'trace.limit', 'trace.time_scale',
  'trace.time_field', 'trace.prompt_field', 'trace.session_field',
];

/** Whether the page offers a control (and a link key) for this field. */
export function isPageField(field: FieldInfo): boolean {
  if (TRACE_PAGE_FIELDS.includes(field.key)) return true;
  return !Object.prototype.hasOwnProperty.call(UNSUPPORTED_GROUPS, field.group);
}

/**
 * A message of the core with the scenario keys it names replaced by their
 * fields' labels, quoted, for a person reading it beside a control ("must be
 * <= workload.prefix_tokens_max (880)" → "must be <= “Prefix length, max”
 * (880)"). The core's messages keep the keys (the command line and links use
 * them); only the page shows labels. Only dotted keys are replaced: a
 * top-level key ("seed", "policies") is also a plain word of a message. A
 * label that several fields share ("Block size") is followed by its group's
 * title (`groupTitle`, e.g. the policy's label). A key is matched whole, not
 * inside a longer key or word.
 */
export function labelKeys(text: string, fields: readonly FieldInfo[], groupTitle: (group: string) => string = (g) => g): string {
  const named = fields.filter((f) => f.key.includes('.') && f.label !== f.key && f.label !== '');
  if (named.length === 0) return text;
  const uses = new Map<string, number>();
  for (const f of fields) uses.set(f.label, (uses.get(f.label) ?? 0) + 1);
  const byKey = new Map(named.map((f) => [f.key, (uses.get(f.label) ?? 0) > 1 ? `“${f.label}” (${groupTitle(f.group)})` : `“${f.label}”`]));
  // Longer keys first, so that of two keys where one starts the other the longer wins.
  const keys = [...byKey.keys()].sort((a, b) => b.length - a.length).map((k) => k.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  // Not preceded by a word character or a dot; not followed by a word character, nor by a dot that continues a key.
  const pattern = new RegExp(`(?<![\\w.])(?:${keys.join('|')})(?!\\w|\\.\\w)`, 'g');
  return text.replace(pattern, (key) => byKey.get(key) ?? key);
}
