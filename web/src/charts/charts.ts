// The four charts. Chart.js is tree-shaken: only the controllers, elements,
// scales and plugins used here are registered. Charts are created once and
// then updated in place (chart.update('none'): no animation, no re-layout
// jank); they are built before the first results, one per task (prepare()),
// so that drawing the first results is no long task. Colours come from the
// page's palette (palette.ts: its CSS custom properties and the policy
// catalogue's colours), so they follow the light/dark scheme. Each
// chart has a text alternative: a one-sentence aria-label on the canvas and a
// visually hidden table with the numbers.

import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartDataset,
  Legend,
  LinearScale,
  LineController,
  LineElement,
  LogarithmicScale,
  PointElement,
  Tooltip,
} from 'chart.js';
import { type BarExtras, errorBarsPlugin, offScalePlugin } from './bar-marks';
import { type AxisMode, chooseAxis } from './chart-axis';
import { h } from '../ui/dom';
import { formatCount, formatMs, formatPercent, warmUpNumberFormats } from '../ui/format';
import { readPalette } from '../ui/palette';
import type { CdfSeries } from '../worker/protocol';
import { intervalOf } from '../results/intervals';
import type { PolicyResult, Results } from '../results/results';
import { recordFirstView } from '../ui/first-view';
import { measureLatest } from '../ui/timing';
import { afterNextPaint } from '../ui/yield';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, LogarithmicScale, LineController, LineElement, PointElement, Legend, Tooltip);

export type ChartId = 'ttft' | 'hits' | 'cdf' | 'load';

/** Sets a dataset list in place: existing dataset objects are reused so Chart.js updates, not rebuilds. */
function syncDatasets<T extends 'bar' | 'line'>(chart: Chart<T>, next: ChartDataset<T>[]): void {
  const current = chart.data.datasets;
  next.forEach((d, i) => {
    if (current[i]) Object.assign(current[i], d);
    else current.push(d);
  });
  current.length = next.length;
}

/** Writes a chart's text alternative: summary on the canvas, numbers in a hidden table. */
function describe(figure: HTMLElement, summary: string, headers: string[], rows: (string | number)[][]): void {
  figure.querySelector('canvas')?.setAttribute('aria-label', summary);
  // The wrapper is what hides: a table's caption lives outside the table box,
  // so hiding the table itself would leave a one-line caption overflowing the page.
  const table = h('div', { class: 'visually-hidden chart-data' }, h('table', {},
    h('caption', {}, summary),
    h('thead', {}, h('tr', {}, ...headers.map((x) => h('th', { scope: 'col' }, x)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((x, i) => (i === 0 ? h('th', { scope: 'row' }, String(x)) : h('td', {}, String(x)))))))));
  const old = figure.querySelector('.chart-data');
  if (old) old.replaceWith(table);
  else figure.append(table);
}

/** Labels 1, 2, 5, 10, 20, 50… on a log axis; other ticks stay unlabelled. */
function logTick(v: number): string {
  if (!(v > 0)) return '';
  const mantissa = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6) ? (v >= 1 ? formatCount(v) : String(Number(v.toPrecision(1)))) : '';
}

/** A bar's tooltip line: its true value (a cut bar's data is the axis top) and, with replicates, its interval. */
function barTooltip(item: { dataset: object; dataIndex: number; formattedValue: string }): string {
  const ds = item.dataset as { label?: string; trueValues?: number[] } & BarExtras;
  const value = ds.trueValues?.[item.dataIndex];
  const iv = ds.errorBars?.[item.dataIndex];
  const shown = value !== undefined ? formatMs(value) : item.formattedValue;
  return `${ds.label ?? ''}: ${shown}${iv ? ` (95% interval ${formatMs(iv.low)} – ${formatMs(iv.high)})` : ''}${ds.offScale?.[item.dataIndex] ? ', off the scale' : ''}`;
}

/** Most replicas drawn in the load chart; beyond that the hidden table still lists all. */
const MAX_REPLICA_BARS = 64;

/**
 * What the load chart draws of a larger cluster: the replicas in index
 * order, R1 to R`drawn` (not a selection by load).
 */
function replicaSubsetNote(drawn: number, replicas: number): string {
  return `Showing ${formatCount(drawn)} of ${formatCount(replicas)} replicas: R1–R${drawn}, in index order (not the most loaded).`;
}

/** What each chart is, fixed for the page's life: known before any results, so a chart can be built early. */
const SPECS: Record<ChartId, { type: 'bar' | 'line'; legend: boolean; scales: Record<string, unknown> }> = {
  ttft: { type: 'bar', legend: true, scales: { y: { beginAtZero: true, title: { display: true, text: 'ms' } } } },
  hits: { type: 'bar', legend: false, scales: { y: { beginAtZero: true, max: 100, title: { display: true, text: '% of prompt tokens from cache' } } } },
  cdf: {
    type: 'line',
    legend: true,
    scales: {
      x: {
        type: 'logarithmic',
        title: { display: true, text: 'time to first token (ms, log scale)' },
        // Label only 1-2-5 steps: a log axis labels every minor tick otherwise.
        ticks: { callback: (v: number | string) => logTick(Number(v)) },
      },
      y: { min: 0, max: 100, title: { display: true, text: '% of requests' } },
    },
  },
  load: { type: 'bar', legend: true, scales: { y: { beginAtZero: true, title: { display: true, text: 'prefill work (s)' } } } },
};

/**
 * Runs Chart.js's code once on a throwaway chart before the page's first
 * chart: that code's first run (V8 compiling it) made the first chart's task
 * some 40 ms of main-thread CPU. Here it is split in two tasks (build, then
 * update) and the page's charts are then built warm, each in under 20 ms.
 * The canvas is never in the page: nothing is drawn.
 */
async function warmUpChartJs(scales: Record<string, unknown>): Promise<void> {
  const chart = new Chart(document.createElement('canvas'), {
    type: 'bar',
    data: { labels: [], datasets: [] },
    options: { animation: false, scales },
  } as never) as Chart;
  try {
    await afterNextPaint();
    chart.update('none');
  } finally {
    chart.destroy();
  }
}

export class ChartsView {
  private readonly charts = new Map<ChartId, Chart>();
  /** Charts that have been given data: until then they draw nothing (an empty chart would show bare axes). */
  private readonly filled = new Set<ChartId>();
  private palette = readPalette();
  private last: { results: Results; cdf: CdfSeries[] } | null = null;
  private generation = 0;
  private warming: Promise<void> | null = null;

  constructor(private readonly figures: Partial<Record<ChartId, HTMLElement>>) {
    Chart.defaults.animation = false;
    Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
    Chart.defaults.maintainAspectRatio = false;
    for (const figure of Object.values(figures)) {
      figure?.querySelector('select.axis-mode')?.addEventListener('change', () => {
        if (this.last) this.update(this.last.results, this.last.cdf);
      });
    }
  }

  /**
   * Pays for the first use of Intl and of Chart.js's code ahead of the first
   * chart, in tasks of their own; touches nothing on the page, so it can run
   * while the page is still being built. Later calls share the same promise.
   */
  warmUp(): Promise<void> {
    this.warming ??= (async () => {
      // Chart.js formats the axis ticks with Intl.
      await warmUpNumberFormats();
      await afterNextPaint();
      await warmUpChartJs(this.themedScales('ttft'));
    })();
    return this.warming;
  }

  /**
   * Builds the empty charts ahead of the first results, each in its own task
   * after a frame: a chart's construction is much of its first draw (Chart.js
   * sets up the canvas, its options and scales), and the page is idle while
   * the worker compiles the module. Call once the page around the charts is
   * built: a chart measures its box, which would force the layout of anything
   * built just before. A chart not built when results come is built by update().
   */
  async prepare(): Promise<void> {
    await this.warmUp();
    for (const id of Object.keys(SPECS) as ChartId[]) {
      if (!this.figures[id]) continue;
      await afterNextPaint();
      if (this.charts.has(id)) continue;
      const t0 = performance.now();
      this.create(id);
      measureLatest(`prefixroute:chart-prepare-${id}`, t0, performance.now());
    }
  }

  /** Re-reads the colours (after a theme change) and redraws. */
  retheme(): void {
    // A media-query change can be reported before the new colours apply: read them a frame later.
    requestAnimationFrame(() => {
      this.palette = readPalette();
      if (this.last) this.update(this.last.results, this.last.cdf);
    });
  }

  /**
   * Redraws every chart for new results. Each chart is drawn in its own task
   * so no single task blocks the main thread for long; a chart not built yet
   * (results came before prepare() got to it) is built in a task of its own
   * first. A newer update abandons the remaining steps of an older one.
   */
  update(results: Results, cdf: CdfSeries[]): void {
    this.last = { results, cdf };
    const generation = ++this.generation;
    const steps = this.steps(results, cdf);
    const next = (i: number) => {
      if (generation !== this.generation) return;
      if (i >= steps.length) {
        recordFirstView('chart');
        return;
      }
      const [id, draw] = steps[i];
      if (this.figures[id] && !this.charts.has(id)) this.create(id);
      else {
        const t0 = performance.now();
        draw();
        // User Timing entries: visible in the browser's performance panel and to the tests.
        measureLatest(`prefixroute:chart-step-${i}`, t0, performance.now());
        i++;
      }
      setTimeout(() => next(i), 0);
    };
    setTimeout(() => next(0), 0);
  }

  private steps(results: Results, cdf: CdfSeries[]): [ChartId, () => void][] {
    const p = this.palette;
    const rows = results.results;
    const labels = rows.map((r) => r.label);

    const steps: [ChartId, () => void][] = [];
    steps.push(['ttft', () => {
      const metrics = [
        { key: 'mean_ttft_ms', label: 'Mean TTFT (ms)', colour: p.accent, value: (r: PolicyResult) => r.mean_ttft_ms },
        { key: 'p99_ttft_ms', label: 'p99 TTFT (ms)', colour: p.accent2, value: (r: PolicyResult) => r.p99_ttft_ms },
      ];
      const mode = this.axisMode('ttft');
      const axis = chooseAxis(metrics.flatMap((m) => rows.map(m.value)), mode);
      this.showAxisChoice('ttft', axis.log);
      this.draw('ttft', (chart) => {
        chart.data.labels = labels;
        const y = (chart.options.scales as Record<string, Record<string, unknown>>).y;
        if (axis.log) {
          Object.assign(y, { type: 'logarithmic', min: axis.min, beginAtZero: false });
          Object.assign(y.ticks as object, { callback: (v: number | string) => logTick(Number(v)) });
          Object.assign(y.title as object, { text: 'ms, log scale' });
        } else if (axis.max !== undefined) {
          Object.assign(y, { max: axis.max });
        }
        syncDatasets(chart as Chart<'bar'>, metrics.map((m) => ({
          label: m.label,
          data: rows.map((r) => (axis.cap !== null && m.value(r) > axis.cap ? axis.max! : m.value(r))),
          offScale: rows.map((r) => (axis.cap !== null && m.value(r) > axis.cap ? `${formatMs(m.value(r))} ms` : null)),
          errorBars: rows.map((r) => intervalOf(r, m.key)),
          trueValues: rows.map(m.value),
          backgroundColor: m.colour,
          borderRadius: 3,
        }) as ChartDataset<'bar'> & BarExtras));
      });
      this.recordBarHeights('ttft');
      if (this.figures.ttft) {
        // With replicates, each figure with the half-width of its 95% interval, as the table shows it.
        const shown = (r: PolicyResult, key: string, v: number) => {
          const iv = intervalOf(r, key);
          return iv ? `${formatMs(v)} ± ${formatMs(iv.half_width)}` : formatMs(v);
        };
        const scale = axis.log ? ' Log axis.' : axis.cap !== null ? ` Bars above ${formatMs(axis.cap)} ms are cut at the top of the axis and marked with their values.` : '';
        describe(this.figures.ttft, `Mean and p99 time to first token per policy.${scale} ${rows.map((r) => `${r.label}: mean ${shown(r, 'mean_ttft_ms', r.mean_ttft_ms)} ms, p99 ${shown(r, 'p99_ttft_ms', r.p99_ttft_ms)} ms`).join('; ')}.`,
          ['Policy', 'Mean TTFT (ms)', 'p99 TTFT (ms)'], rows.map((r) => [r.label, shown(r, 'mean_ttft_ms', r.mean_ttft_ms), shown(r, 'p99_ttft_ms', r.p99_ttft_ms)]));
      }
    }]);
    steps.push(['hits', () => {
      // The core's cache bounds, drawn beside the policies as what no routing can beat.
      const bounds = [
        { label: 'Pooled bound', bound: results.bounds?.pooled },
        { label: 'Ideal bound', bound: results.bounds?.ideal },
      ].filter((b): b is { label: string; bound: NonNullable<typeof b.bound> } => b.bound !== undefined);
      this.draw('hits', (chart) => {
        chart.data.labels = [...labels, ...bounds.map((b) => b.label)];
        syncDatasets(chart as Chart<'bar'>, [
          {
            label: 'Hit rate (%)',
            data: [...rows.map((r) => r.hit_rate * 100), ...bounds.map((b) => b.bound.hit_rate * 100)],
            errorBars: [...rows.map((r) => intervalOf(r, 'hit_rate')), ...bounds.map((b) => b.bound.interval?.hit_rate ?? null)]
              .map((iv) => (iv ? { low: iv.low * 100, high: iv.high * 100 } : null)),
            backgroundColor: [...rows.map((r) => p.policy(r.policy)), ...bounds.map(() => p.bound)],
            borderRadius: 3,
          } as ChartDataset<'bar'> & BarExtras,
        ]);
      });
      if (this.figures.hits) {
        const all = [...rows.map((r) => [r.label, formatPercent(r.hit_rate)]), ...bounds.map((b) => [`${b.label} (${formatCount(b.bound.capacity_tokens)} tokens)`, formatPercent(b.bound.hit_rate)])];
        describe(this.figures.hits, `Cache hit rate per policy, and the bounds no routing can beat. ${all.map(([l, v]) => `${l}: ${v}`).join('; ')}.`,
          ['Policy or bound', 'Hit rate'], all);
      }
    }]);
    steps.push(['cdf', () => {
      this.draw('cdf', (chart) => {
        syncDatasets(chart as Chart<'line'>, cdf.map((s) => {
          const label = rows.find((r) => r.policy === s.policy)?.label ?? s.policy;
          return {
            label,
            data: s.x.map((x, i) => ({ x: Math.max(x, 1e-3), y: s.y[i] * 100 })),
            borderColor: p.policy(s.policy),
            backgroundColor: p.policy(s.policy),
            borderWidth: 2,
            pointRadius: 0,
            stepped: 'after' as const,
          };
        }));
      });
      if (this.figures.cdf) {
        const q = (s: CdfSeries, f: number) => s.x[s.y.findIndex((y) => y >= f)] ?? NaN;
        describe(this.figures.cdf, `Distribution of time to first token, one line per policy. ${cdf.map((s) => `${rows.find((r) => r.policy === s.policy)?.label ?? s.policy}: half of requests within ${formatMs(q(s, 0.5))} ms, 99% within ${formatMs(q(s, 0.99))} ms`).join('; ')}.`,
          ['Policy', 'p50 (ms)', 'p90 (ms)', 'p99 (ms)', 'max (ms)'],
          cdf.map((s) => [rows.find((r) => r.policy === s.policy)?.label ?? s.policy, formatMs(q(s, 0.5)), formatMs(q(s, 0.9)), formatMs(q(s, 0.99)), formatMs(s.x[s.x.length - 1])]));
      }
    }]);
    steps.push(['load', () => {
      const replicas = Math.max(0, ...rows.map((r) => r.replicas.length));
      const drawn = Math.min(replicas, MAX_REPLICA_BARS);
      this.draw('load', (chart) => {
        chart.data.labels = Array.from({ length: drawn }, (_, i) => `R${i + 1}`);
        syncDatasets(chart as Chart<'bar'>, rows.map((r) => ({
          label: r.label,
          data: r.replicas.slice(0, drawn).map((x) => x.work_ms / 1000),
          backgroundColor: p.policy(r.policy),
          borderRadius: 2,
        })));
      });
      if (this.figures.load) {
        // Say on the chart itself which replicas it draws: a reader must not take R1–R64 for the whole cluster.
        const note = this.figures.load.querySelector<HTMLElement>('.chart-note');
        if (note) {
          note.textContent = replicas > drawn ? replicaSubsetNote(drawn, replicas) : '';
          note.hidden = replicas <= drawn;
        }
        const busiest = rows.map((r) => {
          const work = r.replicas.map((x) => x.work_ms);
          const max = Math.max(...work);
          return `${r.label}: busiest replica R${work.indexOf(max) + 1} with ${(max / 1000).toFixed(2)} s, imbalance ${r.imbalance.toFixed(2)}`;
        });
        describe(this.figures.load, `Prefill work per replica and policy${replicas > drawn ? ` (${replicaSubsetNote(drawn, replicas)})` : ''}. ${busiest.join('; ')}.`,
          ['Replica', ...rows.map((r) => `${r.label} (s)`)],
          Array.from({ length: replicas }, (_, i) => [`R${i + 1}`, ...rows.map((r) => ((r.replicas[i]?.work_ms ?? 0) / 1000).toFixed(2))]));
      }
    }]);
    return steps;
  }

  /** The reader's axis choice for a chart (its figure's axis menu), "auto" without one. */
  private axisMode(id: ChartId): AxisMode {
    const value = this.figures[id]?.querySelector<HTMLSelectElement>('select.axis-mode')?.value;
    return value === 'linear' || value === 'log' ? value : 'auto';
  }

  /** Says in the axis menu what "auto" chose. */
  private showAxisChoice(id: ChartId, log: boolean): void {
    const auto = this.figures[id]?.querySelector<HTMLOptionElement>('select.axis-mode option[value="auto"]');
    if (auto) auto.textContent = `Auto (${log ? 'log' : 'linear'})`;
  }

  /**
   * Writes each bar's drawn height in pixels on the canvas (data-bar-px, one
   * list per dataset): what a reader sees of each policy, machine-readable for
   * the end-to-end test that no bar is flattened to nothing.
   */
  private recordBarHeights(id: ChartId): void {
    const chart = this.charts.get(id);
    if (!chart) return;
    const heights = chart.data.datasets.map((_, di) =>
      (chart.getDatasetMeta(di).data as unknown as { y: number; base: number }[]).map((b) => Math.round(Math.abs(b.base - b.y) * 10) / 10));
    chart.canvas.dataset.barPx = JSON.stringify(heights);
  }

  /** The chart's scales in the current colours. */
  private themedScales(id: ChartId): Record<string, unknown> {
    const p = this.palette;
    return Object.fromEntries(Object.entries(SPECS[id].scales).map(([axis, s]) => [axis, {
      ...(s as object),
      grid: { color: p.grid },
      ticks: { ...((s as { ticks?: object }).ticks ?? {}), color: p.muted },
      title: { ...((s as { title?: object }).title ?? {}), color: p.muted },
    }]));
  }

  /** Chart.js's global colours: the charts' defaults for what the options leave unset. */
  private applyDefaults(): void {
    Chart.defaults.color = this.palette.muted;
    Chart.defaults.borderColor = this.palette.grid;
  }

  /** Builds a chart with no data; it draws nothing until draw() fills it. */
  private create(id: ChartId): Chart | undefined {
    const canvas = this.figures[id]?.querySelector('canvas');
    if (!canvas) return undefined;
    const { type, legend } = SPECS[id];
    const p = this.palette;
    this.applyDefaults();
    const chart = new Chart(canvas, {
      type,
      data: { labels: [], datasets: [] },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        normalized: true,
        interaction: { mode: type === 'line' ? 'nearest' : 'index', intersect: false },
        plugins: {
          legend: { display: legend, labels: { color: p.fg, boxWidth: 12, boxHeight: 12 } },
          tooltip: { enabled: true, callbacks: { label: barTooltip } },
        },
        scales: this.themedScales(id),
      },
      // Cancelled draws leave the canvas cleared: blank, as before the chart existed.
      plugins: [
        { id: 'prefixroute-hold', beforeDraw: () => this.filled.has(id) },
        errorBarsPlugin(() => this.palette.fg),
        offScalePlugin(() => ({ fg: this.palette.fg, bg: getComputedStyle(canvas.closest('figure') ?? canvas).backgroundColor })),
      ],
    } as never) as Chart;
    this.charts.set(id, chart);
    return chart;
  }

  private draw(id: ChartId, fill: (chart: Chart) => void): void {
    if (!this.figures[id]) return;
    this.applyDefaults();
    let chart = this.charts.get(id);
    if (!chart) chart = this.create(id);
    else {
      chart.options.scales = this.themedScales(id) as never;
      if (chart.options.plugins?.legend?.labels) chart.options.plugins.legend.labels.color = this.palette.fg;
    }
    if (!chart) return;
    fill(chart);
    this.filled.add(id);
    chart.update('none');
  }
}
