// The page: wires the controls, the simulation worker, the table, the charts,
// sharing and export. State flows one way: controls or link → overrides →
// worker (validates, runs) → canonical scenario + results → everything drawn
// from those. The main thread never simulates; it only draws.

import './styles.css';
import { ChartsView, type ChartId } from './charts';
import { Controls } from './controls';
import { byId, h } from './dom';
import { clearProblems, guard, installErrorBoundary, showProblem } from './error-boundary';
import { download, exportName, resultsToCsv } from './export';
import { formatCount } from './format';
import { PRESETS, presetOverrides } from './presets';
import { parseResults, type Results } from './results';
import { type FieldInfo, fieldsFromSchema, isDefault, isPageField, nonDefaultOverrides, scenarioValues, UNSUPPORTED_GROUPS } from './schema';
import { copyText, embedSnippet, shareLink } from './share';
import { RunAborted, SimClient, type ProgressInfo, type SimResult } from './sim-client';
import { SweepPanel } from './sweep-panel';
import { decodeSweepUrl } from './sweep-url';
import { renderTable } from './table';
import { Theme } from './theme';
import { decodeUrlState, encodeUrlState, isEmbedQuery, preview, type Pair, type UrlMessage } from './url-state';

/** Typing pauses this long before a re-run; checkboxes and presets run at once. */
const EDIT_DEBOUNCE_MS = 350;
/** Runs shorter than this never show the progress bar (no flicker). */
const PROGRESS_DELAY_MS = 200;

type Origin = 'link' | 'edit' | 'preset';

interface Shown {
  values: Map<string, string>;
  overrides: Pair[];
  results: Results;
  resultsJson: string;
}

class Playground {
  private readonly embed = isEmbedQuery(window.location.search);
  private readonly sim = new SimClient();
  private readonly theme = new Theme(!this.embed);
  private readonly charts: ChartsView;
  private fields: FieldInfo[] = [];
  private controls: Controls | null = null;
  /** The Sweep section (absent in embed mode). */
  private sweep: SweepPanel | null = null;
  private shown: Shown | null = null;
  private runCounter = 0;
  private editTimer: ReturnType<typeof setTimeout> | undefined;
  private progressTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    document.body.classList.toggle('embed', this.embed);
    const figures: Partial<Record<ChartId, HTMLElement>> = { ttft: byId('chart-ttft') };
    if (!this.embed) {
      figures.hits = byId('chart-hits');
      figures.cdf = byId('chart-cdf');
      figures.load = byId('chart-load');
    }
    this.charts = new ChartsView(figures);
    this.theme.onChange(() => {
      this.updateThemeButton();
      this.charts.retheme();
      this.sweep?.retheme();
    });
    this.updateThemeButton();
    this.sim.onCrash = (message) => showProblem(`The simulation worker stopped (${message}); a fresh one was started.`);
    this.wireButtons();
  }

  async start(): Promise<void> {
    this.setStatus('Loading the simulator…');
    let ready;
    try {
      ready = await this.sim.init();
    } catch (error) {
      this.setStatus('The simulator could not be loaded.');
      showProblem(`The simulator could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const allFields = fieldsFromSchema(ready.schema);
    this.fields = allFields.filter(isPageField);
    const details = byId<HTMLDetailsElement>('controls-details');
    details.open = !window.matchMedia('(max-width: 760px)').matches;
    this.controls = new Controls(byId<HTMLFormElement>('controls'), this.fields, ready.catalogue, PRESETS, {
      onEdit: () => this.scheduleEdit(EDIT_DEBOUNCE_MS),
      onCommit: () => this.scheduleEdit(0),
      onPreset: (id) => this.applyPreset(id),
    });
    if (!this.embed) {
      this.sweep = new SweepPanel(
        {
          fields: allFields,
          labels: new Map(ready.catalogue.map((p) => [p.name, p.label])),
          overrides: () => this.shown?.overrides ?? [],
          onStateChange: () => this.writeUrl(),
        },
        decodeSweepUrl(window.location.search),
      );
    }
    const link = decodeUrlState(window.location.search, allFields);
    const overrides = link.overrides.filter(([key]) => {
      const field = allFields.find((f) => f.key === key);
      if (!field || isPageField(field)) return true;
      link.messages.push({ key: null, text: `Ignored ${key}: ${UNSUPPORTED_GROUPS[field.group]}.` });
      return false;
    });
    await this.run(overrides, 'link', link.messages);
    this.sweep?.startFromLink();
  }

  /** Keeps the address bar on the scenario (and sweep) on screen; never in embed mode. */
  private writeUrl(): void {
    if (this.embed || !this.shown) return;
    window.history.replaceState(null, '', encodeUrlState(this.shown.overrides, { extra: this.sweep?.urlPairs() ?? [] }));
  }

  private label(key: string): string {
    return document.querySelector(`[data-key="${CSS.escape(key)}"] label, [data-key="${CSS.escape(key)}"] .label`)?.firstChild?.textContent ?? key;
  }

  private scheduleEdit(delay: number): void {
    clearTimeout(this.editTimer);
    this.editTimer = setTimeout(() => this.runEdit(), delay);
  }

  private runEdit(): void {
    if (!this.controls) return;
    const values = this.controls.read();
    const unreadable = new Set(this.fields.map((f) => f.key).filter((k) => !values.has(k)));
    for (const k of unreadable) {
      const current = this.shown?.values.get(k);
      if (current !== undefined) values.set(k, current);
    }
    void this.run(nonDefaultOverrides(values, this.fields), 'edit', [], unreadable);
  }

  private applyPreset(id: string): void {
    const preset = PRESETS.find((p) => p.id === id);
    if (!preset) return;
    clearTimeout(this.editTimer);
    void this.run(presetOverrides(preset.document), 'preset');
  }

  private async run(overrides: Pair[], origin: Origin, linkMessages: UrlMessage[] = [], unreadable = new Set<string>()): Promise<void> {
    const token = ++this.runCounter;
    performance.mark('prefixroute:run-start');
    this.setStatus('Running…');
    clearTimeout(this.progressTimer);
    this.progressTimer = setTimeout(() => this.showProgress(true), PROGRESS_DELAY_MS);
    let result: SimResult;
    try {
      result = await this.sim.run(overrides, (info) => this.onProgress(token, info));
    } catch (error) {
      if (token !== this.runCounter) return; // a newer run took over
      this.showProgress(false);
      if (error instanceof RunAborted) {
        if (error.reason === 'cancelled') this.setStatus(this.shown ? 'Cancelled. Showing the previous results.' : 'Cancelled.');
        else if (error.reason === 'failed') {
          this.setStatus('The run failed.');
          showProblem(`The run failed: ${error.message}`);
        } else this.setStatus(`The run stopped: ${error.message}. Change a value to try again.`);
      } else {
        showProblem(`The run failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      return;
    }
    if (token !== this.runCounter) return;
    clearTimeout(this.progressTimer);
    this.showProgress(false);
    performance.mark('prefixroute:result');
    const t0 = performance.now();
    guard('show the results', () => this.show(result, origin, linkMessages, unreadable));
    performance.measure('prefixroute:show-results', { start: t0, end: performance.now() });
  }

  private show(result: SimResult, origin: Origin, linkMessages: UrlMessage[], unreadable: Set<string>): void {
    const controls = this.controls!;
    const results = parseResults(result.resultsJson);
    const values = scenarioValues(result.scenarioJson, this.fields);
    const overrides = nonDefaultOverrides(values, this.fields);
    this.shown = { values, overrides, results, resultsJson: result.resultsJson };
    clearProblems();

    controls.clearMessages();
    const notes: string[] = [];
    for (const m of linkMessages) {
      if (m.key) controls.setMessage(m.key, m.text);
      notes.push(m.key ? `${this.label(m.key)}: ${m.text}` : m.text);
    }
    const keep = new Set<string>();
    for (const r of result.rejected) {
      const using = values.get(r.key) ?? '';
      const source = origin === 'link' ? 'Link value' : 'Value';
      const text = `${source} ${preview(r.value)} refused: ${r.message}. Using ${using}.`;
      controls.setMessage(r.key, text);
      if (origin === 'link') notes.push(`${this.label(r.key)}: ${text}`);
      if (origin === 'edit') keep.add(r.key);
    }
    for (const k of unreadable) {
      controls.setMessage(k, `Enter a number. Using ${values.get(k) ?? ''}.`);
      keep.add(k);
    }
    controls.setValues(values, keep);
    this.setLinkNotes(notes);
    controls.setPreset(this.matchPreset(values));

    renderTable(byId<HTMLTableElement>('results-table'), byId('table-notes'), results);
    // Many policies need the full width for the per-policy bar charts too.
    document.querySelector('.charts')?.classList.toggle('many', results.results.length > 5);
    this.charts.update(results, result.cdf);

    if (!this.embed) {
      // The address bar always holds the scenario on screen; replaceState keeps history clean.
      this.writeUrl();
      this.sweep?.scenarioChanged();
      byId<HTMLTextAreaElement>('embed-snippet').value = embedSnippet(overrides);
    }
    byId<HTMLAnchorElement>('open-full').href = shareLink(overrides);
    const w = results.workload;
    this.setStatus(`${formatCount(w.requests)} requests × ${results.results.length} policies, simulated in ${formatCount(result.elapsedMs)} ms. Trace ${w.fingerprint}.`);
  }

  /** The preset whose non-default values are exactly the scenario's, else "custom". */
  private matchPreset(values: Map<string, string>): string {
    for (const p of PRESETS) {
      const want = new Map(presetOverrides(p.document));
      const same = this.fields.every((f) => {
        const v = values.get(f.key) ?? f.defaultText;
        const w = want.get(f.key);
        return w === undefined ? isDefault(f, v) : f.kind === 'policies' ? v === w : Number(v) === Number(w);
      });
      if (same) return p.id;
    }
    return 'custom';
  }

  private setLinkNotes(notes: string[]): void {
    const box = byId('link-messages');
    const list = box.querySelector('ul')!;
    list.replaceChildren(...notes.map((n) => h('li', {}, n)));
    box.hidden = notes.length === 0;
  }

  private onProgress(token: number, info: ProgressInfo): void {
    if (token !== this.runCounter) return;
    // Phases past the last policy are the core's cache bounds (ideal, pooled): quick, reported once.
    if (info.policyIndex >= info.policyCount) {
      byId<HTMLProgressElement>('progress-bar').value = 1;
      byId('progress-text').textContent = 'Computing the cache bounds…';
      return;
    }
    const fraction = info.policyCount > 0 ? (info.policyIndex + (info.total > 0 ? info.done / info.total : 0)) / info.policyCount : 0;
    byId<HTMLProgressElement>('progress-bar').value = Math.min(1, fraction);
    byId('progress-text').textContent = `Policy ${info.policyIndex + 1} of ${info.policyCount} (${info.policy}): ${formatCount(info.done)} / ${formatCount(info.total)} requests`;
  }

  private showProgress(on: boolean): void {
    if (on) {
      byId<HTMLProgressElement>('progress-bar').value = 0;
      byId('progress-text').textContent = 'Starting…';
    }
    byId('progress').hidden = !on;
  }

  private setStatus(text: string): void {
    byId('status').textContent = text;
  }

  private updateThemeButton(): void {
    const names = { auto: 'Auto', light: 'Light', dark: 'Dark' } as const;
    const button = byId('theme-toggle');
    button.textContent = `Theme: ${names[this.theme.current]}`;
    button.setAttribute('aria-label', `Colour scheme: ${names[this.theme.current]}. Change colour scheme`);
  }

  private wireButtons(): void {
    byId('theme-toggle').addEventListener('click', () => this.theme.next());
    byId('cancel').addEventListener('click', () => this.sim.cancel());
    byId('dismiss-link-messages').addEventListener('click', () => {
      byId('link-messages').hidden = true;
    });
    const note = (text: string) => {
      byId('action-status').textContent = text;
    };
    byId('copy-link').addEventListener('click', async () => {
      if (!this.shown) return;
      const ok = await copyText(shareLink(this.shown.overrides, undefined, this.sweep?.urlPairs() ?? []), byId<HTMLInputElement>('link-fallback'));
      note(ok ? 'Link copied.' : 'Copy the selected link.');
    });
    byId('copy-embed').addEventListener('click', async () => {
      if (!this.shown) return;
      const field = byId<HTMLTextAreaElement>('embed-snippet');
      const ok = await copyText(embedSnippet(this.shown.overrides), field);
      note(ok ? 'Embed snippet copied.' : 'Copy the selected snippet.');
    });
    byId('export-json').addEventListener('click', () => {
      if (!this.shown) return;
      download(exportName(this.shown.results, 'json'), 'application/json', this.shown.resultsJson);
      note('Results exported as JSON.');
    });
    byId('export-csv').addEventListener('click', () => {
      if (!this.shown) return;
      download(exportName(this.shown.results, 'csv'), 'text/csv', resultsToCsv(this.shown.results, this.shown.overrides));
      note('Results exported as CSV.');
    });
  }
}

installErrorBoundary(byId('problems'));
try {
  const app = new Playground();
  void app.start().catch((error: unknown) => showProblem(`The playground could not start: ${error instanceof Error ? error.message : String(error)}`));
} catch (error) {
  showProblem(`The playground could not start: ${error instanceof Error ? error.message : String(error)}`);
}
