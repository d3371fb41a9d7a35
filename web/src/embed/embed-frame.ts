// The page inside an author's <iframe> (`embed=1`): shows the view the link
// chose (embed-options.ts), in its colours, with the reader controls it
// offers, and keeps the host informed of its height so the frame never
// scrolls (embed-snippet.ts: the snippet's host script applies it).
//
// Layout is by classes on <body> (styles.css, "embed mode"):
//   embed-view-<view>    what is shown (table-chart, table, chart, sweep, timeline, capacity)
//   embed-with-controls  the Scenario panel, cut down to the reader controls
//   embed-narrow         the table did not fit the frame: one metric column and a metric picker
// Elements an embed shows that the full layout's embed rules hide carry
// `embed-shown`.
//
// Nothing here writes the address or storage: the host page owns both.

import type { ChartId } from '../charts/charts';
import { byId, h } from '../ui/dom';
import { decodeEmbedOptions, type EmbedOptions, type EmbedView } from './embed-options';
import type { FieldInfo } from '../state/schema';
import { EMBED_MESSAGES } from './embed-snippet';
import { COLUMNS } from '../results/table-columns';
import type { Theme } from '../ui/theme';

/** The table's metric in the narrow layout until the reader picks another. */
const NARROW_DEFAULT_METRIC = 'p99_ttft_ms';

/** The embed's options and what it does with them; one per page, in embed mode only. */
export class EmbedFrame {
  readonly options: EmbedOptions;
  /** The view shown: the link's. */
  readonly view: EmbedView;
  private readonly notes: string[] = [];
  private lastHeight = -1;

  constructor(private readonly search: string) {
    this.options = decodeEmbedOptions(search).options;
    this.view = this.options.view;
  }

  /** The charts the page builds: the view's one chart, if it has one. */
  charts(): ChartId[] {
    return this.view === 'chart' || this.view === 'table-chart' ? [this.options.chart] : [];
  }

  /** Whether the view is the sweep: the page then builds the Sweep panel and runs the link's sweep. */
  get wantsSweep(): boolean {
    return this.view === 'sweep';
  }

  /** Whether the view is the Capacity view: the page then builds the Capacity panel and searches at the link's SLO. */
  get wantsCapacity(): boolean {
    return this.view === 'capacity';
  }

  /**
   * The embed's problems with its own link, for the link's messages: every
   * bad embed key and value (embed.controls checked against `fields`).
   */
  linkMessages(fields: readonly FieldInfo[]): string[] {
    return decodeEmbedOptions(this.search, fields).messages;
  }

  /** Sets the layout, the colours and the reports to the host; call once, before the first paint. */
  apply(theme: Theme): void {
    const body = document.body;
    body.classList.add(`embed-view-${this.view}`);
    for (const id of this.charts()) byId(`chart-${id}`).classList.add('embed-shown');
    if (this.view === 'sweep') byId('sweep').classList.add('embed-shown');
    if (this.view === 'timeline') byId('timeline').classList.add('embed-shown');
    if (this.view === 'capacity') byId('capacity').classList.add('embed-shown');
    if (this.options.theme !== 'host') theme.set(this.options.theme);
    // The link's messages are for the author: say so, quietly, to the reader.
    const head = document.querySelector('#link-messages .notice-head strong');
    if (head) head.textContent = 'Parts of this embed’s link were not used:';
    this.showNotes();
    this.fitTable();
    this.reportHeight();
    window.addEventListener('message', (event) => {
      // Only the frame's parent may set the colours, and only to light or dark.
      if (event.source !== window.parent || this.options.theme !== 'host') return;
      const data: unknown = event.data;
      if (typeof data !== 'object' || data === null) return;
      const { type, dark } = data as { type?: unknown; dark?: unknown };
      if (type === EMBED_MESSAGES.hostTheme && typeof dark === 'boolean') theme.set(dark ? 'dark' : 'light');
    });
  }

  /** A note to the reader in the embed (a hosted trace that could not be used, a view not in this build). */
  addNote(text: string): void {
    this.notes.push(text);
    this.showNotes();
  }

  /** Cuts the Scenario panel down to the reader controls the link offers (none: the panel stays hidden). */
  controlsReady(form: HTMLElement): void {
    let offered = 0;
    for (const key of this.options.controls) {
      const field = [...form.querySelectorAll<HTMLElement>('[data-key]')].find((el) => el.dataset.key === key);
      if (!field) continue;
      offered++;
      field.classList.add('embed-reader-control');
      for (let el = field.parentElement; el && el !== form; el = el.parentElement) {
        el.classList.add('embed-reader-group');
        if (el instanceof HTMLDetailsElement) el.open = true;
      }
    }
    if (!offered) return;
    document.body.classList.add('embed-with-controls');
    const details = document.getElementById('controls-details');
    if (details instanceof HTMLDetailsElement) details.open = true;
  }

  private showNotes(): void {
    const box = byId('embed-note');
    box.replaceChildren(...this.notes.map((n) => h('p', {}, n)));
    box.hidden = this.notes.length === 0;
  }

  /**
   * The narrow layout: when the whole table does not fit the frame's width,
   * it shows one metric column, chosen with a picker, instead of scrolling
   * sideways. Checked whenever the frame's width or the table changes.
   */
  private fitTable(): void {
    const body = document.body;
    const table = byId<HTMLTableElement>('results-table');
    const wrap = table.parentElement!;
    const picker = byId<HTMLSelectElement>('embed-metric');
    picker.replaceChildren(...COLUMNS.map((c) => h('option', { value: c.id }, c.unit ? `${c.header} (${c.unit})` : c.header)));
    picker.value = NARROW_DEFAULT_METRIC;
    body.dataset.metric = NARROW_DEFAULT_METRIC;
    picker.addEventListener('change', () => {
      body.dataset.metric = picker.value;
    });
    let queued = false;
    const fit = () => {
      queued = false;
      if (!table.tBodies.length) return;
      // Measure the whole table (a synchronous layout of the one table), then choose.
      body.classList.remove('embed-narrow');
      const over = table.scrollWidth > wrap.clientWidth + 1;
      body.classList.toggle('embed-narrow', over);
    };
    // In the next frame, not inside the observer's callback: the layout change
    // would otherwise be a ResizeObserver loop (an error event on the page).
    const queue = () => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(fit);
    };
    new ResizeObserver(queue).observe(wrap);
    new MutationObserver(queue).observe(table, { childList: true });
  }

  /**
   * Posts the page's height to the host whenever it changes, with whether
   * the embed follows the host's colours (the host's script then answers).
   * The height is not a secret: any origin may read it.
   */
  private reportHeight(): void {
    if (window.parent === window) return;
    const root = document.documentElement;
    const post = () => {
      const height = Math.ceil(root.getBoundingClientRect().height);
      if (height === this.lastHeight) return;
      this.lastHeight = height;
      window.parent.postMessage({ type: EMBED_MESSAGES.height, height, hostTheme: this.options.theme === 'host' }, '*');
    };
    new ResizeObserver(post).observe(root);
    post();
  }
}
