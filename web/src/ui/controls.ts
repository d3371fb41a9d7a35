// The scenario form, built from the core's schema: one labelled number input
// per field (range, default, unit and help text from the schema), a picker
// per choice field (the schema's enum), policy checkboxes from the policy
// catalogue, and the preset picker. The deployment pickers (model, GPU, TP,
// engine) come first with the "what this means" line; the workload kind
// shows only the fields it reads; the benchmark client's fields a client kind
// does not read are greyed out with the reason (client-fields.ts); free texts
// (client.stages) are text inputs the core parses; the trace fields go to the
// Trace replay panel. The form only reports values; page/scenario-panel.ts
// decides when to run.

import { CLIENT_KIND_KEY, clientFieldUnused } from './client-fields';
import { DEPLOYMENT_KEYS, deploymentLine, derivedNotes, type HardwareSummary, readByKind } from './deployment';
import { h } from './dom';
import { formatCount } from './format';
import type { PolicyInfo } from '../worker/prefixroute-module';
import type { Preset } from '../state/presets';
import { policySwatch } from './palette';
import { type FieldInfo, isDefault } from '../state/schema';

/** The workload kind's key: its picker decides which workload fields show. */
const KIND_KEY = 'workload.kind';

/** Groups shown open, in this order, before the policies; every other group is a collapsed section after them. */
const MAIN_GROUPS = ['workload', 'client', 'cluster'];

/** Titles of groups whose name alone says too little. */
const GROUP_TITLES: Readonly<Record<string, string>> = { client: 'Benchmark client' };

/** "scrape_period_ms" → "Scrape period": a group's title when the catalogue does not name it. */
function humanise(name: string): string {
  const words = name.replace(/_(ms|s)$/, '').replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function domId(key: string): string {
  return `field-${key.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
}

function formatBound(field: FieldInfo, v: number): string {
  if (Math.abs(v) >= 1e15) return v.toExponential(0);
  return field.kind === 'integer' ? formatCount(v) : String(v);
}

interface FieldView {
  field: FieldInfo;
  root: HTMLElement;
  error: HTMLElement;
  input?: HTMLInputElement;
  select?: HTMLSelectElement;
  boxes?: HTMLInputElement[];
  /** Derivable fields: the value in force and where it comes from. */
  note?: HTMLElement;
  /** Why the page set this field's value (e.g. for the model picked), until the value changes. */
  reason?: HTMLElement;
  /** Last policies text set from outside: keeps its order while the set is unchanged. */
  lastPolicies?: string;
  /** Client fields: why the chosen client kind does not read it (client-fields.ts), shown only then. */
  unused?: HTMLElement;
}

/** What the form reports: typing (debounced by the page), a committed value, a chosen preset. */
export interface ControlsOptions {
  onEdit: () => void;
  onCommit: () => void;
  onPreset: (id: string) => void;
  /** Where the trace group's fields go (the Trace replay panel); without it they are not shown. */
  traceHost?: HTMLElement;
}

/** The scenario form (#controls): one view per field, in schema order, grouped as above. */
export class Controls {
  private readonly views = new Map<string, FieldView>();
  private readonly preset: HTMLSelectElement;

  constructor(
    form: HTMLFormElement,
    readonly fields: FieldInfo[],
    catalogue: PolicyInfo[],
    presets: readonly Preset[],
    private readonly options: ControlsOptions,
  ) {
    this.preset = h('select', { id: 'preset', name: 'preset', 'aria-describedby': 'preset-help' });
    // Presets with a group (the published experiments) are listed under it, after the ungrouped ones.
    const groups = new Map<string, HTMLElement>();
    for (const p of presets) {
      const option = h('option', { value: p.id }, p.label);
      if (!p.group) {
        this.preset.append(option);
        continue;
      }
      let group = groups.get(p.group);
      if (!group) {
        group = h('optgroup', { label: p.group });
        groups.set(p.group, group);
        this.preset.append(group);
      }
      group.append(option);
    }
    this.preset.append(h('option', { value: 'custom', disabled: true }, 'Custom'));
    const presetHelp = h('p', { class: 'help', id: 'preset-help' }, presets[0]?.blurb ?? '');
    this.preset.addEventListener('change', () => {
      presetHelp.textContent = presets.find((p) => p.id === this.preset.value)?.blurb ?? '';
      options.onPreset(this.preset.value);
    });
    const presetBlock = h('div', { class: 'field preset' }, h('label', { for: 'preset' }, 'Preset'), this.preset, presetHelp);
    this.presetHelp = presetHelp;
    this.presetBlurbs = new Map(presets.map((p) => [p.id, p.blurb]));

    // Sections: the main groups, then the policies with the parameter groups
    // of the policies the reference scenario runs (the schema's default list),
    // then every other group collapsed, then the run (seed). A policy's
    // parameter group is titled with its catalogue label.
    const byGroup = new Map<string, FieldInfo[]>();
    const deployment: FieldInfo[] = [];
    for (const field of fields) {
      if (DEPLOYMENT_KEYS.includes(field.key)) {
        deployment.push(field);
        continue;
      }
      const group = field.kind === 'policies' ? 'policies' : field.group;
      byGroup.set(group, [...(byGroup.get(group) ?? []), field]);
    }
    deployment.sort((a, b) => DEPLOYMENT_KEYS.indexOf(a.key) - DEPLOYMENT_KEYS.indexOf(b.key));
    // The kind picker first in its group: the fields below it are the kind's.
    const workload = byGroup.get('workload');
    if (workload) byGroup.set('workload', [...workload.filter((f) => f.key === KIND_KEY), ...workload.filter((f) => f.key !== KIND_KEY)]);
    const trace = byGroup.get('trace') ?? [];
    byGroup.delete('trace');
    const policyLabels = new Map(catalogue.map((p) => [p.name, p.label]));
    const defaultPolicies = fields.find((f) => f.kind === 'policies')?.defaultText.split(',') ?? [];
    const openPolicyGroups = new Set(defaultPolicies.filter((name) => byGroup.has(name)));
    const fieldset = (cls: string, title: string, list: FieldInfo[]) =>
      h('fieldset', { class: `group ${cls}` }, h('legend', {}, title), ...list.map((f) => this.view(f, catalogue).root));
    const sections: HTMLElement[] = [];
    if (deployment.length) {
      this.deploymentText = h('p', { class: 'deployment-line', id: 'deployment-line', role: 'status', 'aria-live': 'polite' });
      const pickers = deployment.map((f) => this.view(f, catalogue).root);
      sections.push(h('fieldset', { class: 'group group-deployment' }, h('legend', {}, 'Deployment'), ...pickers, this.deploymentText));
    }
    for (const g of MAIN_GROUPS) {
      const list = byGroup.get(g);
      if (list) sections.push(fieldset(`group-${g}`, GROUP_TITLES[g] ?? humanise(g), list));
    }
    const policyFields = [...(byGroup.get('policies') ?? [])];
    for (const g of openPolicyGroups) policyFields.push(...(byGroup.get(g) ?? []));
    if (policyFields.length) sections.push(fieldset('group-policies', 'Policies', policyFields));
    const advanced: HTMLElement[] = [];
    for (const [g, list] of byGroup) {
      if (g === '' || g === 'policies' || MAIN_GROUPS.includes(g) || openPolicyGroups.has(g)) continue;
      advanced.push(
        h('details', { class: 'group-details', 'data-group': g },
          h('summary', {}, policyLabels.get(g) ?? humanise(g)),
          h('div', { class: 'group' }, ...list.map((f) => this.view(f, catalogue).root))),
      );
    }
    if (advanced.length) {
      sections.push(h('fieldset', { class: 'group group-advanced' }, h('legend', {}, 'More parameters'),
        h('p', { class: 'help' }, 'Parameters of the router model and of policies’ own tuning; each section opens on click.'),
        ...advanced));
    }
    const run = byGroup.get('');
    if (run) sections.push(fieldset('group-run', 'Run', run));
    form.replaceChildren(presetBlock, ...sections);
    if (options.traceHost) options.traceHost.replaceChildren(...trace.map((f) => this.view(f, catalogue).root));
    this.showKind(this.kindView()?.select?.value ?? '');
    this.showClientUse();
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      options.onCommit();
    });
  }

  private readonly presetHelp: HTMLElement;
  private readonly presetBlurbs: Map<string, string>;
  /** Each number input's text when the form was last read or set: a different text was typed since. */
  private readonly synced = new Map<string, string>();
  /** The "what this means" line under the deployment pickers. */
  private deploymentText: HTMLElement | null = null;

  private view(field: FieldInfo, catalogue: PolicyInfo[]): FieldView {
    const view =
      field.kind === 'policies' ? this.policiesView(field, catalogue)
      : field.kind === 'choice' ? this.choiceView(field)
      : field.kind === 'text' ? this.textView(field)
      : this.numberView(field);
    if (field.group === 'client') this.addUnusedNote(view);
    // A line saying why the page chose this field's value, shown only then (setReason).
    const id = `${domId(field.key)}-reason`;
    view.reason = h('p', { class: 'field-reason', id, role: 'status', hidden: true });
    view.root.insertBefore(view.reason, view.error);
    const control = view.input ?? view.select;
    control?.setAttribute('aria-describedby', `${id} ${control.getAttribute('aria-describedby') ?? ''}`.trim());
    this.views.set(field.key, view);
    return view;
  }

  /** Says beside a field why the page set its value (null clears it). */
  setReason(key: string, text: string | null): void {
    const reason = this.views.get(key)?.reason;
    if (!reason) return;
    reason.textContent = text ?? '';
    reason.hidden = !text;
  }

  private numberView(field: FieldInfo): FieldView {
    const id = domId(field.key);
    const input = h('input', {
      id,
      name: field.key,
      type: 'number',
      inputmode: field.kind === 'integer' ? 'numeric' : 'decimal',
      min: field.min,
      max: field.max,
      step: field.kind === 'integer' ? 1 : 'any',
      value: field.defaultText,
      'aria-describedby': `${id}-help ${id}-error`,
      autocomplete: 'off',
    });
    input.addEventListener('input', () => this.options.onEdit());
    input.addEventListener('change', () => {
      if (field.group === 'client') this.showClientUse();
      this.options.onCommit();
    });
    const help = h('p', { class: 'help', id: `${id}-help` }, field.description,
      h('span', { class: 'range' }, ` Range ${formatBound(field, field.min)}–${formatBound(field, field.max)}${field.unit ? ` ${field.unit}` : ''}; default ${formatBound(field, Number(field.defaultText))}.`));
    const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
    // The unit is read out with the label and shown in the range line, keeping labels to one line.
    const label = h('label', { for: id }, field.label, field.unit ? h('span', { class: 'visually-hidden' }, ` (${field.unit})`) : null);
    // A derivable field: empty means "derive from the hardware"; the note says which value is in force.
    const note = field.derived ? h('p', { class: 'derived-note', id: `${id}-note` }) : undefined;
    if (note) input.setAttribute('aria-describedby', `${id}-note ${id}-help ${id}-error`);
    const root = h('div', { class: 'field', 'data-key': field.key }, label, input, note ?? null, help, error);
    return { field, root, error, input, note };
  }

  /** A free text the core parses (client.stages' "1x10,2x10"): passed on as typed; the core's message says what is wrong. */
  private textView(field: FieldInfo): FieldView {
    const id = domId(field.key);
    const input = h('input', {
      id,
      name: field.key,
      type: 'text',
      maxlength: field.max,
      value: field.defaultText,
      spellcheck: 'false',
      autocapitalize: 'off',
      autocomplete: 'off',
      'aria-describedby': `${id}-help ${id}-error`,
    });
    input.addEventListener('input', () => {
      if (field.group === 'client') this.showClientUse();
      this.options.onEdit();
    });
    input.addEventListener('change', () => this.options.onCommit());
    const help = h('p', { class: 'help', id: `${id}-help` }, field.description);
    const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
    const root = h('div', { class: 'field field-text', 'data-key': field.key }, h('label', { for: id }, field.label), input, help, error);
    return { field, root, error, input };
  }

  /** A client field's line saying why the client kind does not read it (showClientUse fills it). */
  private addUnusedNote(view: FieldView): void {
    const id = `${domId(view.field.key)}-unused`;
    view.unused = h('p', { class: 'field-unused', id, hidden: true });
    view.root.insertBefore(view.unused, view.error);
    const control = view.input ?? view.select;
    control?.setAttribute('aria-describedby', `${id} ${control.getAttribute('aria-describedby') ?? ''}`.trim());
  }

  /**
   * Greys out the client fields the chosen client kind does not read, each
   * with the reason. A field that holds a value other than its default stays
   * editable (the core refuses the value by name; the reader clears it here).
   */
  private showClientUse(): void {
    const values = new Map<string, string>();
    const labels = new Map<string, string>();
    for (const [key, view] of this.views) {
      if (view.field.group !== 'client') continue;
      labels.set(key, view.field.label);
      const text = view.select?.value ?? view.input?.value.trim();
      if (text !== undefined) values.set(key, text);
    }
    for (const view of this.views.values()) {
      if (!view.unused) continue;
      const why = clientFieldUnused(view.field, values, labels);
      view.unused.textContent = why ?? '';
      view.unused.hidden = why === null;
      const control = view.input ?? view.select;
      if (control) control.disabled = why !== null && isDefault(view.field, values.get(view.field.key) ?? view.field.defaultText);
      view.root.classList.toggle('unused', why !== null);
    }
  }

  private choiceView(field: FieldInfo): FieldView {
    const id = domId(field.key);
    const select = h('select', { id, name: field.key, 'aria-describedby': `${id}-help ${id}-error` });
    for (const option of field.options) select.append(h('option', { value: option }, option));
    select.value = field.defaultText;
    select.addEventListener('change', () => {
      if (field.key === KIND_KEY) this.showKind(select.value);
      if (field.key === CLIENT_KIND_KEY) this.showClientUse();
      this.options.onCommit();
    });
    const help = h('p', { class: 'help', id: `${id}-help` }, field.description);
    const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
    const root = h('div', { class: 'field field-choice', 'data-key': field.key }, h('label', { for: id }, field.label), select, help, error);
    return { field, root, error, select };
  }

  private kindView(): FieldView | undefined {
    return this.views.get(KIND_KEY);
  }

  /** Shows only the workload fields this kind reads (the others keep their values, and their link keys). */
  private showKind(kind: string): void {
    if (!kind) return;
    for (const view of this.views.values()) {
      if (view.field.group === 'workload') view.root.hidden = !readByKind(view.field, kind);
    }
  }

  /**
   * The deployment's "what this means" line and, beside each derivable field,
   * the value in force and its source, from the core's hardware summary of
   * the results shown (null: no model, the raw fields are in force).
   */
  setDeployment(summary: HardwareSummary | null, values: ReadonlyMap<string, string>): void {
    if (this.deploymentText) this.deploymentText.textContent = deploymentLine(summary, values);
    const notes = derivedNotes(summary);
    for (const view of this.views.values()) {
      if (!view.note || !view.input) continue;
      const note = notes.get(view.field.key);
      const inForce = note ? formatBound(view.field, Number(note.inForce.toPrecision(6))) : '';
      if (note?.source === 'derived') {
        view.input.placeholder = `${inForce} (derived)`;
        view.note.textContent = `In force: ${inForce}${view.field.unit ? ` ${view.field.unit}` : ''}, derived from the hardware; type a value to override it.`;
        view.note.title = note.formula;
      } else {
        view.input.placeholder = '';
        view.note.textContent = note?.source === 'given' && summary ? 'In force: the value given here (not derived); empty it to derive it from the hardware.' : '';
        view.note.title = note?.formula ?? '';
      }
      view.note.hidden = view.note.textContent === '';
    }
  }

  private policiesView(field: FieldInfo, catalogue: PolicyInfo[]): FieldView {
    const id = domId(field.key);
    const labels = new Map(catalogue.map((p) => [p.name, p.label]));
    const boxes: HTMLInputElement[] = [];
    const list = h('div', { class: 'checks', role: 'group', 'aria-labelledby': `${id}-label`, 'aria-describedby': `${id}-help ${id}-error` });
    for (const name of field.options) {
      const box = h('input', { type: 'checkbox', id: `${id}-${name}`, name: 'policies', value: name, checked: true });
      box.addEventListener('change', () => this.options.onCommit());
      boxes.push(box);
      list.append(h('label', { class: 'check', for: box.id }, box, policySwatch(name), labels.get(name) ?? name));
    }
    const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
    const root = h('div', { class: 'field field-policies', 'data-key': field.key },
      h('span', { class: 'label', id: `${id}-label` }, field.label), list,
      h('p', { class: 'help', id: `${id}-help` }, field.description), error);
    return { field, root, error, boxes };
  }

  /** The form's values as override texts; fields left empty or unreadable are omitted (and flagged). */
  read(): Map<string, string> {
    const values = new Map<string, string>();
    for (const [key, view] of this.views) {
      if (view.input) this.synced.set(key, view.input.value);
      if (view.select) {
        values.set(key, view.select.value);
      } else if (view.input && view.field.kind === 'text') {
        values.set(key, view.input.value.trim());
      } else if (view.input) {
        const text = view.input.value.trim();
        // An empty derivable field is left to the hardware (FieldInfo.derived).
        if (text === '' && view.field.derived && !view.input.validity.badInput) {
          values.set(key, '');
          continue;
        }
        if (text === '' || view.input.validity.badInput) {
          this.setMessage(key, 'Enter a number.');
          continue;
        }
        values.set(key, text);
      } else if (view.boxes) {
        const checked = view.boxes.filter((b) => b.checked).map((b) => b.value);
        const last = view.lastPolicies?.split(',') ?? [];
        const sameSet = last.length === checked.length && checked.every((c) => last.includes(c));
        values.set(key, sameSet && view.lastPolicies ? view.lastPolicies : checked.join(','));
      }
    }
    return values;
  }

  /**
   * Shows values (e.g. the scenario a run used); `keep` lists fields whose
   * typed text stays. With `keepTyped`, a field typed in since the form was
   * last read (the run shown was asked for before it) keeps its text too: its
   * own run is on its way.
   */
  setValues(values: Map<string, string>, keep: ReadonlySet<string> = new Set(), keepTyped = false): void {
    for (const [key, view] of this.views) {
      const text = values.get(key);
      if (text === undefined || keep.has(key)) continue;
      if (keepTyped && view.input && this.synced.has(key) && view.input.value !== this.synced.get(key)) continue;
      if (view.select) {
        view.select.value = text;
        if (key === KIND_KEY) this.showKind(text);
      } else if (view.input) {
        const same = view.field.kind === 'text' ? view.input.value.trim() === text : Number(view.input.value) === Number(text);
        if (!(document.activeElement === view.input && same)) view.input.value = text;
        this.synced.set(key, view.input.value);
      } else if (view.boxes) {
        const names = new Set(text.split(','));
        for (const b of view.boxes) b.checked = names.has(b.value);
        view.lastPolicies = text;
      }
    }
    this.showClientUse();
  }

  /** A message beside a field (null clears it). */
  setMessage(key: string, text: string | null): void {
    const view = this.views.get(key);
    if (!view) return;
    view.error.textContent = text ?? '';
    view.error.hidden = !text;
    const details = view.root.closest('details');
    if (text && details) details.open = true;
    const targets = view.input ? [view.input] : view.select ? [view.select] : view.boxes ?? [];
    for (const t of targets) {
      if (text) t.setAttribute('aria-invalid', 'true');
      else t.removeAttribute('aria-invalid');
    }
  }

  clearMessages(): void {
    for (const key of this.views.keys()) this.setMessage(key, null);
  }

  /** Fields that currently show a message. */
  flagged(): Set<string> {
    return new Set([...this.views].filter(([, v]) => !v.error.hidden).map(([k]) => k));
  }

  /** The preset the picker shows ("custom" for none). */
  presetShown(): string {
    return this.preset.value;
  }

  setPreset(id: string): void {
    this.preset.value = id;
    this.presetHelp.textContent = this.presetBlurbs.get(id) ?? 'Your own scenario: the link keeps it.';
  }
}
