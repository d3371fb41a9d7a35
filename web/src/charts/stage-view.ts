// The "Load stages" section (#stages): for a client with a load ladder, TTFT
// (a statistic the reader picks, p90 by default) and throughput (completed
// requests/s or tokens/s) against each stage's offered load, one line per
// policy in its catalogue colour, and the per-stage table (stage-table.ts),
// which is also the charts' text alternative. The shape of the published
// benchmark figures. The numbers are the results JSON's (results/stages.ts
// reads them); this file only draws. Chart.js parts used here are
// registered here; each chart is created once and updated in place. Each
// canvas carries its drawn points as data-series (machine-readable, for the
// end-to-end test).

import { Chart, Legend, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, Tooltip, type TooltipItem } from 'chart.js';
import { byId, h } from '../ui/dom';
import { formatCount, formatMs } from '../ui/format';
import { readPalette } from '../ui/palette';
import type { Results } from '../results/results';
import { renderStageTable } from '../results/stage-table';
import { offeredLoad, type OfferedLoad, stageSeries, type StageSeries, type StageStat, statById, THROUGHPUT_STATS, TTFT_STATS } from '../results/stages';

Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Tooltip);

/** Loads spanning more than this ratio (1 to 32 concurrent, say) are drawn on a log axis, so the low stages do not crowd together. */
const LOG_LOAD_RATIO = 10;

interface Drawn {
  chart: Chart<'line'> | null;
  figure: HTMLElement;
  select: HTMLSelectElement;
  stats: readonly StageStat[];
  /** Tooltip and text of a value of this chart. */
  format: (v: number) => string;
}

function picker(select: HTMLSelectElement, stats: readonly StageStat[]): void {
  select.replaceChildren(...stats.map((s) => h('option', { value: s.id }, s.label)));
  select.value = stats[0].id;
}

export class StageView {
  private readonly section = byId('stages');
  private readonly ttft: Drawn;
  private readonly throughput: Drawn;
  private last: Results | null = null;

  constructor() {
    this.ttft = { chart: null, figure: byId('chart-stage-ttft'), select: byId<HTMLSelectElement>('stage-ttft-stat'), stats: TTFT_STATS, format: (v) => `${formatMs(v)} ms` };
    this.throughput = {
      chart: null,
      figure: byId('chart-stage-throughput'),
      select: byId<HTMLSelectElement>('stage-throughput-stat'),
      stats: THROUGHPUT_STATS,
      format: (v) => (v >= 100 ? formatCount(v) : v.toFixed(1)),
    };
    for (const d of [this.ttft, this.throughput]) {
      picker(d.select, d.stats);
      d.select.addEventListener('change', () => {
        if (this.last) this.draw(d, this.last);
      });
    }
  }

  /** Shows these results' stages (the section is shown only for results that have some: LazyStages). */
  update(results: Results): void {
    this.last = results;
    this.section.hidden = false;
    const load = offeredLoad(results);
    byId('stages-load').textContent = load.kind === 'concurrency'
      ? 'Offered load: each stage’s concurrency (requests outstanding; a closed client).'
      : 'Offered load: each stage’s send rate (requests/s; an open-loop client).';
    this.draw(this.ttft, results);
    this.draw(this.throughput, results);
    renderStageTable(byId<HTMLTableElement>('stage-table'), results, load);
  }

  /** Re-reads the colours (after a theme change) and redraws. */
  retheme(): void {
    requestAnimationFrame(() => {
      if (!this.last) return;
      this.draw(this.ttft, this.last);
      this.draw(this.throughput, this.last);
    });
  }

  private draw(d: Drawn, results: Results): void {
    const stat = statById(d.stats, d.select.value);
    const load = offeredLoad(results);
    const series = stageSeries(results, stat);
    const p = readPalette();
    const loads = series.flatMap((s) => s.points.map((pt) => pt.x)).filter((x) => x > 0);
    const logX = loads.length > 0 && Math.max(...loads) / Math.min(...loads) > LOG_LOAD_RATIO;
    const datasets = series.map((s) => ({
      label: s.label,
      data: s.points.map((pt) => ({ x: pt.x, y: pt.y, stage: pt.stage })),
      borderColor: p.policy(s.policy),
      backgroundColor: p.policy(s.policy),
      borderWidth: 2,
      pointRadius: 3,
      pointHoverRadius: 6,
      spanGaps: false,
    }));
    const axis = (title: string) => ({ grid: { color: p.grid }, ticks: { color: p.muted }, title: { display: true, text: title, color: p.muted } });
    const scales = {
      x: { type: logX ? 'logarithmic' : 'linear', ...axis(`${load.axis}${logX ? ', log scale' : ''}`), ticks: { color: p.muted, callback: (v: number | string) => tickText(Number(v), logX) } },
      y: { type: 'linear', beginAtZero: true, ...axis(stat.axis) },
    };
    const canvas = d.figure.querySelector('canvas')!;
    if (!d.chart) {
      d.chart = new Chart(canvas, {
        type: 'line',
        data: { datasets },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          parsing: { xAxisKey: 'x', yAxisKey: 'y' },
          interaction: { mode: 'nearest', intersect: false },
          plugins: {
            legend: { display: true, labels: { color: p.fg, boxWidth: 12, boxHeight: 12 } },
            tooltip: { callbacks: { label: (item: TooltipItem<'line'>) => this.tooltip(item, d, load) } },
          },
          scales,
        },
      } as never) as Chart<'line'>;
    } else {
      d.chart.data.datasets = datasets as never;
      d.chart.options.scales = scales as never;
      if (d.chart.options.plugins?.legend?.labels) d.chart.options.plugins.legend.labels.color = p.fg;
      d.chart.update('none');
    }
    canvas.dataset.stat = stat.id;
    canvas.dataset.series = JSON.stringify(series.map((s) => ({ policy: s.policy, points: s.points.map((pt) => [pt.x, pt.y]) })));
    canvas.setAttribute('aria-label', summary(series, stat, load, d.format));
  }

  private tooltip(item: TooltipItem<'line'>, d: Drawn, load: OfferedLoad): string {
    const raw = item.raw as { x: number; y: number | null; stage: number };
    const stat = statById(d.stats, d.select.value);
    return `${item.dataset.label ?? ''}, stage ${raw.stage} (${load.text(raw.x)}): ${stat.label} ${raw.y === null ? 'none' : d.format(raw.y)}`;
  }
}

/** Labels of the load axis: every tick on a linear axis; on a log axis 1, 2, 5 × 10^k only. */
function tickText(v: number, log: boolean): string {
  if (!log) return String(Number(v.toPrecision(6)));
  if (!(v > 0)) return '';
  const mantissa = v / 10 ** Math.floor(Math.log10(v) + 1e-9);
  return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6) ? String(Number(v.toPrecision(6))) : '';
}

/** The chart's one-sentence text alternative: what it plots and each policy's first and last stage; the table lists every stage. */
function summary(series: StageSeries[], stat: StageStat, load: OfferedLoad, format: (v: number) => string): string {
  const ends = series.map((s) => {
    const first = s.points[0];
    const last = s.points[s.points.length - 1];
    const at = (pt: typeof first) => `${pt.y === null ? 'none' : format(pt.y)} at ${load.text(pt.x)}`;
    return `${s.label}: ${at(first)}, ${at(last)}`;
  });
  return `${stat.axis} against the ${load.axis}, one line per policy. ${ends.join('; ')}. The table below lists every stage.`;
}
