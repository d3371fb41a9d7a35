// The names a person reads for what the core names by key: a field's label
// (the schema's x-label), a policy's label (the module's catalogue), and a
// core message with the dotted keys it names given as their labels. Known
// once the worker has loaded the module; before that every name is its key.

import type { PolicyInfo } from '../worker/prefixroute-module';
import { type FieldInfo, labelKeys } from '../state/schema';

/** Field and policy labels, from the schema and the catalogue. O(fields) per look-up. */
export class Labels {
  private fields: readonly FieldInfo[] = [];
  private catalogue: readonly PolicyInfo[] = [];

  /** The page's fields and the module's catalogue, once loaded. */
  set(fields: readonly FieldInfo[], catalogue: readonly PolicyInfo[]): void {
    this.fields = fields;
    this.catalogue = catalogue;
  }

  /** A field's label (the schema's x-label). */
  field(key: string): string {
    return this.fields.find((f) => f.key === key)?.label ?? key;
  }

  /** A field's default as override text ("" for an unknown key). */
  defaultText(key: string): string {
    return this.fields.find((f) => f.key === key)?.defaultText ?? '';
  }

  /** A policy's label (the module's catalogue). */
  policy(name: string): string {
    return this.catalogue.find((p) => p.name === name)?.label ?? name;
  }

  /** A core message with the scenario keys it names given as their fields' labels (schema.ts, labelKeys). */
  text(text: string): string {
    return labelKeys(text, this.fields, (group) => this.policy(group));
  }
}
