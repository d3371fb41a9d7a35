// The page's handle on the charts. Chart.js is most of the page's script;
// evaluated with the main module it added some 10 ms of main-thread CPU to
// the page's first task (so the main thread is never blocked over 50 ms).
// So charts.ts and Chart.js come as a chunk of their own, evaluated in a task
// of its own, and the charts are built ahead of the first results (prepare()).

import type { ChartId, ChartsView } from './charts';
import type { CdfSeries } from '../worker/protocol';
import type { Results } from '../results/results';

/** Stands in for ChartsView until its chunk is in. */
export class LazyCharts {
  private view: ChartsView | null = null;
  /** Results that came before the chunk: drawn when it arrives. */
  private waiting: { results: Results; cdf: CdfSeries[] } | null = null;
  private prepareAsked = false;

  constructor(
    figures: Partial<Record<ChartId, HTMLElement>>,
    private readonly onError: (error: unknown) => void,
  ) {
    import('./charts')
      .then(({ ChartsView }) => {
        this.view = new ChartsView(figures);
        if (this.waiting) this.view.update(this.waiting.results, this.waiting.cdf);
        else if (this.prepareAsked) this.prepare();
        else this.view.warmUp().catch(onError);
        this.waiting = null;
      })
      .catch(onError);
  }

  /** Builds the empty charts ahead of the results (ChartsView.prepare), now or once the chunk is in. */
  prepare(): void {
    this.prepareAsked = true;
    this.view?.prepare().catch(this.onError);
  }

  update(results: Results, cdf: CdfSeries[]): void {
    if (this.view) this.view.update(results, cdf);
    else this.waiting = { results, cdf };
  }

  /** Before the chunk arrives there is nothing to recolour: the charts read the colours when built. */
  retheme(): void {
    this.view?.retheme();
  }
}
