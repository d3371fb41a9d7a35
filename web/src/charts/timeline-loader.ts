// The page's handle on the timeline view: its code (and Chart.js's) is a
// chunk loaded after the first results, so the page's first load pays
// nothing for it.

import type { PolicyTimelineData } from '../worker/protocol';
import type { TimelineView } from './timeline-chart';

export class LazyTimeline {
  private view: Promise<TimelineView> | null = null;
  private latest = 0;

  constructor(
    private readonly root: HTMLElement,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Shows the latest run's timelines (the chunk is loaded on the first call). */
  update(timelines: PolicyTimelineData[], label: (policy: string) => string): void {
    const call = ++this.latest;
    this.view ??= import('./timeline-chart').then(({ TimelineView }) => new TimelineView(this.root));
    // Drawn in a task of its own: once the chart code is loaded, the promise's
    // callback would otherwise run at the end of the task that shows the
    // results, whose main-thread time it then doubled (35 ms of CPU at 120,000
    // requests, with layout; e2e: no main-thread task over 50 ms).
    this.view
      .then((v) => {
        setTimeout(() => {
          if (call !== this.latest) return;
          try {
            v.update(timelines, label);
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
