// The page's handle on the Sweep panel. Its code is a chunk of its own (it
// draws with Chart.js, loaded apart from the page's first module), fetched
// from the start, while the worker loads, to be in before the first results.
// The panel is built in a task of its own: built in the task that builds the
// controls and starts the first run, it made that task long; it is below the
// fold and idle until the first results.

import type { SweepHost, SweepPanel, SweepStart } from './sweep-panel';
import { nextTask } from '../ui/yield';

export class LazySweep {
  private panel: SweepPanel | null = null;
  private readonly code: Promise<typeof import('./sweep-panel')> | null;
  /** Resolves once the panel is built or has failed to load (at once when the page has none). */
  ready: Promise<void> = Promise.resolve();

  /** `wanted`: the page shows a Sweep section (the full page, or the sweep embed). */
  constructor(wanted: boolean, private readonly onError: (error: unknown) => void) {
    // A failure is reported where the panel is built (build), not as an unhandled rejection before that.
    this.code = wanted ? import('./sweep-panel') : null;
    this.code?.catch(() => {});
  }

  get wanted(): boolean {
    return this.code !== null;
  }

  /**
   * Builds the panel; `start` is the link's sweep. From then on the sweep of
   * the page's state is the panel's: host.onStateChange has it at once and
   * after every valid change.
   */
  build(host: SweepHost, start: SweepStart): void {
    const code = this.code;
    if (!code) return;
    this.ready = (async () => {
      try {
        const { SweepPanel } = await code;
        await nextTask();
        this.panel = new SweepPanel(host, start);
        host.onStateChange(this.panel.linkedSweep);
      } catch (error) {
        this.onError(error);
      }
    })();
  }

  /** The scenario on screen changed: the panel's command line follows it. */
  scenarioChanged(): void {
    this.panel?.scenarioChanged();
  }

  /** Runs the link's sweep, if it named one (once the page's scenario is shown). */
  startFromLink(): void {
    this.panel?.startFromLink();
  }

  retheme(): void {
    this.panel?.retheme();
  }
}
