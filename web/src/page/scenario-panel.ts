// The Scenario panel's part in the page: it builds the form (ui/controls.ts)
// from the schema, turns typing into runs (debounced) and presets into their
// scenarios, and shows each run's outcome beside the fields: the values the
// core ran, what it refused and why, the deployment line, the preset that
// matches. It decides nothing about runs: the page runs what it reports.

import { type HardwareSummary } from '../ui/deployment';
import { Controls } from '../ui/controls';
import { byId } from '../ui/dom';
import type { Labels } from '../ui/labels';
import { withPageScenario } from '../state/page-scenario';
import type { UrlNotice } from '../state/page-state';
import { preview } from '../state/link-text';
import { PRESETS, presetOverrides } from '../state/presets';
import { type FieldInfo, isDefault, nonDefaultOverrides, type Pair } from '../state/schema';
import type { PolicyInfo } from '../worker/prefixroute-module';
import type { Rejection, TpPick } from '../worker/protocol';
import { changesDeployment, PICKED_KEYS, type PickReason, pickForModel } from './model-pick';

/** Typing pauses this long before a re-run; checkboxes and presets run at once. */
const EDIT_DEBOUNCE_MS = 350;

/** What asked for a run: a link (its values are the link's), an edit of the form, a preset. */
export type RunOrigin = 'link' | 'edit' | 'preset';

/** What the panel asks of the page. */
export interface ScenarioPanelHost {
  /**
   * Run these overrides, or those a preparation step gives (a model picked:
   * its TP asks the worker first); `unreadable` fields could not be read
   * from the form (they keep their values).
   */
  runEdit(overrides: Pair[] | (() => Promise<Pair[]>), unreadable: Set<string>): void;
  /** The core's smallest tensor parallelism for these overrides' model and GPU, with its reason (null: none to offer). */
  smallestTp(overrides: Pair[]): Promise<TpPick | null>;
  /** The reader chose a preset: run its scenario (presetScenario). */
  runPreset(id: string): void;
  /** The values of the scenario on screen (null before the first run). */
  shownValues(): Map<string, string> | null;
}

/** A run's outcome as the panel shows it. */
export interface ScenarioOutcome {
  /** Every field's value as the core ran it. */
  values: Map<string, string>;
  rejected: readonly Rejection[];
  origin: RunOrigin;
  linkMessages: readonly UrlNotice[];
  unreadable: ReadonlySet<string>;
  summary: HardwareSummary | null;
  /** The run replayed a trace: the workload fields do not apply, and no preset matches. */
  replaying: boolean;
}

export class ScenarioPanel {
  private controls: Controls | null = null;
  private fields: FieldInfo[] = [];
  private catalogue: PolicyInfo[] = [];
  private editTimer: ReturnType<typeof setTimeout> | undefined;
  /** The values the page set or kept for the model last picked, and why: shown while each value stays. */
  private reasons: PickReason[] = [];
  /** The fields of PICKED_KEYS the reader, a link or a preset set: the page never changes them silently. */
  private explicit = new Set<string>();

  constructor(
    private readonly labels: Labels,
    private readonly host: ScenarioPanelHost,
  ) {}

  /** Builds the form (the page's fields, the policy catalogue); open unless on a phone. */
  build(fields: FieldInfo[], catalogue: PolicyInfo[]): void {
    this.fields = fields;
    this.catalogue = catalogue;
    const details = byId<HTMLDetailsElement>('controls-details');
    details.open = !window.matchMedia('(max-width: 760px)').matches;
    // "Edit the scenario" lands on the form, open: not on a closed panel needing a second tap.
    for (const jump of document.querySelectorAll<HTMLAnchorElement>('a.jump-controls')) jump.addEventListener('click', () => (details.open = true));
    this.controls = new Controls(byId<HTMLFormElement>('controls'), fields, catalogue, PRESETS, {
      onEdit: () => this.scheduleEdit(EDIT_DEBOUNCE_MS),
      onCommit: () => this.scheduleEdit(0),
      onPreset: (id) => {
        this.cancelEdit();
        this.host.runPreset(id);
      },
      traceHost: byId('trace-settings'),
    });
  }

  /** The overrides of a preset's scenario (the page's policies unless it names its own), or null for an unknown id. */
  presetScenario(id: string): Pair[] | null {
    const preset = PRESETS.find((p) => p.id === id);
    return preset ? withPageScenario(this.catalogue, presetOverrides(preset.document)) : null;
  }

  /** Drops an edit that has not run yet (a replay or preset takes over). */
  cancelEdit(): void {
    clearTimeout(this.editTimer);
  }

  /** Shows values in the form without a run (a link waiting for its trace file). */
  setValues(values: Map<string, string>): void {
    this.controls?.setValues(values);
  }

  /**
   * Shows a run's outcome: its values, each refused value and unreadable
   * field beside its control, the deployment line and the matching preset.
   * Returns the notes for the link's message box (the link's own problems,
   * and a link's refused values).
   */
  showRun(outcome: ScenarioOutcome): string[] {
    const controls = this.controls!;
    const { values, origin } = outcome;
    controls.clearMessages();
    const notes: string[] = [];
    for (const m of outcome.linkMessages) {
      const text = this.labels.text(m.text);
      if (m.key) controls.setMessage(m.key, text);
      notes.push(m.key ? `${this.labels.field(m.key)}: ${text}` : text);
    }
    const keep = new Set<string>();
    for (const r of outcome.rejected) {
      const using = values.get(r.key) ?? '';
      const source = origin === 'link' ? 'Link value' : 'Value';
      // Beside a control, other fields are named by their labels, as the controls are.
      const text = `${source} ${preview(r.value)} refused: ${this.labels.text(r.message)}. Using ${using}.`;
      controls.setMessage(r.key, text);
      if (origin === 'link') notes.push(`${this.labels.field(r.key)}: ${text}`);
      if (origin === 'edit') keep.add(r.key);
    }
    for (const k of outcome.unreadable) {
      controls.setMessage(k, `Enter a number. Using ${values.get(k) ?? ''}.`);
      keep.add(k);
    }
    // An edit's results never undo what was typed while they ran.
    controls.setValues(values, keep, origin === 'edit');
    if (origin !== 'edit') this.takeExplicit(values);
    controls.setDeployment(outcome.summary, values);
    this.showReasons(values);
    controls.setPreset(outcome.replaying ? 'custom' : this.matchPreset(values, controls.presetShown()));
    // A replayed trace replaces the synthetic workload: its fields do not apply.
    const workload = document.querySelector<HTMLFieldSetElement>('fieldset.group-workload');
    if (workload) workload.disabled = outcome.replaying;
    return notes;
  }

  private scheduleEdit(delay: number): void {
    clearTimeout(this.editTimer);
    this.editTimer = setTimeout(() => this.runEdit(), delay);
  }

  private runEdit(): void {
    if (!this.controls) return;
    const values = this.controls.read();
    const unreadable = new Set(this.fields.map((f) => f.key).filter((k) => !values.has(k)));
    const shown = this.host.shownValues();
    for (const k of unreadable) {
      const current = shown?.get(k);
      if (current !== undefined) values.set(k, current);
    }
    if (shown) this.noteReaderValues(values, shown);
    if (shown && changesDeployment(values, shown)) {
      // A model picked (or its GPU changed) brings its TP and engine (model-pick.ts), set and said before the run.
      this.host.runEdit(async () => {
        const pick = await this.host.smallestTp(nonDefaultOverrides(new Map(values), this.fields));
        const picked = pickForModel(values, shown, pick, this.explicit);
        this.reasons = [...this.reasons.filter((r) => !picked.some((p) => p.key === r.key)), ...picked];
        this.controls?.setValues(new Map(picked.map((r) => [r.key, values.get(r.key) ?? r.value])));
        this.showReasons(values);
        return nonDefaultOverrides(values, this.fields);
      }, unreadable);
      return;
    }
    this.host.runEdit(nonDefaultOverrides(values, this.fields), unreadable);
  }

  /**
   * A run from a link or preset: the fields of PICKED_KEYS it sets to other
   * than their defaults are its own (the page's picks, still shown with their
   * reasons, stay the page's).
   */
  private takeExplicit(values: ReadonlyMap<string, string>): void {
    this.explicit = new Set(
      PICKED_KEYS.filter((k) => {
        const field = this.fields.find((f) => f.key === k);
        const v = values.get(k);
        return field && v !== undefined && !isDefault(field, v) && !this.reasons.some((r) => r.key === k && r.value === v);
      }),
    );
  }

  /** The fields of PICKED_KEYS the reader changed in the form since the run on screen: theirs from now on. */
  private noteReaderValues(values: ReadonlyMap<string, string>, shown: ReadonlyMap<string, string>): void {
    for (const k of PICKED_KEYS) {
      const v = values.get(k);
      if (v === undefined || v === shown.get(k) || this.reasons.some((r) => r.key === k && r.value === v)) continue;
      this.explicit.add(k);
      this.reasons = this.reasons.filter((r) => r.key !== k);
    }
  }

  /** The reasons of the page's picks whose values are still in `values` (the others are dropped). */
  private showReasons(values: ReadonlyMap<string, string>): void {
    // Without a model the picks have no reason left.
    this.reasons = values.get('hardware.model') === 'none' ? [] : this.reasons.filter((r) => values.get(r.key) === r.value);
    for (const key of PICKED_KEYS) this.controls?.setReason(key, this.reasons.find((r) => r.key === key)?.text ?? null);
  }

  /**
   * The preset whose non-default values are exactly the scenario's, else
   * "custom". The preset shown is tried first: two presets can name the same
   * scenario (two published experiments rerun one setting for different
   * claims), and the one picked keeps its name.
   */
  private matchPreset(values: Map<string, string>, shown: string): string {
    for (const p of [...PRESETS].sort((a, b) => Number(b.id === shown) - Number(a.id === shown))) {
      const want = new Map(withPageScenario(this.catalogue, presetOverrides(p.document)));
      const same = this.fields.every((f) => {
        const v = values.get(f.key) ?? f.defaultText;
        const w = want.get(f.key);
        return w === undefined ? isDefault(f, v) : f.kind === 'policies' || f.kind === 'choice' || f.kind === 'text' ? v === w : Number(v) === Number(w);
      });
      if (same) return p.id;
    }
    return 'custom';
  }
}
