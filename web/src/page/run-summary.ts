// The run summary that stays on screen while the reader edits the scenario
// far from the results (one column: the form follows the results, thousands
// of pixels down): a bar fixed to the bottom of the viewport with the run's
// status, the lowest p99 TTFT and how it moved since the previous run, and a
// link back to the results. It shows only while the form is on screen and
// the results panel is not; CSS keeps it to the one-column layout.

import { byId } from '../ui/dom';
import { formatMs } from '../ui/format';
import type { Results } from '../results/results';

export class RunSummary {
  private readonly root = byId('run-summary');
  private readonly status = byId('run-summary-status');
  private readonly figure = byId('run-summary-figure');
  private previous: Map<string, number> | null = null;
  private formInView = false;
  private resultsInView = true;

  constructor() {
    // The status line's text, as the run goes (Running…, progress, failures).
    const status = byId('status');
    const mirror = () => {
      this.status.textContent = status.textContent ?? '';
    };
    new MutationObserver(mirror).observe(status, { childList: true, characterData: true, subtree: true });
    mirror();
    if (typeof IntersectionObserver === 'undefined') return;
    const results = byId('results').querySelector('.panel') ?? byId('results');
    new IntersectionObserver(([entry]) => {
      this.resultsInView = entry.isIntersecting;
      this.place();
    }).observe(results);
    new IntersectionObserver(([entry]) => {
      this.formInView = entry.isIntersecting;
      this.place();
    }).observe(byId('controls'));
  }

  /** A run's results: the lowest p99 TTFT, and where that policy stood in the run before. */
  show(results: Results, labelOf: (policy: string) => string): void {
    const rows = results.results;
    if (rows.length === 0) return;
    const best = rows.reduce((a, b) => (b.p99_ttft_ms < a.p99_ttft_ms ? b : a));
    const before = this.previous?.get(best.policy);
    const was = before === undefined || before === best.p99_ttft_ms ? '' : ` (was ${formatMs(before)} ms)`;
    this.figure.textContent = `Lowest p99 TTFT: ${labelOf(best.policy)}, ${formatMs(best.p99_ttft_ms)} ms${was}.`;
    this.figure.dataset.policy = best.policy;
    this.figure.dataset.value = String(best.p99_ttft_ms);
    this.previous = new Map(rows.map((r) => [r.policy, r.p99_ttft_ms]));
  }

  private place(): void {
    const shown = this.formInView && !this.resultsInView;
    this.root.hidden = !shown;
    document.body.classList.toggle('has-run-summary', shown);
  }
}
