// The page's handle on the charts. Chart.js is most of the page's script;
// evaluated with the main module it added some 10 ms of main-thread CPU to
// the page's first task (so the main thread is never blocked over 50 ms).
// So charts.ts and Chart.js come as a chunk of their own, evaluated in a task
// of its own, and the charts are built ahead of the first results (prepare()).
// The chunk is asked for only then, once the simulator is loaded: on a slow
// link the first view waits for the page's script, the worker's and the
// wasm, and Chart.js (about 60 KB gzip) fetched beside them would take its
// share of the link; fetched while the first run is simulated, it is in
// before the results need it.

import type { ChartId, ChartsView } from './charts';
import type { CdfSeries } from '../worker/protocol';
import type { Results } from '../results/results';

/** Stands in for ChartsView until its chunk is in. */
export class LazyCharts {
  private view: ChartsView | null = null;
  private loading = false;
  /** Results that came before the chunk: drawn when it arrives. */
  private waiting: { results: Results; cdf: CdfSeries[] } | null = null;
  private prepareAsked = false;

  constructor(
    private readonly figures: Partial<Record<ChartId, HTMLElement>>,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Fetches the chunk (once) and hands it what was asked meanwhile. */
  private load(): void {
    if (this.loading) return;
    this.loading = true;
    import('./charts')
      .then(({ ChartsView }) => {
        this.view = new ChartsView(this.figures);
        if (this.waiting) this.view.update(this.waiting.results, this.waiting.cdf);
        else if (this.prepareAsked) this.prepare();
        else this.view.warmUp().catch(this.onError);
        this.waiting = null;
      })
      .catch(this.onError);
  }

  /** Builds the empty charts ahead of the results (ChartsView.prepare), now or once the chunk is in. */
  prepare(): void {
    this.prepareAsked = true;
    this.load();
    this.view?.prepare().catch(this.onError);
  }

  update(results: Results, cdf: CdfSeries[]): void {
    this.load();
    if (this.view) this.view.update(results, cdf);
    else this.waiting = { results, cdf };
  }

  /** Before the chunk arrives there is nothing to recolour: the charts read the colours when built. */
  retheme(): void {
    this.view?.retheme();
  }
}
