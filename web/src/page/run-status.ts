// What the Results panel says about the run in progress: the status line,
// the progress bar (shown only for runs longer than PROGRESS_DELAY_MS, with
// Cancel) and the dimming of the results a run is about to replace. The
// status line also carries, for the tests, the count of finished runs and
// the worker's wasm heap after the last one (data attributes).

import { byId } from '../ui/dom';
import { formatBytes, formatCount, formatCountOf } from '../ui/format';
import type { RunProgress } from '../worker/protocol';

/** Runs shorter than this never show the progress bar (no flicker). */
const PROGRESS_DELAY_MS = 200;

export class RunStatus {
  private progressTimer: ReturnType<typeof setTimeout> | undefined;

  /** The status line's text. */
  set(text: string): void {
    byId('status').textContent = text;
  }

  /** A run started: the status says so, the results dim, the progress bar follows if it lasts. */
  started(text: string): void {
    this.set(text);
    this.setStale(true);
    clearTimeout(this.progressTimer);
    this.progressTimer = setTimeout(() => this.showProgress(true), PROGRESS_DELAY_MS);
  }

  /** The run is over: no progress bar (the dimming is for results(); see there). */
  stopped(): void {
    clearTimeout(this.progressTimer);
    this.showProgress(false);
  }

  /** The run ended without new results: the ones on screen are what there is again. */
  failed(text: string): void {
    this.stopped();
    this.setStale(false);
    this.set(text);
  }

  /**
   * New results are on screen (or could not be shown): undimmed; the
   * status line counts the run and keeps the worker's memory after it.
   */
  shown(memory: { heapBytes: number; inUseBytes: number } | null): void {
    if (memory) {
      // Machine-readable, for the abuse tests (hundreds of re-runs must not grow memory).
      const status = byId('status');
      status.dataset.wasmHeapBytes = String(memory.heapBytes);
      status.dataset.wasmInUseBytes = String(memory.inUseBytes);
      status.dataset.runs = String(Number(status.dataset.runs ?? '0') + 1);
    }
    this.setStale(false);
  }

  /** A progress report of the run in progress; `policyLabel` names its policy. */
  progress(info: RunProgress, policyLabel: (name: string) => string): void {
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
    byId('progress-text').textContent = `Policy ${info.policyIndex + 1} of ${info.policyCount} (${policyLabel(info.policy)}): ${formatCount(info.done)} / ${formatCountOf(info.total, 'request')}`;
  }

  private showProgress(on: boolean): void {
    if (on) {
      byId<HTMLProgressElement>('progress-bar').value = 0;
      byId('progress-text').textContent = 'Starting…';
    }
    byId('progress').hidden = !on;
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
}
