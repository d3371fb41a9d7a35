// The Capacity section: the reader types the SLO (percentile and bound on
// TTFT, optionally on TPOT), presses Run, and reads per policy the GPUs
// needed at the scenario's load and the highest load meeting the SLO (bars,
// with 95 % intervals when the scenario has replicates), one sentence with
// the answer, the curve of the latency against the replicas the search
// tried, and the command line giving the same numbers. The search is the
// core's (runCapacity, or runTraceCapacity on the replayed trace) in a
// worker of its own, with progress and cancel; nothing is modelled here.
//
// The SLO fields are scenario fields (slo.*): editing them here edits the
// Scenario panel's fields (host.setField), so they are in the page's link as
// every other field; the search runs on the scenario on screen with these
// SLO values.

import { byId, h } from '../ui/dom';
import { download } from '../ui/download';
import { formatBytes, formatCount } from '../ui/format';
import type { FieldInfo, Pair } from '../state/schema';
import type { CapacityProgress, TraceRequest } from '../worker/protocol';
import { RunAborted, WorkerClient } from '../worker/worker-client';
import { renderCapacityBars } from './capacity-bars';
import { renderCapacityCurve } from './capacity-curve';
import { parseCapacityResults } from './capacity-results';
import { capacitySentence } from './capacity-sentence';
import './capacity.css';

/** The SLO fields the section edits, in the order shown. */
export const SLO_KEYS = ['slo.ttft_percentile', 'slo.ttft_ms', 'slo.tpot_percentile', 'slo.tpot_ms'] as const;

/** What the section needs from the page. */
export interface CapacityHost {
  /** Every scenario field (from the core's schema). */
  fields: FieldInfo[];
  /** The overrides of the scenario on screen: the search's base. */
  overrides: () => Pair[];
  /** The scenario's value of a field as shown ("" when unknown). */
  value: (key: string) => string;
  /** The trace the scenario on screen replays (null: the synthetic workload). */
  trace: () => TraceRequest | null;
  /** Sets a scenario field as the Scenario panel's control would (the page re-runs, the link follows). */
  setField: (key: string, value: string) => void;
}

/** The element id of an SLO field's input in this section. */
export function sloInputId(key: string): string {
  return `capacity-${key.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
}

export class CapacityPanel {
  private readonly client = new WorkerClient('capacity');
  private readonly fields: Map<string, FieldInfo>;
  private shown: string | null = null;

  constructor(private readonly host: CapacityHost) {
    this.fields = new Map(host.fields.map((f) => [f.key, f]));
    this.buildInputs();
    byId<HTMLFormElement>('capacity-form').addEventListener('submit', (e) => {
      e.preventDefault();
      void this.run();
    });
    byId('capacity-cancel').addEventListener('click', () => this.client.cancel());
    byId('capacity-export').addEventListener('click', () => {
      if (this.shown) download('prefixroute-capacity.json', 'application/json', this.shown);
    });
    this.scenarioChanged();
  }

  private buildInputs(): void {
    const box = byId('capacity-slo');
    for (const key of SLO_KEYS) {
      const f = this.fields.get(key);
      if (!f) continue;
      const id = sloInputId(key);
      const input = h('input', { id, type: 'number', step: 'any', min: f.min, max: f.max, value: f.defaultText, autocomplete: 'off', 'aria-describedby': `${id}-help` });
      input.addEventListener('input', () => this.updateCommand());
      input.addEventListener('change', () => {
        this.host.setField(key, input.value.trim());
        this.updateCommand();
      });
      const help = h('p', { class: 'help', id: `${id}-help` },
        `${f.description} Range ${f.min}–${f.max}${f.unit ? ` ${f.unit}` : ''}; default ${f.defaultText}.`);
      box.append(h('div', { class: 'field', 'data-key': key }, h('label', { for: id }, `${f.label}${f.unit ? ` (${f.unit})` : ''}`), input, help));
    }
  }

  /** The SLO pairs typed here that differ from the defaults (an empty input is the default). */
  private sloPairs(): Pair[] {
    const pairs: Pair[] = [];
    for (const key of SLO_KEYS) {
      const input = document.getElementById(sloInputId(key)) as HTMLInputElement | null;
      const value = input?.value.trim() ?? '';
      if (value !== '' && Number(value) !== Number(this.fields.get(key)?.defaultText)) pairs.push([key, value]);
    }
    return pairs;
  }

  /** The search's overrides: the scenario on screen with the SLO typed here. */
  private overrides(): Pair[] {
    const keys = new Set<string>(SLO_KEYS);
    return [...this.host.overrides().filter(([k]) => !keys.has(k)), ...this.sloPairs()];
  }

  /** The scenario on screen changed: the SLO inputs show its values (unless being typed in), the command follows. */
  scenarioChanged(): void {
    for (const key of SLO_KEYS) {
      const input = document.getElementById(sloInputId(key)) as HTMLInputElement | null;
      const value = this.host.value(key);
      if (input && value !== '' && document.activeElement !== input) input.value = value;
    }
    this.updateCommand();
  }

  /**
   * The capacity embed opened: search at the link's SLO (the scenario on
   * screen is the link's), or ask for a target when the link sets none.
   */
  startFromLink(): void {
    const bound = (key: string) => Number(this.host.value(key)) > 0;
    if (bound('slo.ttft_ms') || bound('slo.tpot_ms')) void this.run();
    else this.setStatus('Type an SLO bound (TTFT or TPOT, above 0 ms) and run the search.');
  }

  private updateCommand(): void {
    const trace = this.host.trace();
    const on = trace ? ` --trace ${trace.source.name}` : '';
    const skip = trace?.onError === 'skip' ? ' --set trace.on_error=skip' : '';
    byId('capacity-command').textContent =
      `Same as: prefixroute${on} --capacity${this.overrides().map(([k, v]) => ` --set ${k}=${v}`).join('')}${skip}`;
  }

  private async run(): Promise<void> {
    this.updateCommand();
    const trace = this.host.trace();
    const request = { overrides: this.overrides(), ...(trace ? { trace } : {}) };
    this.showProgress(true);
    this.setStatus(`Searching${trace ? ` on ${trace.source.name}` : ''}…`);
    byId('capacity').dataset.state = 'running';
    try {
      const result = await this.client.run(request, (p) => this.onProgress(p));
      this.showProgress(false);
      const doc = parseCapacityResults(result.capacityJson);
      this.shown = result.capacityJson;
      renderCapacityBars(doc, byId('capacity-gpus'), byId('capacity-load'));
      byId('capacity-load-title').textContent = `Max load at the SLO (${doc.load.unit}; line: the scenario’s ${doc.load.base})`;
      byId('capacity-sentence').textContent = capacitySentence(doc);
      byId('capacity-results').hidden = false;
      byId('capacity-curve-box').hidden = !renderCapacityCurve(doc, byId('capacity-curve') as unknown as SVGSVGElement);
      byId<HTMLButtonElement>('capacity-export').disabled = false;
      const runs = doc.results.reduce((n, r) => n + r.per_seed.reduce((m, s) => m + s.load_steps.length + s.replica_steps.length, 0), 0);
      this.setStatus(`${formatCount(runs)} simulations searched in ${formatCount(result.elapsedMs)} ms.`);
      byId('capacity').dataset.state = 'done';
      byId('capacity').dataset.elapsedMs = String(Math.round(result.elapsedMs));
    } catch (error) {
      if (error instanceof RunAborted && error.reason === 'superseded') return;
      this.showProgress(false);
      byId('capacity').dataset.state = 'failed';
      if (error instanceof RunAborted && error.reason === 'cancelled') this.setStatus('Capacity search cancelled.');
      else this.setStatus(`The capacity search failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private onProgress(p: CapacityProgress): void {
    const bar = byId<HTMLProgressElement>('capacity-progress-bar');
    const text = byId('capacity-progress-text');
    if (p.kind === 'read') {
      bar.value = p.totalBytes > 0 ? Math.min(1, p.bytes / p.totalBytes) : 0;
      text.textContent = `Reading ${p.name}: ${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)}`;
      return;
    }
    bar.value = p.searches > 0 ? p.searchesDone / p.searches : 0;
    text.textContent = `Search ${Math.min(p.searchesDone + 1, p.searches)} of ${p.searches}, ${formatCount(p.runs)} simulations`;
  }

  private showProgress(on: boolean): void {
    if (on) {
      byId<HTMLProgressElement>('capacity-progress-bar').value = 0;
      byId('capacity-progress-text').textContent = 'Starting…';
    }
    byId('capacity-progress').hidden = !on;
    byId<HTMLButtonElement>('capacity-run').disabled = on;
  }

  private setStatus(text: string): void {
    byId('capacity-status').textContent = text;
  }
}
