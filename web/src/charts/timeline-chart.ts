// The timeline view: one policy's run over time, as the core computed it
// (core/include/prefixroute/sim/timeline.h; the worker passes the module's
// typed arrays through untouched). Nothing here models anything: it picks a
// policy, reshapes window-major cells into one line per replica, and draws.
//
//   [policy ▾]
//   queue wait per replica (fifo)  |  batch size per replica (batched)
//                                  |  KV use per replica (batched)
//   hit rate per replica
//   routing: a strip per replica, one cell per window, coloured by the
//            window's dominant prefix group (paler when it is a smaller share)
//
// Herding shows as one colour spreading over every replica's strip, a hotspot
// as one replica's wait or batch climbing, thrashing as mixed colours with a
// falling hit rate. Loaded as a chunk of its own (with Chart.js), after the
// first results.

import { CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js';
import { h } from '../ui/dom';
import { formatCount, formatMs, formatPercent } from '../ui/format';
import { readPalette } from '../ui/palette';
import type { PolicyTimelineData } from '../worker/protocol';
import './timeline.css';

Chart.register(CategoryScale, LinearScale, LineController, LineElement, PointElement, Legend, Tooltip);

/** Colours of the most dominant groups, in rank order; later groups share the last (grey). */
const GROUP_HUES = [210, 20, 130, 280, 50, 340, 175, 95];

function replicaColour(row: number, rows: number, other: boolean): string {
  if (other && row === rows - 1) return 'hsl(0 0% 55%)';
  return `hsl(${Math.round((row * 360) / Math.max(1, rows - (other ? 1 : 0)))} 65% 48%)`;
}

function groupColour(rank: number, share: number): string {
  const lightness = Math.round(80 - 35 * share); // a larger share is a deeper colour
  return rank < GROUP_HUES.length ? `hsl(${GROUP_HUES[rank]} 70% ${lightness}%)` : `hsl(0 0% ${lightness}%)`;
}

/** A colour key (CSSOM, not a style attribute: the page's CSP has no inline styles). */
function swatch(colour: string): HTMLSpanElement {
  const s = h('span', { class: 'timeline-swatch' });
  s.style.background = colour;
  return s;
}

interface Metric {
  id: string;
  title: string;
  unit: string;
  values: (t: PolicyTimelineData) => Float64Array | undefined;
  scale: number;
  format: (v: number) => string;
}

const METRICS: Metric[] = [
  { id: 'wait', title: 'Queue wait per replica', unit: 'ms', values: (t) => (t.batched ? undefined : t.meanWaitMs), scale: 1, format: (v) => `${formatMs(v)} ms` },
  { id: 'batch', title: 'Batch size per replica', unit: 'sequences running', values: (t) => t.meanBatch, scale: 1, format: (v) => v.toFixed(1) },
  { id: 'kv', title: 'KV use per replica', unit: '% of KV capacity', values: (t) => t.kvUse, scale: 100, format: (v) => formatPercent(v / 100) },
  { id: 'hits', title: 'Hit rate per replica', unit: '% of prompt tokens', values: (t) => t.hitRate, scale: 100, format: (v) => formatPercent(v / 100) },
];

export class TimelineView {
  private readonly select = h('select', { 'aria-label': 'Policy shown in the timeline' });
  private readonly note = h('p', { class: 'help timeline-note' });
  private readonly charts = new Map<string, { figure: HTMLElement; chart: Chart<'line'> }>();
  private readonly strip = h('canvas', { class: 'timeline-strip', role: 'img' });
  private readonly legend = h('p', { class: 'help timeline-legend' });
  private timelines: PolicyTimelineData[] = [];
  private label: (policy: string) => string = (p) => p;

  constructor(private readonly root: HTMLElement) {
    this.select.addEventListener('change', () => this.draw());
    const grid = h('div', { class: 'timeline-charts' });
    for (const m of METRICS) {
      const canvas = h('canvas', { role: 'img', 'aria-label': m.title });
      const figure = h('figure', { class: 'chart timeline-chart', 'data-metric': m.id },
        h('figcaption', {}, m.title, ' ', h('span', { class: 'muted' }, m.unit)),
        h('div', { class: 'canvas-box' }, canvas));
      grid.append(figure);
      this.charts.set(m.id, { figure, chart: this.makeChart(canvas, m) });
    }
    const routing = h('figure', { class: 'chart timeline-routing' },
      h('figcaption', {}, 'Routing ', h('span', { class: 'muted' }, 'dominant prefix group per replica and window')),
      this.strip, this.legend);
    root.append(h('label', { class: 'timeline-pick' }, 'Policy ', this.select), this.note, grid, routing);
  }

  private makeChart(canvas: HTMLCanvasElement, metric: Metric): Chart<'line'> {
    const palette = readPalette();
    return new Chart(canvas, {
      type: 'line',
      data: { labels: [], datasets: [] },
      options: {
        animation: false,
        maintainAspectRatio: false,
        interaction: { mode: 'index', intersect: false },
        plugins: {
          legend: { display: true, position: 'bottom', labels: { color: palette.fg, boxWidth: 10 } },
          tooltip: { callbacks: { label: (c) => `${c.dataset.label}: ${metric.format(Number(c.parsed.y))}` } },
        },
        scales: {
          x: { title: { display: true, text: 'arrival time (s)', color: palette.muted }, ticks: { color: palette.muted, maxTicksLimit: 9 }, grid: { color: palette.grid } },
          y: { beginAtZero: true, title: { display: true, text: metric.unit, color: palette.muted }, ticks: { color: palette.muted }, grid: { color: palette.grid } },
        },
        elements: { point: { radius: 0 }, line: { borderWidth: 1.5 } },
      },
    });
  }

  /** New run results: keeps the chosen policy when it is still there. */
  update(timelines: PolicyTimelineData[], label: (policy: string) => string): void {
    this.timelines = timelines;
    this.label = label;
    const keep = this.select.value;
    this.select.replaceChildren(...timelines.map((t) => h('option', { value: t.policy }, label(t.policy))));
    if (timelines.some((t) => t.policy === keep)) this.select.value = keep;
    this.root.hidden = timelines.length === 0;
    this.draw();
  }

  /** Re-reads the colours after a theme change. */
  retheme(): void {
    for (const [id, entry] of this.charts) {
      const canvas = entry.chart.canvas;
      entry.chart.destroy();
      entry.chart = this.makeChart(canvas, METRICS.find((m) => m.id === id)!);
    }
    this.draw();
  }

  private draw(): void {
    const t = this.timelines.find((x) => x.policy === this.select.value) ?? this.timelines[0];
    if (!t) return;
    const rows = t.rows;
    const rowName = (r: number) => (t.other && r === rows - 1 ? `R${t.shown + 1}–R${t.replicas}` : `R${r + 1}`);
    this.note.textContent =
      `${this.label(t.policy)}: the run's arrivals in ${t.windows} windows of ${formatMs(t.windowMs)} ms. ` +
      (t.other
        ? `Showing R1–R${t.shown} and one line pooling the other ${formatCount(t.replicas - t.shown)} replicas (R${t.shown + 1}–R${t.replicas}). `
        : '') +
      (t.batched ? 'Batch size and KV use are means of four snapshots per window.' : 'Queue wait: prefill start − arrival, mean of the window’s arrivals.');
    const labels = Array.from({ length: t.windows }, (_, w) => ((w * t.windowMs) / 1000).toFixed(1));
    // The figures the text states, unrounded, for whoever checks them against the command line's document.
    Object.assign(this.root.dataset, { policy: t.policy, windows: String(t.windows), windowMs: String(t.windowMs) });
    for (const m of METRICS) {
      const entry = this.charts.get(m.id)!;
      const values = m.values(t);
      entry.figure.hidden = !values;
      if (!values) continue;
      let peak = { v: -1, row: 0, w: 0 };
      entry.chart.data.labels = labels;
      entry.chart.data.datasets = Array.from({ length: rows }, (_, r) => {
        const data = Array.from({ length: t.windows }, (_, w) => {
          const i = w * rows + r;
          // Hit rate and waits exist only where requests arrived; sampled metrics everywhere.
          const empty = (m.id === 'wait' || m.id === 'hits') && t.requests[i] === 0;
          const v = values[i] * m.scale;
          if (!empty && v > peak.v) peak = { v, row: r, w };
          return empty ? null : v;
        });
        const colour = replicaColour(r, rows, t.other);
        return { label: rowName(r), data, borderColor: colour, backgroundColor: colour, spanGaps: true };
      });
      // A legend of many replicas would crowd out the plot: the tooltip names them.
      const legend = entry.chart.options.plugins?.legend;
      if (legend) legend.display = rows <= 10;
      entry.chart.update('none');
      Object.assign(entry.figure.dataset, { peak: String(peak.v), peakRow: String(peak.row), peakWindow: String(peak.w) });
      entry.chart.canvas.setAttribute('aria-label',
        `${m.title} for ${this.label(t.policy)} over ${t.windows} windows` +
        (peak.v >= 0 ? `; highest ${m.format(peak.v)} on ${rowName(peak.row)} at ${labels[peak.w]} s` : ''));
    }
    this.drawStrip(t, rowName);
  }

  private drawStrip(t: PolicyTimelineData, rowName: (r: number) => string): void {
    const palette = readPalette();
    const rows = t.rows;
    const rowPx = rows > 16 ? 8 : 16;
    const labelPx = 64;
    const width = Math.max(200, this.strip.parentElement?.clientWidth ?? 640);
    const cellPx = (width - labelPx) / t.windows;
    const ratio = window.devicePixelRatio || 1;
    this.strip.width = Math.round(width * ratio);
    this.strip.height = Math.round(rows * rowPx * ratio);
    this.strip.style.width = `${width}px`;
    this.strip.style.height = `${rows * rowPx}px`;
    const ctx = this.strip.getContext('2d');
    if (!ctx) return;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, rows * rowPx);
    ctx.font = `${Math.min(11, rowPx - 2)}px sans-serif`;
    ctx.textBaseline = 'middle';
    ctx.fillStyle = palette.muted;
    for (let r = 0; r < rows; r++) {
      if (rowPx >= 12 || r % 4 === 0 || (t.other && r === rows - 1)) ctx.fillText(rowName(r), 2, r * rowPx + rowPx / 2);
      for (let w = 0; w < t.windows; w++) {
        const i = w * rows + r;
        const rank = t.topGroup[i];
        if (rank < 0) continue;
        ctx.fillStyle = groupColour(rank, t.topShare[i]);
        ctx.fillRect(labelPx + w * cellPx, r * rowPx + 1, Math.ceil(cellPx), rowPx - 2);
      }
      ctx.fillStyle = palette.muted;
    }
    const named = Math.min(GROUP_HUES.length, t.groupKeys.length);
    this.legend.replaceChildren(
      ...Array.from({ length: named }, (_, k) => h('span', { class: 'timeline-group' },
        swatch(groupColour(k, 1)), `group ${t.groupKeys[k]}`)),
      ...(t.groupKeys.length > named ? [h('span', { class: 'timeline-group' },
        swatch(groupColour(named, 1)), `${t.groupKeys.length - named} more`)] : []),
      h('span', { class: 'muted' }, ' Paler: the group is a smaller share of the window’s requests there. Blank: no arrivals.'));
    this.strip.dataset.groupKeys = Array.from(t.groupKeys).join(' ');
    const dominant = t.groupKeys.length > 0 ? `group ${t.groupKeys[0]} dominates most` : 'no requests';
    this.strip.setAttribute('aria-label',
      `Dominant prefix group of each replica in each of ${t.windows} windows for ${this.label(t.policy)}: ` +
      `${formatCount(t.groupKeys.length)} groups lead some window; ${dominant}.`);
  }
}
