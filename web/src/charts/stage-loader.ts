// The page's handle on the "Load stages" section (stage-view.ts): only
// results whose client ran a load ladder have stages, so the section stays
// hidden, and its code (with Chart.js's line chart) unloaded, until results
// with stages come.

import type { Results } from '../results/results';
import { hasStages } from '../results/stages';
import { byId } from '../ui/dom';
import type { StageView } from './stage-view';

export class LazyStages {
  private view: Promise<StageView> | null = null;
  private latest = 0;

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Shows the results' stages, or hides the section when they have none. */
  update(results: Results): void {
    const call = ++this.latest;
    if (!hasStages(results)) {
      byId('stages').hidden = true;
      return;
    }
    this.view ??= import('./stage-view').then(({ StageView }) => new StageView());
    // Drawn in a task of its own, as the timeline: not at the end of the task that shows the results.
    this.view
      .then((v) => {
        setTimeout(() => {
          if (call !== this.latest) return;
          try {
            v.update(results);
          } catch (error) {
            this.onError(error);
          }
        }, 0);
      })
      .catch(this.onError);
  }

  retheme(): void {
    this.view?.then((v) => v.retheme()).catch(this.onError);
  }
}
