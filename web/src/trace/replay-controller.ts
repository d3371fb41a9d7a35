// Which trace the page's runs replay, and the Trace replay panel's part in
// the page: the shipped excerpt, a file the guided import settled
// (traffic-import.ts: a file picked or dropped anywhere goes there first, the
// panel's own picker included), a link's trace (the excerpt, or a file the
// reader must load again), a hosted trace of an embed; the bad-line mode, skip or stop after a bad line; the way back to
// the synthetic workload, which puts back the cluster fields the replay set.
// The trace goes to the worker with each run (worker/protocol.ts,
// TraceRequest); the page runs what this controller asks for.

import type { Pair } from '../state/schema';
import type { TraceLink } from '../state/trace-link';
import { formatCount } from '../ui/format';
import type { Labels } from '../ui/labels';
import type { TraceRequest } from '../worker/protocol';
import { HostedLinkForm } from './hosted-link';
import { type CacheAdvice, EXCERPT_PRESET, overridesAfterReplay } from './replay-cluster';
import { TracePanel } from './trace-panel';
import { excerptSource, fileSource, type OnError } from './trace-source';
import { sameAsCommand, type TraceSummary } from './trace-summary';

/** Later pairs replace earlier ones with the same key, as repeated --set do. */
function mergePairs(base: readonly Pair[], over: readonly Pair[]): Pair[] {
  const map = new Map<string, string>(base);
  for (const [k, v] of over) map.set(k, v);
  return [...map];
}

/** What the controller asks of the page. */
export interface ReplayHost {
  /** Run these overrides (on `current`, the trace when there is one). */
  run(overrides: Pair[], origin: 'edit' | 'preset'): void;
  /** The run on screen: its overrides and the trace it replayed (null before the first). */
  shown(): { overrides: Pair[]; trace: TraceRequest | null } | null;
  /** The overrides of the last run asked for (kept so "skip bad lines" repeats it). */
  pendingOverrides(): Pair[];
  /** Drops a typed edit that has not run yet. */
  cancelEdit(): void;
  /** The link's trace changed without a run (the replayed file is now named by its hosted copy). */
  linkChanged(link: TraceLink): void;
  /** A file picked in the panel: the guided import reads it and replays it once the reader confirms. */
  importFile(file: File): void;
}

export class TraceReplay {
  readonly panel: TracePanel;
  /** The trace the next runs replay (null: the synthetic workload). */
  current: TraceRequest | null = null;
  /**
   * The synthetic scenario's overrides before the current replay (null: none
   * was shown, e.g. the page opened on a replay): "Back to the synthetic
   * workload" puts back the cluster fields the replay changed.
   */
  private beforeReplay: Pair[] | null = null;
  /** A link that replays a file the user must load again: its settings, kept until then. */
  private fileLink: { name: string; contentHash: string; overrides: Pair[] } | null = null;
  /** The offer to name the replayed file by a hosted copy in the page's link. */
  private readonly hostedForm: HostedLinkForm;

  constructor(
    private readonly host: ReplayHost,
    private readonly labels: Labels,
  ) {
    this.panel = new TracePanel({
      onExcerpt: () => {
        this.fileLink = null; // a link's file (and its hash) is no longer awaited
        this.replay(excerptSource(), [...EXCERPT_PRESET], '');
      },
      onFile: (file) => this.host.importFile(file),
      onModeChange: (mode) => {
        if (!this.current) return;
        this.current = { ...this.current, onError: mode };
        this.host.run(this.host.shown()?.overrides ?? [], 'edit');
      },
      onSkip: () => {
        if (!this.current) return;
        this.panel.onError = 'skip';
        this.current = { ...this.current, onError: 'skip' };
        this.host.run(this.host.pendingOverrides(), 'edit');
      },
      onStop: () => {
        this.panel.hideProblem();
        const shown = this.host.shown();
        this.current = shown?.trace ?? null;
        this.panel.setStatus('Stopped: the trace was not replayed.' + (shown ? ' The previous results stay on screen.' : ''));
      },
      onClear: () => this.backToSynthetic(),
      onUseCache: (tokens) => {
        // The reader took the offered cache: the cluster changes because they asked.
        this.host.run(mergePairs(this.host.shown()?.overrides ?? [], [['cluster.cache_tokens', String(tokens)]]), 'edit');
      },
    });
    this.hostedForm = new HostedLinkForm((url, sha256) => {
      if (!this.current || this.current.source.kind !== 'file') return;
      this.current = { ...this.current, hosted: { url, sha256 } };
      this.host.linkChanged({ kind: 'hosted', url, sha256, onError: this.current.onError });
    });
  }

  /** The formats the core reads, named in the panel's help. */
  setFormats(formats: readonly string[]): void {
    this.panel.setFormats(formats);
  }

  /** A link replays the shipped excerpt. */
  fromLinkExcerpt(onError: OnError): void {
    this.panel.onError = onError;
    this.current = { source: excerptSource(), onError, contentHash: '' };
  }

  /** A link replays a file, which it cannot carry: wait for the reader to load it, then run with the link's settings. */
  waitForFile(name: string, contentHash: string, onError: OnError, overrides: Pair[]): void {
    this.panel.onError = onError;
    this.fileLink = { name, contentHash, overrides };
    this.panel.showLinkNeedsFile(name, contentHash);
  }

  /**
   * A trace hosted at an https URL (an embed's, or a full-page link's),
   * fetched and checked already (hosted-trace.ts): the next runs replay it,
   * and the page's link keeps pointing at it.
   */
  useHostedFile(file: File, hosted: { url: string; sha256: string }, onError: OnError = 'stop'): void {
    this.panel.onError = onError;
    this.current = { source: fileSource(file), onError, contentHash: '', hosted };
  }

  /**
   * Where a guided import (traffic-import.ts) starts from: the settings of a
   * link waiting for its file and the content hash it expects, else the
   * scenario on screen.
   */
  importBase(): { overrides: Pair[]; contentHash: string } {
    if (this.fileLink) return { overrides: [...this.fileLink.overrides], contentHash: this.fileLink.contentHash };
    return { overrides: [...(this.host.shown()?.overrides ?? [])], contentHash: '' };
  }

  /** The reader confirmed a guided import: replay its file with the overrides the import settled. */
  replayImported(source: TraceRequest['source'], overrides: Pair[], contentHash: string): void {
    this.fileLink = null;
    this.replay(source, overrides, contentHash);
  }

  /** A preset runs: presets are synthetic workloads. */
  leave(): void {
    this.current = null;
    this.fileLink = null;
    this.beforeReplay = null;
    this.panel.reset();
  }

  /** A run of `trace` starts. */
  runStarted(trace: TraceRequest | null): void {
    if (trace) this.panel.hideProblem();
  }

  /** The run of `trace` was cancelled: the next runs replay what is on screen. */
  runCancelled(trace: TraceRequest | null): void {
    const shown = this.host.shown();
    if (trace && shown?.trace !== trace) this.current = shown?.trace ?? null;
  }

  /** The trace could not be read: its bad line(s), with skip or stop. */
  readFailed(trace: TraceRequest | null, summary: TraceSummary): void {
    this.panel.showProblem(summary, trace?.onError === 'stop' && summary.problems.some((p) => p.line > 0));
  }

  /** The run of `trace` failed for another reason. */
  runFailed(trace: TraceRequest | null, message: string): void {
    if (trace) this.panel.setStatus(`The replay failed: ${message}`);
  }

  /**
   * A run's results are shown: the slicing fields it set, what the trace
   * read, and, when its prompts outgrow the cache it ran with, that advice
   * (a value offered, never applied unasked).
   */
  shownRun(overrides: readonly Pair[], trace: TraceRequest | null, summary: TraceSummary | undefined, advice: CacheAdvice | null): void {
    this.panel.showSlicing(overrides);
    if (trace && summary) this.panel.showReplayed(summary);
    this.panel.showCacheAdvice(trace ? advice : null);
    this.panel.showCommand(trace && summary ? sameAsCommand(summary.name, overrides, trace.onError) : '');
    this.hostedForm.offer(trace?.source.kind === 'file' ? trace.source.file : null);
  }

  /** Replays a trace source with these overrides. */
  private replay(source: TraceRequest['source'], overrides: Pair[], contentHash: string): void {
    this.host.cancelEdit();
    const shown = this.host.shown();
    // Leaving the synthetic workload: remember its settings for the way back.
    if (!shown?.trace) this.beforeReplay = shown ? [...shown.overrides] : null;
    this.current = { source, onError: this.panel.onError, contentHash };
    this.host.run(overrides, 'preset');
  }

  /**
   * Back to the synthetic workload: the replay's settings, except the cluster
   * fields the replay set for the trace (EXCERPT_PRESET), which go back to
   * what they were before it (or their defaults), as the trace panel says.
   */
  private backToSynthetic(): void {
    const before = this.beforeReplay;
    const { overrides, restored } = overridesAfterReplay(this.host.shown()?.overrides ?? [], before);
    this.current = null;
    this.beforeReplay = null;
    this.panel.reset();
    this.hostedForm.offer(null);
    if (restored.length) {
      const value = (key: string, text: string | null) => {
        const shown = text ?? this.labels.defaultText(key);
        return /^\d+$/.test(shown) ? formatCount(Number(shown)) : shown;
      };
      const changes = restored.map((r) => `${this.labels.field(r.key)} ${value(r.key, r.from)} → ${value(r.key, r.to)}`);
      const where = before ? 'their values before it' : 'their defaults';
      this.panel.setStatus(`Back to the synthetic workload; the cluster settings the replay had changed are restored to ${where}: ${changes.join(', ')}.`);
    } else {
      this.panel.setStatus('Back to the synthetic workload.');
    }
    this.host.run(overrides, 'edit');
  }
}
