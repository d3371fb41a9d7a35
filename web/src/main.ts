// The page: wires the controls, the simulation worker, the table, the charts,
// sharing and export. State flows one way: controls or link → overrides →
// worker (validates, runs) → canonical scenario + results → everything drawn
// from those. The main thread never simulates; it only draws. A replayed
// trace (trace-panel.ts, trace-source.ts) is one more input to the worker:
// the worker reads the file itself, so its bytes never pass through here.
//
// The page's state (PageState: overrides, trace, sweep, embed) is read once
// from the address it was opened with (pageStateFromUrl), kept in step with
// what is on screen, and written back (pageStateToUrl); share links and the
// embed snippet are made from it. Nothing else reads the address.

import './styles.css';
import type { ChartId } from './charts';
import { LazyCharts } from './charts-loader';
import { LazyTimeline } from './timeline-loader';
import { Controls } from './controls';
import { summaryOf } from './deployment';
import { byId, h } from './dom';
import { clearProblems, guard, installErrorBoundary, showProblem } from './error-boundary';
import { download, exportName, resultsToCsv } from './export';
import { formatCount, formatCountOf, warmUpNumberFormats } from './format';
import { applyPolicyColours } from './palette';
import { PRESETS, presetOverrides } from './presets';
import { parseResults, type Results } from './results';
import { linkOverrides, opensPageScenario, pageScenario, withPageScenario } from './page-scenario';
import { defaultPageState, type PageState, pageStateFromUrl, pageStateToUrl, type TraceLink, type UrlNotice } from './page-state';
import { type FieldInfo, fieldsFromSchema, isDefault, isPageField, labelKeys, nonDefaultOverrides, type Pair, scenarioValues } from './schema';
import { EmbedBox } from './embed-box';
import { EmbedFrame } from './embed-frame';
import { fetchHostedTrace, HostedTraceError, hostedName } from './hosted-trace';
import { copyText, shareLink } from './share';
import type { PolicyInfo } from './prefixroute-module';
import type { RunProgress, RunResult, TraceRequest } from './protocol';
import { markLatest, measureLatest } from './timing';
import type { SweepPanel, SweepStart } from './sweep-panel';
import { ResultsView } from './results-view';
import { Theme } from './theme';
import { TracePanel } from './trace-panel';
import { EXCERPT_PRESET, excerptSource, fileSource, formatBytes, overridesAfterReplay } from './trace-source';
import { isEmbedQuery, preview } from './url-state';
import { RunAborted } from './worker-client';
import { RunPool } from './worker-pool';
import { nextTask } from './yield';

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
  /** The trace these results replayed, if any. */
  trace: TraceRequest | null;
}

/** Later pairs replace earlier ones with the same key, as repeated --set do. */
function mergePairs(base: readonly Pair[], over: readonly Pair[]): Pair[] {
  const map = new Map<string, string>(base);
  for (const [k, v] of over) map.set(k, v);
  return [...map];
}

/**
 * The Sweep panel's code, a chunk of its own: it draws with Chart.js, which
 * is loaded apart from the page's first module (charts-loader.ts). A failure
 * is reported where the panel is built (startSweep), not as an unhandled
 * rejection before that.
 */
function loadSweepCode() {
  const code = import('./sweep-panel');
  code.catch(() => {});
  return code;
}

class Playground {
  /** The query the page was opened with: read into the state once the schema is in (start). */
  private readonly opened = window.location.search;
  /**
   * The page's state as its link carries it. Until the schema is loaded only
   * the view options are known: the layout is decided before the first
   * paint, with the same reading of the embed flag as pageStateFromUrl's.
   */
  private state: PageState = { ...defaultPageState(), embed: isEmbedQuery(this.opened) };
  private readonly embed = this.state.embed;
  /** In embed mode: the link's embed options and the frame's behaviour (embed-frame.ts). */
  private readonly embedFrame = this.embed ? new EmbedFrame(this.opened) : null;
  /** On the full page: the Embed box (embed-box.ts). */
  private readonly embedBox = this.embed ? null : new EmbedBox((text) => {
    byId('action-status').textContent = text;
  });
  private readonly sim = new RunPool();
  private readonly theme = new Theme(!this.embed);
  private readonly charts: LazyCharts;
  /** The run over time (full page only). */
  private readonly timeline: LazyTimeline | null = null;
  private fields: FieldInfo[] = [];
  /** The module's policy catalogue (labels, colours), once the worker has loaded. */
  private catalogue: PolicyInfo[] = [];
  private controls: Controls | null = null;
  /** The Sweep section (absent in embed mode, and until built: see startSweep). */
  private sweep: SweepPanel | null = null;
  /** The Sweep panel's code: fetched from the start, while the worker loads, to be in before the first results. */
  private readonly sweepCode = this.embed && !this.embedFrame?.wantsSweep ? null : loadSweepCode();
  /** Resolves once the Sweep panel is built or has failed to load (at once in embed mode). */
  private sweepReady: Promise<void> = Promise.resolve();
  private shown: Shown | null = null;
  private runCounter = 0;
  private editTimer: ReturnType<typeof setTimeout> | undefined;
  private progressTimer: ReturnType<typeof setTimeout> | undefined;
  /** The trace the next runs replay (null: the synthetic workload). */
  private trace: TraceRequest | null = null;
  /**
   * The synthetic scenario's overrides before the current replay (null: none
   * was shown, e.g. the page opened on a replay): "Back to the synthetic
   * workload" puts back the cluster fields the replay changed.
   */
  private beforeReplay: Pair[] | null = null;
  /** A link that replays a file the user must load again: its settings, kept until then. */
  private fileLink: { name: string; contentHash: string; overrides: Pair[] } | null = null;
  private readonly tracePanel: TracePanel;
  private readonly resultsView = new ResultsView();

  constructor() {
    document.body.classList.toggle('embed', this.embed);
    const chartIds: ChartId[] = this.embedFrame ? this.embedFrame.charts() : ['ttft', 'hits', 'cdf', 'load'];
    const figures: Partial<Record<ChartId, HTMLElement>> = Object.fromEntries(chartIds.map((id) => [id, byId(`chart-${id}`)]));
    this.charts = new LazyCharts(figures, (error) =>
      showProblem(`The charts could not be loaded: ${error instanceof Error ? error.message : String(error)}`));
    if (!this.embed || this.embedFrame?.view === 'timeline')
      this.timeline = new LazyTimeline(byId('timeline'), (error) =>
        showProblem(`The timeline could not be drawn: ${error instanceof Error ? error.message : String(error)}`));
    this.theme.onChange(() => {
      applyPolicyColours(this.catalogue, this.theme.dark);
      this.updateThemeButton();
      this.charts.retheme();
      this.timeline?.retheme();
      this.sweep?.retheme();
    });
    this.updateThemeButton();
    this.embedFrame?.apply(this.theme);
    this.sim.onCrash = (message) => showProblem(`The simulation worker stopped (${message}); a fresh one was started.`);
    this.tracePanel = new TracePanel({
      onExcerpt: () => {
        this.fileLink = null; // a link's file (and its hash) is no longer awaited
        this.replay(excerptSource(), [...EXCERPT_PRESET], '');
      },
      onFile: (file) => this.replayFile(file),
      onModeChange: (mode) => {
        if (!this.trace) return;
        this.trace = { ...this.trace, onError: mode };
        void this.run(this.shown?.overrides ?? [], 'edit');
      },
      onSkip: () => {
        if (!this.trace) return;
        this.tracePanel.onError = 'skip';
        this.trace = { ...this.trace, onError: 'skip' };
        void this.run(this.pendingOverrides, 'edit');
      },
      onStop: () => {
        this.tracePanel.hideProblem();
        this.trace = this.shown?.trace ?? null;
        this.tracePanel.setStatus('Stopped: the trace was not replayed.' + (this.shown ? ' The previous results stay on screen.' : ''));
      },
      onClear: () => this.backToSynthetic(),
    });
    this.wireButtons();
  }

  /** Overrides of the last run asked for (kept so "skip bad lines" repeats it). */
  private pendingOverrides: Pair[] = [];

  /** Replays a trace source with these overrides. */
  private replay(source: TraceRequest['source'], overrides: Pair[], contentHash: string): void {
    clearTimeout(this.editTimer);
    // Leaving the synthetic workload: remember its settings for the way back.
    if (!this.shown?.trace) this.beforeReplay = this.shown ? [...this.shown.overrides] : null;
    this.trace = { source, onError: this.tracePanel.onError, contentHash };
    void this.run(overrides, 'preset');
  }

  /**
   * Back to the synthetic workload: the replay's settings, except the cluster
   * fields the replay set for the trace (EXCERPT_PRESET), which go back to
   * what they were before it (or their defaults), as the trace panel says.
   */
  private backToSynthetic(): void {
    const before = this.beforeReplay;
    const { overrides, restored } = overridesAfterReplay(this.shown?.overrides ?? [], before);
    this.trace = null;
    this.beforeReplay = null;
    this.tracePanel.reset();
    if (restored.length) {
      const value = (key: string, text: string | null) => {
        const shown = text ?? this.fields.find((f) => f.key === key)?.defaultText ?? '';
        return /^\d+$/.test(shown) ? formatCount(Number(shown)) : shown;
      };
      const changes = restored.map((r) => `${this.label(r.key)} ${value(r.key, r.from)} → ${value(r.key, r.to)}`);
      const where = before ? 'their values before it' : 'their defaults';
      this.tracePanel.setStatus(`Back to the synthetic workload; the cluster settings the replay had changed are restored to ${where}: ${changes.join(', ')}.`);
    } else {
      this.tracePanel.setStatus('Back to the synthetic workload.');
    }
    void this.run(overrides, 'edit');
  }

  /**
   * Replays a picked or dropped file: with the settings of the link that asked
   * for it, else those on screen (from the synthetic workload, with the
   * excerpt's cluster settings: Mooncake prompts outgrow the reference caches).
   */
  private replayFile(file: File): void {
    const link = this.fileLink;
    this.fileLink = null;
    const base = link ? link.overrides : this.shown?.trace ? this.shown.overrides : mergePairs(this.shown?.overrides ?? [], EXCERPT_PRESET);
    this.replay(fileSource(file), base, link?.contentHash ?? '');
  }

  async start(): Promise<void> {
    this.setStatus('Loading the simulator…');
    // While the worker loads the module, the page is idle: the first Intl use is paid then.
    void warmUpNumberFormats();
    let ready;
    try {
      ready = await this.sim.init();
    } catch (error) {
      this.setStatus('The simulator could not be loaded.');
      showProblem(`The simulator could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    this.catalogue = ready.catalogue;
    applyPolicyColours(this.catalogue, this.theme.dark);
    const allFields = fieldsFromSchema(ready.schema);
    this.fields = allFields.filter(isPageField);
    this.tracePanel.setFormats(allFields.find((f) => f.key === 'trace.format')?.options ?? []);
    const details = byId<HTMLDetailsElement>('controls-details');
    details.open = !window.matchMedia('(max-width: 760px)').matches;
    this.controls = new Controls(byId<HTMLFormElement>('controls'), this.fields, ready.catalogue, PRESETS, {
      onEdit: () => this.scheduleEdit(EDIT_DEBOUNCE_MS),
      onCommit: () => this.scheduleEdit(0),
      onPreset: (id) => this.applyPreset(id),
      traceHost: byId('trace-settings'),
    });
    this.embedFrame?.controlsReady(byId('controls'));
    this.embedBox?.setFields(this.fields);
    const link = pageStateFromUrl(this.opened, allFields);
    this.state = link.state;
    const notices = link.notices.filter((n) => n.section === 'scenario');
    for (const text of this.embedFrame?.linkMessages(this.fields) ?? []) notices.push({ section: 'scenario', key: null, text });
    if (this.sweepCode) {
      const start: SweepStart = {
        sweep: link.state.sweep,
        notices: link.notices.filter((n) => n.section === 'sweep').map((n) => n.text),
        run: link.runSweep || Boolean(this.embedFrame?.wantsSweep),
      };
      this.sweepReady = this.startSweep(this.sweepCode, allFields, ready.catalogue, start);
    }
    // Build the charts before the results come, now that the controls are in and the charts' boxes keep their size.
    this.charts.prepare();
    const { trace } = link.state;
    // The page opened bare runs the page's scenario (page-scenario.ts); a link runs what it says.
    const overrides = opensPageScenario(this.opened) ? pageScenario(this.catalogue) : link.state.overrides;
    const hosted = this.embedFrame?.options.hosted;
    if (hosted) {
      // An embed of a trace its author hosts: fetched here, replayed only if unchanged (hosted-trace.ts).
      this.setStatus(`Fetching ${hostedName(hosted.url)}…`);
      try {
        const file = await fetchHostedTrace(hosted.url, hosted.sha256, (bytes) => this.setStatus(`Fetching ${hostedName(hosted.url)}: ${formatBytes(bytes)}…`));
        this.trace = { source: fileSource(file), onError: 'stop', contentHash: '' };
      } catch (error) {
        const text = error instanceof HostedTraceError ? error.message : `The hosted trace could not be read: ${String(error)}`;
        this.embedFrame!.addNote(text);
        this.setLinkNotes(notices.map((m) => (m.key ? `${this.label(m.key)}: ${this.labelled(m.text)}` : this.labelled(m.text))));
        this.setStatus('The trace this embed replays could not be used.');
        return;
      }
    } else if (trace.kind === 'excerpt') {
      this.tracePanel.onError = trace.onError;
      this.trace = { source: excerptSource(), onError: trace.onError, contentHash: '' };
    } else if (trace.kind === 'file') {
      // The file cannot come with the link: wait for the user to load it again.
      const { name, contentHash, onError } = trace;
      this.tracePanel.onError = onError;
      this.fileLink = { name, contentHash, overrides };
      this.tracePanel.showLinkNeedsFile(name, contentHash);
      this.controls.setValues(new Map(overrides));
      this.setLinkNotes(notices.map((m) => (m.key ? `${this.label(m.key)}: ${this.labelled(m.text)}` : this.labelled(m.text))));
      if (this.embedFrame) {
        // An embed has no trace panel: its reader cannot load the file, so say what the author can do.
        this.embedFrame.addNote(`This embed replays “${name}”, a file on its author’s computer, which a link cannot carry. The author can embed the shipped excerpt or a copy hosted at an https address instead (the Embed box offers both).`);
        this.setStatus('Nothing to show: the trace this embed replays is not available.');
        return;
      }
      this.setStatus(`Waiting for the trace file “${name}”: this link replays it, and a link cannot carry a file. Load it again under Trace replay.`);
      return;
    }
    await this.run(overrides, 'link', notices);
    this.sweep?.startFromLink();
  }

  /**
   * Builds the Sweep panel in a task of its own: built in the task that
   * builds the controls and starts the first run, it made that task long;
   * it is below the fold and idle until the first results. `start` is the
   * link's sweep; from then on the state's sweep is the panel's.
   */
  private async startSweep(code: ReturnType<typeof loadSweepCode>, fields: FieldInfo[], catalogue: PolicyInfo[], start: SweepStart): Promise<void> {
    try {
      const { SweepPanel } = await code;
      await nextTask();
      this.sweep = new SweepPanel(
        {
          fields,
          labels: new Map(catalogue.map((p) => [p.name, p.label])),
          overrides: () => this.shown?.overrides ?? [],
          onStateChange: (sweep) => {
            this.state = { ...this.state, sweep };
            this.writeUrl();
          },
        },
        start,
      );
      this.state = { ...this.state, sweep: this.sweep.linkedSweep };
    } catch (error) {
      showProblem(`The sweep panel could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Keeps the address bar on the page's state (what is on screen); never in embed mode. */
  private writeUrl(): void {
    if (this.state.embed || !this.shown) return;
    window.history.replaceState(null, '', pageStateToUrl(this.state));
  }

  /** A field's label (the schema's x-label). */
  private label(key: string): string {
    return this.fields.find((f) => f.key === key)?.label ?? key;
  }

  /** A core message with the scenario keys it names given as their fields' labels (schema.ts, labelKeys). */
  private labelled(text: string): string {
    return labelKeys(text, this.fields, (group) => this.policyLabel(group));
  }

  /** A policy's label (the module's catalogue). */
  private policyLabel(name: string): string {
    return this.catalogue.find((p) => p.name === name)?.label ?? name;
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
    // The presets are synthetic workloads.
    this.trace = null;
    this.fileLink = null;
    this.beforeReplay = null;
    this.tracePanel.reset();
    void this.run(withPageScenario(this.catalogue, presetOverrides(preset.document)), 'preset');
  }

  private async run(overrides: Pair[], origin: Origin, linkMessages: UrlNotice[] = [], unreadable = new Set<string>()): Promise<void> {
    const token = ++this.runCounter;
    const trace = this.trace;
    this.pendingOverrides = overrides;
    markLatest('prefixroute:run-start');
    this.setStatus(trace ? `Replaying ${trace.source.name}…` : 'Running…');
    this.setStale(true);
    if (trace) this.tracePanel.hideProblem();
    clearTimeout(this.progressTimer);
    this.progressTimer = setTimeout(() => this.showProgress(true), PROGRESS_DELAY_MS);
    let result: RunResult;
    try {
      result = await this.sim.run(trace ? { overrides, trace } : { overrides }, (progress) => this.onProgress(token, progress));
    } catch (error) {
      if (token !== this.runCounter) return; // a newer run took over
      this.showProgress(false);
      // No new results: the ones on screen are what there is again.
      this.setStale(false);
      if (error instanceof RunAborted) {
        if (error.reason === 'cancelled') {
          this.setStatus(this.shown ? 'Cancelled. Showing the previous results.' : 'Cancelled.');
          if (trace && this.shown?.trace !== trace) this.trace = this.shown?.trace ?? null;
        } else if (error.reason === 'failed' && error.trace) {
          // The trace could not be read: show its bad line and let the user skip or stop.
          this.setStatus(`${trace?.source.name ?? 'The trace'} was not replayed: see Trace replay.`);
          this.tracePanel.showProblem(error.trace, trace?.onError === 'stop' && error.trace.problems.some((p) => p.line > 0));
        } else if (error.reason === 'failed') {
          if (trace) this.tracePanel.setStatus(`The replay failed: ${error.message}`);
          this.setStatus('The run failed.');
          showProblem(`The run failed: ${error.message}`);
        } else this.setStatus(`The run stopped: ${error.message}. Change a value to try again.`);
      } else {
        // Never leave "Running…" or "Replaying…" behind once the run is over.
        this.setStatus('The run failed.');
        showProblem(`The run failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      return;
    }
    // The first results wait for the Sweep panel, whose keys their link carries.
    await this.sweepReady;
    if (token !== this.runCounter) return;
    clearTimeout(this.progressTimer);
    this.showProgress(false);
    markLatest('prefixroute:result');
    const t0 = performance.now();
    const shown = guard('show the results', () => {
      this.show(result, origin, linkMessages, unreadable, trace);
      return true;
    });
    this.setStale(false);
    // Results that could not be shown: the status must not still say the run is going.
    if (!shown) this.setStatus('The results could not be shown.');
    measureLatest('prefixroute:show-results', t0, performance.now());
  }

  private show(result: RunResult, origin: Origin, linkMessages: UrlNotice[], unreadable: Set<string>, trace: TraceRequest | null): void {
    const controls = this.controls!;
    const results = parseResults(result.resultsJson);
    const values = scenarioValues(result.scenarioJson, this.fields);
    const overrides = nonDefaultOverrides(values, this.fields);
    let link: TraceLink = { kind: 'none' };
    if (trace && result.trace) {
      link = trace.source.kind === 'excerpt'
        ? { kind: 'excerpt', onError: trace.onError }
        : { kind: 'file', name: result.trace.name, contentHash: result.trace.contentHash, onError: trace.onError };
    }
    this.shown = { values, overrides, results, resultsJson: result.resultsJson, trace };
    const policiesDefault = this.fields.find((f) => f.key === 'policies')?.defaultText ?? '';
    this.state = { ...this.state, overrides: linkOverrides(overrides, link.kind !== 'none', policiesDefault), trace: link };
    clearProblems();

    controls.clearMessages();
    const notes: string[] = [];
    for (const m of linkMessages) {
      const text = this.labelled(m.text);
      if (m.key) controls.setMessage(m.key, text);
      notes.push(m.key ? `${this.label(m.key)}: ${text}` : text);
    }
    const keep = new Set<string>();
    for (const r of result.rejected) {
      const using = values.get(r.key) ?? '';
      const source = origin === 'link' ? 'Link value' : 'Value';
      // Beside a control, other fields are named by their labels, as the controls are.
      const text = `${source} ${preview(r.value)} refused: ${this.labelled(r.message)}. Using ${using}.`;
      controls.setMessage(r.key, text);
      if (origin === 'link') notes.push(`${this.label(r.key)}: ${text}`);
      if (origin === 'edit') keep.add(r.key);
    }
    for (const k of unreadable) {
      controls.setMessage(k, `Enter a number. Using ${values.get(k) ?? ''}.`);
      keep.add(k);
    }
    // An edit's results never undo what was typed while they ran.
    controls.setValues(values, keep, origin === 'edit');
    controls.setDeployment(summaryOf(results), values);
    this.tracePanel.showSlicing(overrides);
    this.setLinkNotes(notes);
    controls.setPreset(trace ? 'custom' : this.matchPreset(values));
    // A replayed trace replaces the synthetic workload: its fields do not apply.
    const workload = document.querySelector<HTMLFieldSetElement>('fieldset.group-workload');
    if (workload) workload.disabled = trace !== null;
    if (trace && result.trace) this.tracePanel.showReplayed(result.trace);

    this.resultsView.show(results, (name) => this.policyLabel(name));
    // Many policies need the full width for the per-policy bar charts too.
    document.querySelector('.charts')?.classList.toggle('many', results.results.length > 5);
    this.charts.update(results, result.cdf);
    this.timeline?.update(result.timelines, (name) => this.policyLabel(name));

    if (!this.state.embed) {
      // The address bar always holds the scenario on screen; replaceState keeps history clean.
      this.writeUrl();
      this.sweep?.scenarioChanged();
    }
    this.embedBox?.update(this.state, trace?.source.kind === 'file' ? trace.source.file : null);
    // The full page, on the scenario shown here (the embed layout has no sweep to pass on).
    byId<HTMLAnchorElement>('open-full').href = shareLink({ ...this.state, sweep: defaultPageState().sweep, embed: false });
    const w = results.workload;
    const what = trace && result.trace ? `Replayed ${result.trace.name}: ` : '';
    this.setStatus(`${what}${formatCountOf(w.requests, 'request')} × ${formatCountOf(results.results.length, 'policy', 'policies')}, simulated in ${formatCount(result.elapsedMs)} ms. Trace ${w.fingerprint}.`);
    // Machine-readable, for the abuse tests (hundreds of re-runs must not grow memory).
    const status = byId('status');
    status.dataset.wasmHeapBytes = String(result.memory.heapBytes);
    status.dataset.wasmInUseBytes = String(result.memory.inUseBytes);
    status.dataset.runs = String(Number(status.dataset.runs ?? '0') + 1);
  }

  /** The preset whose non-default values are exactly the scenario's, else "custom". */
  private matchPreset(values: Map<string, string>): string {
    for (const p of PRESETS) {
      const want = new Map(withPageScenario(this.catalogue, presetOverrides(p.document)));
      const same = this.fields.every((f) => {
        const v = values.get(f.key) ?? f.defaultText;
        const w = want.get(f.key);
        return w === undefined ? isDefault(f, v) : f.kind === 'policies' || f.kind === 'choice' ? v === w : Number(v) === Number(w);
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

  private onProgress(token: number, info: RunProgress): void {
    if (token !== this.runCounter) return;
    if (info.kind === 'read') {
      // Reading comes before any run: show the bar at once, with cancel.
      clearTimeout(this.progressTimer);
      byId('progress').hidden = false;
      byId<HTMLProgressElement>('progress-bar').value = info.totalBytes > 0 ? Math.min(1, info.bytes / info.totalBytes) : 0;
      byId('progress-text').textContent =
        `Reading ${info.name}: ${formatBytes(info.bytes)} of ${formatBytes(info.totalBytes)}, ${formatCountOf(info.lines, 'line')}, ${formatCountOf(info.requests, 'request')}`;
      return;
    }
    // Phases past the last policy are the core's cache bounds (ideal, pooled): quick, reported once.
    if (info.policyIndex >= info.policyCount) {
      byId<HTMLProgressElement>('progress-bar').value = 1;
      byId('progress-text').textContent = 'Computing the cache bounds…';
      return;
    }
    const fraction = info.policyCount > 0 ? (info.policyIndex + (info.total > 0 ? info.done / info.total : 0)) / info.policyCount : 0;
    byId<HTMLProgressElement>('progress-bar').value = Math.min(1, fraction);
    byId('progress-text').textContent = `Policy ${info.policyIndex + 1} of ${info.policyCount} (${this.policyLabel(info.policy)}): ${formatCount(info.done)} / ${formatCountOf(info.total, 'request')}`;
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

  /**
   * Marks the results on screen as about to be replaced (a run is going):
   * dimmed (styles.css, .stale) and aria-busy, until new results or the
   * run's end without them.
   */
  private setStale(on: boolean): void {
    const table = byId('results-table');
    table.classList.toggle('stale', on);
    byId('table-notes').classList.toggle('stale', on);
    if (on) table.setAttribute('aria-busy', 'true');
    else table.removeAttribute('aria-busy');
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
      const ok = await copyText(shareLink(this.state), byId<HTMLInputElement>('link-fallback'));
      const file = this.state.trace.kind === 'file' ? this.state.trace.name : null;
      const extra = file ? ` It names the trace file “${file}” and its content hash, not its contents: whoever opens it must load the file again.` : '';
      note((ok ? 'Link copied.' : 'Copy the selected link.') + extra);
    });
    byId('export-json').addEventListener('click', () => {
      if (!this.shown) return;
      download(exportName(this.shown.results, 'json'), 'application/json', this.shown.resultsJson);
      note('Results exported as JSON.');
    });
    byId('export-csv').addEventListener('click', () => {
      if (!this.shown) return;
      download(exportName(this.shown.results, 'csv'), 'text/csv', resultsToCsv(
          this.shown.results,
          this.shown.trace?.onError === 'skip' ? [...this.shown.overrides, ['trace.on_error', 'skip']] : this.shown.overrides,
          this.shown.trace?.source.name,
          shareLink({ ...this.state, embed: false }),
        ));
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
