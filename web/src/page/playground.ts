// The page: the controllers of its parts wired into one flow. State flows one
// way: controls or link → overrides → worker pool (validates, runs) →
// canonical scenario + results → everything drawn from those. The main
// thread never simulates; it only draws. A replayed trace
// (trace/replay-controller.ts) is one more input to the worker: the worker
// reads the file itself, so its bytes never pass through here.
//
// The page's state (PageState: overrides, trace, sweep, embed) is read once
// from the address it was opened with (pageStateFromUrl), kept in step with
// what is on screen, and written back (pageStateToUrl); share links and the
// embed snippet are made from it. Nothing else reads the address.
//
// Its parts: the Scenario panel (scenario-panel.ts), the trace replay
// (trace/replay-controller.ts), the status and progress (run-status.ts), the
// verdict and table (results/results-view.ts), the charts, the load stages
// and the timeline (charts/), the Capacity section (capacity/capacity-panel.ts), the
// Sweep section (sweep/sweep-loader.ts), the buttons under
// the table (actions.ts), and in an iframe the embed's frame
// (embed/embed-frame.ts), else the Embed box (embed/embed-box.ts).

import type { ChartId } from '../charts/charts';
import { LazyCharts } from '../charts/charts-loader';
import { LazyStages } from '../charts/stage-loader';
import { LazyTimeline } from '../charts/timeline-loader';
import { EmbedBox } from '../embed/embed-box';
import { EmbedFrame } from '../embed/embed-frame';
import { parseResults } from '../results/results';
import { ResultsView } from '../results/results-view';
import { linkOverrides, opensPageScenario, pageScenario } from '../state/page-scenario';
import { defaultPageState, type PageState, pageStateFromUrl, pageStateToUrl, type UrlNotice } from '../state/page-state';
import { type FieldInfo, fieldsFromSchema, isPageField, nonDefaultOverrides, type Pair, scenarioValues } from '../state/schema';
import { shareLink } from '../state/share-link';
import type { TraceLink } from '../state/trace-link';
import { isEmbedQuery } from '../state/url-state';
import { LazySweep } from '../sweep/sweep-loader';
import type { CapacityPanel } from '../capacity/capacity-panel';
import { fetchHostedTrace, HostedTraceError, hostedName } from '../trace/hosted-trace';
import { cacheAdvice } from '../trace/replay-cluster';
import { TraceReplay } from '../trace/replay-controller';
import { TrafficImport } from '../trace/traffic-import';
import { summaryOf } from '../ui/deployment';
import { byId } from '../ui/dom';
import { clearProblems, guard, showProblem } from '../ui/error-boundary';
import { formatBytes, formatCount, formatCountOf, warmUpNumberFormats } from '../ui/format';
import { Labels } from '../ui/labels';
import { applyPolicyColours } from '../ui/palette';
import { Theme } from '../ui/theme';
import { wireThemeButton } from '../ui/theme-button';
import { recordFirstView } from '../ui/first-view';
import { markLatest, measureLatest } from '../ui/timing';
import type { PolicyInfo } from '../worker/prefixroute-module';
import type { RunResult, TraceRequest } from '../worker/protocol';
import { RunAborted } from '../worker/worker-client';
import { RunPool } from '../worker/worker-pool';
import { actionNote, type ShownRun, wireActions } from './actions';
import { LinkNotes } from './link-notes';
import { RunStatus } from './run-status';
import { type RunOrigin, ScenarioPanel } from './scenario-panel';
import { RunSummary } from './run-summary';
import { showSameAs } from '../results/same-as';

/** The run on screen. */
interface Shown extends ShownRun {
  values: Map<string, string>;
}

/** A message to show with its error's text. */
function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class Playground {
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
  private readonly embedBox = this.embed ? null : new EmbedBox(actionNote);
  private readonly sim = new RunPool();
  private readonly theme = new Theme(!this.embed);
  private readonly labels = new Labels();
  private readonly charts: LazyCharts;
  /** The run over time (full page and the timeline embed). */
  private readonly timeline: LazyTimeline | null = null;
  /** The "Load stages" section (full page only): shown for results whose client ran a load ladder. */
  private readonly stages = this.embed ? null : new LazyStages((error) => showProblem(`The load stages could not be drawn: ${errorText(error)}`));
  /** The scenario fields the page offers (the schema's, less the groups it has no controls for). */
  private fields: FieldInfo[] = [];
  /** The module's policy catalogue (labels, colours), once the worker has loaded. */
  private catalogue: PolicyInfo[] = [];
  private readonly scenario: ScenarioPanel;
  private readonly replay: TraceReplay;
  /** The guided import of one's own traffic (full page only). */
  private readonly trafficImport: TrafficImport | null;
  private readonly sweep = new LazySweep(!this.embed || Boolean(this.embedFrame?.wantsSweep), (error) =>
    showProblem(`The sweep panel could not be loaded: ${errorText(error)}`));
  /** The Capacity section (full page and the capacity embed), built once the schema is in. */
  private capacity: CapacityPanel | null = null;
  /** Resolves once the Capacity section is built or has failed to load (at once when the page has none). */
  private capacityReady: Promise<void> = Promise.resolve();
  private readonly status = new RunStatus();
  private readonly linkNotes = new LinkNotes();
  private readonly resultsView = new ResultsView();
  /** The bar that keeps the run in sight while the form is edited (full page only). */
  private readonly runSummary = this.embed ? null : new RunSummary();
  private shown: Shown | null = null;
  private runCounter = 0;
  /** Overrides of the last run asked for (kept so "skip bad lines" repeats it). */
  private pendingOverrides: Pair[] = [];
  /**
   * The edit whose run is in flight or on screen (its overrides, unreadable
   * fields and trace), so an edit asking for it again (a debounced input,
   * then the Enter that commits it) runs nothing; null after any other run,
   * a failure or a cancel, which a repeated edit must be able to run again.
   */
  private lastEdit: { key: string; trace: TraceRequest | null } | null = null;

  constructor() {
    document.body.classList.toggle('embed', this.embed);
    const chartIds: ChartId[] = this.embedFrame ? this.embedFrame.charts() : ['ttft', 'hits', 'cdf', 'load'];
    const figures: Partial<Record<ChartId, HTMLElement>> = Object.fromEntries(chartIds.map((id) => [id, byId(`chart-${id}`)]));
    this.charts = new LazyCharts(figures, (error) => showProblem(`The charts could not be loaded: ${errorText(error)}`));
    if (!this.embed || this.embedFrame?.view === 'timeline')
      this.timeline = new LazyTimeline(byId('timeline'), (error) => showProblem(`The timeline could not be drawn: ${errorText(error)}`));
    this.theme.onChange(() => {
      applyPolicyColours(this.catalogue, this.theme.dark);
      this.charts.retheme();
      this.timeline?.retheme();
      this.stages?.retheme();
      this.sweep.retheme();
    });
    wireThemeButton(this.theme);
    this.embedFrame?.apply(this.theme);
    this.sim.onCrash = (message) => showProblem(`The simulation worker stopped (${message}); a fresh one was started.`);
    byId('cancel').addEventListener('click', () => this.sim.cancel());
    this.scenario = new ScenarioPanel(this.labels, {
      runEdit: (overrides, unreadable) => void this.run(overrides, 'edit', [], unreadable),
      smallestTp: (overrides) => this.sim.smallestTp(overrides),
      runPreset: (id) => {
        const overrides = this.scenario.presetScenario(id);
        if (!overrides) return;
        this.replay.leave();
        void this.run(overrides, 'preset');
      },
      shownValues: () => this.shown?.values ?? null,
    });
    this.replay = new TraceReplay({
      run: (overrides, origin) => void this.run(overrides, origin),
      shown: () => this.shown,
      pendingOverrides: () => this.pendingOverrides,
      cancelEdit: () => this.scenario.cancelEdit(),
      linkChanged: (link) => {
        this.state = { ...this.state, trace: link };
        this.writeUrl();
      },
      // An embed shows no trace panel, so it has no import either.
      importFile: (file) => this.trafficImport?.start(file),
    }, this.labels);
    this.trafficImport = this.embed ? null : new TrafficImport({
      inspect: (request, onProgress) => this.sim.inspect(request, onProgress),
      base: () => this.replay.importBase(),
      onError: () => this.replay.panel.onError,
      setOnError: (mode) => {
        this.replay.panel.onError = mode;
      },
      replay: (source, overrides, contentHash) => this.replay.replayImported(source, overrides, contentHash),
    });
    wireActions({ shown: () => this.shown, state: () => this.state });
  }

  async start(): Promise<void> {
    this.status.set('Loading the simulator…');
    // While the worker loads the module, the page is idle: the first Intl use is paid then.
    void warmUpNumberFormats();
    let ready;
    try {
      ready = await this.sim.init();
    } catch (error) {
      this.status.set('The simulator could not be loaded.');
      showProblem(`The simulator could not be loaded: ${errorText(error)}`);
      return;
    }
    this.catalogue = ready.catalogue;
    applyPolicyColours(this.catalogue, this.theme.dark);
    const allFields = fieldsFromSchema(ready.schema);
    const fields = allFields.filter(isPageField);
    this.fields = fields;
    this.labels.set(fields, this.catalogue);
    this.replay.setFormats(allFields.find((f) => f.key === 'trace.format')?.options ?? []);
    this.scenario.build(fields, ready.catalogue);
    this.trafficImport?.setFields(fields);
    this.embedFrame?.controlsReady(byId('controls'));
    this.embedBox?.setFields(fields);
    const link = pageStateFromUrl(this.opened, allFields);
    this.state = link.state;
    const notices = link.notices.filter((n) => n.section === 'scenario');
    for (const text of this.embedFrame?.linkMessages(fields) ?? []) notices.push({ section: 'scenario', key: null, text });
    this.sweep.build(
      {
        fields: allFields,
        labels: new Map(ready.catalogue.map((p) => [p.name, p.label])),
        overrides: () => this.shown?.overrides ?? [],
        trace: () => this.shown?.trace ?? null,
        onStateChange: (sweep) => {
          this.state = { ...this.state, sweep };
          this.writeUrl();
        },
      },
      {
        sweep: link.state.sweep,
        notices: link.notices.filter((n) => n.section === 'sweep').map((n) => n.text),
        run: link.runSweep || Boolean(this.embedFrame?.wantsSweep),
      },
    );
    if (!this.embed || this.embedFrame?.wantsCapacity) this.buildCapacity(allFields);
    // Build the charts before the results come, now that the controls are in and the charts' boxes keep their size.
    this.charts.prepare();
    const { trace } = link.state;
    // The page opened bare runs the page's scenario (page-scenario.ts); a link runs what it says.
    const overrides = opensPageScenario(this.opened) ? pageScenario(this.catalogue) : link.state.overrides;
    const linkNotes = () => notices.map((m) => (m.key ? `${this.labels.field(m.key)}: ${this.labels.text(m.text)}` : this.labels.text(m.text)));
    // A trace hosted at an https URL: an embed's, or a full-page link's (trace.url, trace.sha256).
    const hosted = this.embedFrame?.options.hosted ?? (trace.kind === 'hosted' ? { url: trace.url, sha256: trace.sha256 } : null);
    if (hosted) {
      // Fetched here, replayed only if unchanged (hosted-trace.ts).
      this.status.set(`Fetching ${hostedName(hosted.url)}…`);
      try {
        const file = await fetchHostedTrace(hosted.url, hosted.sha256, (bytes) => this.status.set(`Fetching ${hostedName(hosted.url)}: ${formatBytes(bytes)}…`));
        this.replay.useHostedFile(file, hosted, trace.kind === 'hosted' ? trace.onError : 'stop');
      } catch (error) {
        const text = error instanceof HostedTraceError ? error.message : `The hosted trace could not be read: ${String(error)}`;
        if (this.embedFrame) this.embedFrame.addNote(text);
        else showProblem(text);
        this.linkNotes.show(linkNotes());
        this.status.set(this.embedFrame ? 'The trace this embed replays could not be used.' : 'The trace this link replays could not be used: nothing was run.');
        return;
      }
    } else if (trace.kind === 'excerpt') {
      this.replay.fromLinkExcerpt(trace.onError);
    } else if (trace.kind === 'file') {
      // The file cannot come with the link: wait for the user to load it again.
      const { name, contentHash, onError } = trace;
      this.replay.waitForFile(name, contentHash, onError, overrides);
      this.scenario.setValues(new Map(overrides));
      this.linkNotes.show(linkNotes());
      if (this.embedFrame) {
        // An embed has no trace panel: its reader cannot load the file, so say what the author can do.
        this.embedFrame.addNote(`This embed replays “${name}”, a file on its author’s computer, which a link cannot carry. The author can embed the shipped excerpt or a copy hosted at an https address instead (the Embed box offers both).`);
        this.status.set('Nothing to show: the trace this embed replays is not available.');
        return;
      }
      this.status.set(`Waiting for the trace file “${name}”: this link replays it, and a link cannot carry a file. Load it again: Use your own traffic (top of the page), a drop anywhere, or Trace replay.`);
      return;
    }
    await this.run(overrides, 'link', notices);
    this.sweep.startFromLink();
    if (this.embedFrame?.wantsCapacity) {
      // The capacity embed searches at its link's SLO once the link's scenario is on screen.
      await this.capacityReady;
      this.capacity?.startFromLink();
    }
  }

  /** The Capacity section: its code is a chunk of its own; its SLO inputs edit the Scenario panel's slo.* fields. */
  private buildCapacity(fields: FieldInfo[]): void {
    this.capacityReady = import('../capacity/capacity-panel').then(({ CapacityPanel }) => {
      this.capacity = new CapacityPanel({
        fields,
        overrides: () => this.shown?.overrides ?? [],
        value: (key) => this.shown?.values.get(key) ?? '',
        trace: () => this.shown?.trace ?? null,
        setField: (key, value) => {
          const input = document.querySelector<HTMLInputElement>(`#controls [data-key="${key}"] input`);
          if (!input) return;
          input.value = value;
          input.dispatchEvent(new Event('change', { bubbles: true }));
        },
      });
    }).catch((error: unknown) => showProblem(`The capacity section could not be loaded: ${errorText(error)}`));
  }

  /** Keeps the address bar on the page's state (what is on screen); never in embed mode. */
  private writeUrl(): void {
    if (this.state.embed || !this.shown) return;
    window.history.replaceState(null, '', pageStateToUrl(this.state));
  }

  /**
   * Runs these overrides, or those `prepare` gives (asked of the worker
   * first, as part of this run: a newer run supersedes it), and shows the
   * results unless a newer run took over.
   */
  private async run(
    prepare: Pair[] | (() => Promise<Pair[]>),
    origin: RunOrigin,
    linkMessages: UrlNotice[] = [],
    unreadable = new Set<string>(),
  ): Promise<void> {
    const trace = this.replay.current;
    if (origin === 'edit' && Array.isArray(prepare)) {
      const key = JSON.stringify([prepare, [...unreadable].sort()]);
      if (this.lastEdit && this.lastEdit.key === key && this.lastEdit.trace === trace) return;
      this.lastEdit = { key, trace };
    } else {
      this.lastEdit = null;
    }
    const token = ++this.runCounter;
    markLatest('prefixroute:run-start');
    this.status.started(trace ? `Replaying ${trace.source.name}…` : 'Running…');
    this.replay.runStarted(trace);
    let result: RunResult;
    try {
      const overrides = typeof prepare === 'function' ? await prepare() : prepare;
      if (token !== this.runCounter) return;
      this.pendingOverrides = overrides;
      result = await this.sim.run(trace ? { overrides, trace } : { overrides }, (progress) => {
        if (token === this.runCounter) this.status.progress(progress, (name) => this.labels.policy(name));
      });
    } catch (error) {
      if (token !== this.runCounter) return; // a newer run took over
      this.lastEdit = null;
      this.runFailed(error, trace);
      return;
    }
    // The first results wait for the Sweep panel, whose keys their link carries.
    await this.sweep.ready;
    if (token !== this.runCounter) return;
    this.status.stopped();
    markLatest('prefixroute:result');
    const t0 = performance.now();
    const shown = guard('show the results', () => {
      this.show(result, origin, linkMessages, unreadable, trace);
      return true;
    });
    this.status.shown(shown ? result.memory : null);
    if (shown) recordFirstView('table');
    // Results that could not be shown: the status must not still say the run is going.
    if (!shown) {
      this.lastEdit = null;
      this.status.set('The results could not be shown.');
    }
    measureLatest('prefixroute:show-results', t0, performance.now());
  }

  /** A run ended without results: say why, and where (the trace panel for a trace's bad line). */
  private runFailed(error: unknown, trace: TraceRequest | null): void {
    // No new results: the ones on screen are what there is again.
    if (!(error instanceof RunAborted)) {
      // Never leave "Running…" or "Replaying…" behind once the run is over.
      this.status.failed('The run failed.');
      showProblem(`The run failed: ${errorText(error)}`);
      return;
    }
    if (error.reason === 'cancelled') {
      this.status.failed(this.shown ? 'Cancelled. Showing the previous results.' : 'Cancelled.');
      this.replay.runCancelled(trace);
    } else if (error.reason === 'failed' && error.trace) {
      // The trace could not be read: show its bad line and let the user skip or stop.
      this.status.failed(`${trace?.source.name ?? 'The trace'} was not replayed: see Trace replay.`);
      this.replay.readFailed(trace, error.trace);
    } else if (error.reason === 'failed') {
      this.status.failed('The run failed.');
      this.replay.runFailed(trace, error.message);
      showProblem(`The run failed: ${error.message}`);
    } else {
      this.status.failed(`The run stopped: ${error.message}. Change a value to try again.`);
    }
  }

  private show(result: RunResult, origin: RunOrigin, linkMessages: UrlNotice[], unreadable: Set<string>, trace: TraceRequest | null): void {
    const results = parseResults(result.resultsJson);
    const fields = this.fields;
    const values = scenarioValues(result.scenarioJson, fields);
    const overrides = nonDefaultOverrides(values, fields);
    let link: TraceLink = { kind: 'none' };
    if (trace && result.trace) {
      link = trace.hosted
        ? { kind: 'hosted', ...trace.hosted, onError: trace.onError }
        : trace.source.kind === 'excerpt'
          ? { kind: 'excerpt', onError: trace.onError }
          : { kind: 'file', name: result.trace.name, contentHash: result.trace.contentHash, onError: trace.onError };
    }
    this.shown = { values, overrides, results, resultsJson: result.resultsJson, trace };
    const policiesDefault = fields.find((f) => f.key === 'policies')?.defaultText ?? '';
    this.state = { ...this.state, overrides: linkOverrides(overrides, link.kind !== 'none', policiesDefault), trace: link };
    clearProblems();

    const summary = summaryOf(results);
    const notes = this.scenario.showRun({
      values,
      rejected: result.rejected,
      origin,
      linkMessages,
      unreadable,
      summary,
      replaying: trace !== null,
    });
    this.linkNotes.show(notes);
    // The cache per replica the run had: the hardware's (derived or given), else the raw field.
    const cache = summary?.fields.find((f) => f.key === 'cluster.cache_tokens');
    const advice = cacheAdvice(results.workload.prompt_tokens, results.workload.requests,
      cache ? cache.in_force : Number(values.get('cluster.cache_tokens')), cache?.source === 'derived');
    this.replay.shownRun(overrides, trace, result.trace, advice);

    this.resultsView.show(results, (name) => this.labels.policy(name), this.catalogue.find((p) => p.recommended)?.worst_p99_regret);
    this.runSummary?.show(results, (name) => this.labels.policy(name));
    showSameAs(overrides, trace);
    // Many policies need the full width for the per-policy bar charts too.
    document.querySelector('.charts')?.classList.toggle('many', results.results.length > 5);
    this.charts.update(results, result.cdf);
    this.timeline?.update(result.timelines, (name) => this.labels.policy(name));
    this.stages?.update(results);

    // The address bar always holds the scenario on screen (never an embed's); replaceState keeps history clean.
    this.writeUrl();
    // The sweep's base follows the scenario on screen, its replayed trace included.
    this.sweep.scenarioChanged();
    this.capacity?.scenarioChanged();
    this.embedBox?.update(this.state, trace?.source.kind === 'file' ? trace.source.file : null);
    // The full page, on the scenario shown here (the embed layout has no sweep to pass on).
    byId<HTMLAnchorElement>('open-full').href = shareLink({ ...this.state, sweep: defaultPageState().sweep, embed: false });
    const w = results.workload;
    const what = trace && result.trace ? `Replayed ${result.trace.name}: ` : '';
    this.status.set(`${what}${formatCountOf(w.requests, 'request')} × ${formatCountOf(results.results.length, 'policy', 'policies')}, simulated in ${formatCount(result.elapsedMs)} ms. Trace ${w.fingerprint}.`);
  }
}
