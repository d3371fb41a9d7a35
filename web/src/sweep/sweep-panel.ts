// The Sweep panel: choose a numeric scenario field and a range, run the
// sweep in its own worker (progress, cancel), then draw hit rate against p99
// TTFT per policy with the Pareto front marked, list every point in a table
// and export the core's sweep JSON. The sweep runs on the scenario on screen,
// on its replayed trace too when it has one (every point replays it);
// its inputs live in the page's state and link (state/page-state.ts): the
// panel starts from the state the page read and reports every valid change back.

import { byId, h } from '../ui/dom';
import { download } from '../ui/download';
import { formatBytes, formatCount } from '../ui/format';
import type { SweepProgress, TraceRequest } from '../worker/protocol';
import type { FieldInfo, Pair } from '../state/schema';
import { SweepChart } from './sweep-chart';
import { parseSweepResults, sweepPolicies } from './sweep-results';
import { checkSweep, DEFAULT_SWEEP, type SweepInput, type SweepState, sweepableFields, sweepsOnTrace, TRACE_SWEEP, withParam } from './sweep-state';
import { renderSweepTable } from './sweep-table';
import { sweepRows } from './sweep-view';
import { RunAborted } from '../worker/worker-client';
import { SweepPool } from '../worker/worker-pool';

/** What the panel needs from the page. */
export interface SweepHost {
  /** Every scenario field (from the core's schema). */
  fields: FieldInfo[];
  /** Policy name → display label. */
  labels: Map<string, string>;
  /** The overrides of the scenario on screen: the sweep's base. */
  overrides: () => Pair[];
  /** The trace the scenario on screen replays (null: the synthetic workload): every point replays it too. */
  trace: () => TraceRequest | null;
  /** Called with the inputs whenever they change and pass checkSweep: the sweep the page's link carries. */
  onStateChange: (sweep: SweepState) => void;
}

/** Where the panel starts: the page state's sweep, what reading the link said about it, and whether to run it at once. */
export interface SweepStart {
  sweep: SweepState;
  /** Notices of the link's sweep keys, shown in the section. */
  notices: string[];
  /** The link named a sweep: run it once the page's first results are shown. */
  run: boolean;
}

const INPUTS: SweepInput[] = ['param', 'from', 'to', 'steps'];

/** The Sweep section of the page (#sweep in index.html). */
export class SweepPanel {
  private state: SweepState;
  /** The last state that passed checkSweep: what the link carries. */
  private linked: SweepState;
  private readonly client = new SweepPool();
  private readonly chart: SweepChart;
  private readonly fieldsByKey: Map<string, FieldInfo>;
  private shown: { json: string; key: string } | null = null;
  private readonly fromLink: boolean;
  /** The trace the scenario on screen replays (scenarioChanged): the sweep replays it. */
  private trace: TraceRequest | null = null;
  /** The sweep the trace's default replaced (scenarioChanged), put back with the synthetic workload unless changed since. */
  private beforeTrace: { sweep: SweepState; replacedBy: SweepState } | null = null;

  constructor(private readonly host: SweepHost, start: SweepStart) {
    this.fieldsByKey = new Map(sweepableFields(host.fields).map((f) => [f.key, f]));
    // pageStateFromUrl already replaced (with a notice) a sweep of a field the panel does not offer.
    this.state = this.fieldsByKey.has(start.sweep.param) ? { ...start.sweep } : { ...DEFAULT_SWEEP };
    this.fromLink = start.run;
    this.linked = checkSweep(this.state, host.fields).ok ? { ...this.state } : { ...DEFAULT_SWEEP };
    this.chart = new SweepChart(byId('chart-sweep'));
    this.buildParamSelect();
    this.writeInputs();
    this.wire();
    this.setMessages(start.notices);
    this.check(true);
  }

  /**
   * The sweep the page's link carries: the inputs as they last passed
   * checkSweep (inputs out of range stay on screen with their messages, but
   * a link never carries a sweep that cannot run), else the default sweep.
   */
  get linkedSweep(): SweepState {
    return { ...this.linked };
  }

  /** Runs the sweep at once when the link asked for one (call once the page's scenario is shown). */
  startFromLink(): void {
    if (this.fromLink) void this.run();
  }

  retheme(): void {
    this.chart.retheme();
  }

  /**
   * The scenario on screen changed: the equivalent command line follows it
   * (shown results stay until re-run). On a replayed trace the workload
   * fields are no sweep: they are disabled, and inputs that name one change
   * to the trace's default sweep (TRACE_SWEEP), saying so; back on the
   * synthetic workload, the sweep it replaced returns, unless the reader
   * changed the sweep since.
   */
  scenarioChanged(): void {
    const trace = this.host.trace();
    const replayingChanged = (trace !== null) !== (this.trace !== null);
    this.trace = trace;
    if (replayingChanged) this.markTraceOptions();
    const field = this.fieldsByKey.get(this.state.param);
    const fallback = this.fieldsByKey.get(TRACE_SWEEP.param);
    if (trace && field && !sweepsOnTrace(field) && fallback) {
      this.beforeTrace = { sweep: { ...this.state }, replacedBy: { ...TRACE_SWEEP } };
      this.state = { ...TRACE_SWEEP };
      this.writeInputs();
      this.setMessages([`${field.key} sets the synthetic workload, which the replayed trace replaces: the sweep now varies ${fallback.key} (${fallback.label}) from ${TRACE_SWEEP.from} to ${TRACE_SWEEP.to} on ${trace.source.name}.`]);
      this.check(false);
      return;
    }
    const before = this.beforeTrace;
    if (!trace && before) {
      this.beforeTrace = null;
      const unchanged = (Object.keys(before.replacedBy) as SweepInput[]).every((k) => this.state[k] === before.replacedBy[k]);
      if (unchanged) {
        this.state = { ...before.sweep };
        this.writeInputs();
        this.setMessages([`Back on the synthetic workload, the sweep varies ${before.sweep.param} again.`]);
        this.check(false);
        return;
      }
    }
    this.check(true);
  }

  /** The workload fields' options are disabled while the scenario replays a trace. */
  private markTraceOptions(): void {
    const select = byId<HTMLSelectElement>('sweep-param');
    for (const option of select.options) {
      const field = this.fieldsByKey.get(option.value);
      option.disabled = this.trace !== null && !!field && !sweepsOnTrace(field);
    }
    for (const group of select.querySelectorAll('optgroup')) {
      if (group.dataset.group === 'workload') group.label = this.trace ? 'workload (replaced by the replayed trace)' : 'workload';
    }
  }

  private buildParamSelect(): void {
    const select = byId<HTMLSelectElement>('sweep-param');
    const groups = new Map<string, HTMLOptGroupElement>();
    for (const f of this.fieldsByKey.values()) {
      const name = f.group || 'scenario';
      let group = groups.get(name);
      if (!group) {
        group = h('optgroup', { label: name, 'data-group': name });
        groups.set(name, group);
        select.append(group);
      }
      group.append(h('option', { value: f.key }, `${f.key}${f.unit ? ` (${f.unit})` : ''}`));
    }
  }

  private writeInputs(): void {
    byId<HTMLSelectElement>('sweep-param').value = this.state.param;
    for (const input of ['from', 'to', 'steps'] as const) byId<HTMLInputElement>(`sweep-${input}`).value = this.state[input];
    const f = this.fieldsByKey.get(this.state.param);
    byId('sweep-param-help').textContent = f
      ? `${f.description} Allowed: ${f.kind === 'integer' ? 'integers' : 'numbers'} in [${f.min}, ${f.max}]${f.unit ? ` ${f.unit}` : ''}; default ${f.defaultText}.`
      : '';
  }

  private readInputs(): void {
    this.state = {
      param: byId<HTMLSelectElement>('sweep-param').value,
      from: byId<HTMLInputElement>('sweep-from').value,
      to: byId<HTMLInputElement>('sweep-to').value,
      steps: byId<HTMLInputElement>('sweep-steps').value,
    };
  }

  private wire(): void {
    byId('sweep-param').addEventListener('change', () => {
      this.readInputs();
      const f = this.fieldsByKey.get(this.state.param);
      if (f) this.state = withParam(this.state, f);
      this.writeInputs();
      this.check(false);
    });
    for (const input of ['from', 'to', 'steps'] as const) {
      byId(`sweep-${input}`).addEventListener('input', () => {
        this.readInputs();
        this.check(false);
      });
    }
    byId<HTMLFormElement>('sweep-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.run();
    });
    byId('sweep-cancel').addEventListener('click', () => this.client.cancel());
    byId('sweep-export').addEventListener('click', () => {
      if (!this.shown) return;
      download(`prefixroute-sweep-${this.shown.key}.json`, 'application/json', this.shown.json);
      this.setStatus('Sweep exported as JSON.');
    });
  }

  /** Shows each input's problem beside it; returns the checked sweep. Valid inputs go into the link. */
  private check(initial: boolean) {
    const result = checkSweep(this.state, this.host.fields, this.trace !== null);
    for (const input of INPUTS) {
      const problem = result.ok ? undefined : result.problems.find((p) => p.input === input);
      const control = byId(`sweep-${input}`);
      const error = byId(`sweep-${input}-error`);
      error.textContent = problem?.message ?? '';
      error.hidden = !problem;
      if (problem) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
    }
    byId<HTMLButtonElement>('sweep-run').disabled = !result.ok;
    if (result.ok) {
      const trace = this.trace ? ` --trace ${this.trace.source.name}` : '';
      const skip = this.trace?.onError === 'skip' ? ' --set trace.on_error=skip' : '';
      byId('sweep-command').textContent = `Same as: prefixroute${trace} --sweep ${result.spec}${this.host.overrides().map(([k, v]) => ` --set ${k}=${v}`).join('')}${skip}`;
      if (!initial) {
        this.linked = { ...this.state };
        this.host.onStateChange({ ...this.linked });
      }
    }
    return result;
  }

  private async run(): Promise<void> {
    this.readInputs();
    const checked = this.check(false);
    if (!checked.ok) {
      this.setStatus('Fix the sweep’s inputs first.');
      return;
    }
    this.showProgress(true);
    const key = checked.field.key;
    const trace = this.trace;
    const on = trace ? ` on ${trace.source.name}` : '';
    this.setStatus(`Running the sweep of ${key}${on}…`);
    let counted = false;
    try {
      const request = { overrides: this.host.overrides(), spec: checked.spec, ...(trace ? { trace } : {}) };
      const result = await this.client.run(request, (info) => {
        // The worker's first point message carries the point count the core made of the spec.
        if (!counted && info.kind === 'point') {
          counted = true;
          this.setStatus(`Running ${info.pointCount} point${info.pointCount === 1 ? '' : 's'} of ${key}${on}…`);
        }
        this.onProgress(info);
      });
      this.showProgress(false);
      const results = parseSweepResults(result.sweepJson);
      this.shown = { json: result.sweepJson, key: results.key };
      byId('chart-sweep').hidden = false;
      byId('sweep-table-details').hidden = false;
      this.chart.update(results, this.host.labels, this.fieldsByKey.get(results.key));
      renderSweepTable(byId<HTMLTableElement>('sweep-table'), results, this.host.labels);
      byId('sweep-table-summary').textContent = `Every point: value of ${results.key} × policy (table)`;
      byId<HTMLButtonElement>('sweep-export').disabled = false;
      // A policy's unchanged outcome over several values is one point (sweep-view.ts).
      const front = sweepRows(results).filter((row) => row.outcome.pareto).length;
      this.setStatus(
        `${results.points.length} values of ${results.key} × ${sweepPolicies(results).length} policies${on}, ` +
          `simulated in ${formatCount(result.elapsedMs)} ms; ${front} point${front === 1 ? '' : 's'} on the Pareto front.`,
      );
    } catch (error) {
      if (error instanceof RunAborted && error.reason === 'superseded') return;
      this.showProgress(false);
      if (error instanceof RunAborted && error.reason === 'cancelled') this.setStatus('Sweep cancelled.');
      else this.setStatus(`The sweep failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private onProgress(info: SweepProgress): void {
    if (info.kind === 'read') {
      byId<HTMLProgressElement>('sweep-progress-bar').value = info.totalBytes > 0 ? Math.min(1, info.bytes / info.totalBytes) : 0;
      byId('sweep-progress-text').textContent = `Reading ${info.name}: ${formatBytes(info.bytes)} of ${formatBytes(info.totalBytes)}`;
      return;
    }
    const phases = info.policyCount + 2; // the policies, then the ideal and pooled cache bounds
    const within = (Math.min(info.phase, phases - 1) + (info.total > 0 ? info.done / info.total : 0)) / phases;
    const fraction = info.pointCount > 0 ? (info.point + within) / info.pointCount : 0;
    byId<HTMLProgressElement>('sweep-progress-bar').value = Math.min(1, fraction);
    byId('sweep-progress-text').textContent = `Point ${info.point + 1} of ${info.pointCount}` +
      (info.phase < info.policyCount ? `, policy ${info.phase + 1} of ${info.policyCount}` : ', cache bounds');
  }

  private showProgress(on: boolean): void {
    if (on) {
      byId<HTMLProgressElement>('sweep-progress-bar').value = 0;
      byId('sweep-progress-text').textContent = 'Starting…';
    }
    byId('sweep-progress').hidden = !on;
  }

  private setStatus(text: string): void {
    byId('sweep-status').textContent = text;
  }

  private setMessages(messages: string[]): void {
    const list = byId('sweep-messages');
    list.replaceChildren(...messages.map((m) => h('li', {}, m)));
    list.hidden = messages.length === 0;
  }
}
