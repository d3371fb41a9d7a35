// The sweep's chart: hit rate (x) against p99 TTFT (y), one series per
// policy with its points joined in sweep order, each point labelled in its
// tooltip by the swept value. The points the core flags as the Pareto front
// (no other point has a higher hit rate and a lower p99) are drawn filled and
// larger, the others hollow, and a dashed line joins them (paretoFront) — so
// the front reads without relying on colour. Chart.js parts used here are
// registered here; the chart is created once and updated in place.

import { Chart, Legend, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, Tooltip, type TooltipItem } from 'chart.js';
import { type Palette, readPalette } from './palette';
import { formatMs, formatPercent } from './format';
import { paretoFront, type SweepResults } from './sweep-results';

Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Legend, Tooltip);

/** A drawn point: chart coordinates plus what the tooltip says. */
interface SweepDatum {
  x: number;
  y: number;
  value: string;
  pareto: boolean;
}

/** p99 spanning more than this ratio is drawn on a log axis. */
const LOG_AXIS_RATIO = 20;

/** Chart of one sweep in a <figure> holding a <canvas>. */
export class SweepChart {
  private chart: Chart<'line', SweepDatum[]> | null = null;
  private last: { results: SweepResults; labels: Map<string, string> } | null = null;

  constructor(private readonly figure: HTMLElement) {}

  /** Draws a sweep; `labels` maps policy names to display labels. */
  update(results: SweepResults, labels: Map<string, string>): void {
    this.last = { results, labels };
    const canvas = this.figure.querySelector('canvas');
    if (!canvas) return;
    const p = readPalette();
    const policies = results.points[0]?.results.map((r) => r.policy) ?? [];
    const series = policies.map((policy, i) => ({
      policy,
      data: results.points.map((pt): SweepDatum => {
        const r = pt.results[i];
        return { x: r.hit_rate * 100, y: r.p99_ttft_ms, value: pt.value, pareto: r.pareto };
      }),
    }));
    const all = series.flatMap((s) => s.data);
    const frontData = paretoFront(results).map((f): SweepDatum => ({ x: f.hitRate * 100, y: f.p99Ms, value: f.value, pareto: true }));
    const ys = all.map((d) => d.y).filter((y) => y > 0);
    const logY = ys.length > 0 && Math.max(...ys) / Math.min(...ys) > LOG_AXIS_RATIO;

    const datasets = [
      ...series.map((s) => {
        const colour = p.policy(s.policy);
        return {
          label: labels.get(s.policy) ?? s.policy,
          data: s.data,
          borderColor: colour,
          backgroundColor: colour,
          pointBorderColor: colour,
          pointBackgroundColor: s.data.map((d) => (d.pareto ? colour : 'transparent')),
          pointRadius: s.data.map((d) => (d.pareto ? 6 : 4)),
          pointHoverRadius: 8,
          pointBorderWidth: 2,
          borderWidth: 1.5,
          showLine: true,
          order: 1,
        };
      }),
      {
        label: 'Pareto front',
        data: frontData,
        borderColor: p.fg,
        backgroundColor: p.fg,
        borderDash: [6, 4],
        borderWidth: 1.5,
        pointRadius: 0,
        pointHitRadius: 0,
        showLine: true,
        order: 0,
      },
    ];
    const scales = this.scales(p, results.key, logY);
    if (!this.chart) {
      this.chart = new Chart(canvas, {
        type: 'line',
        data: { datasets },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          parsing: false,
          interaction: { mode: 'nearest', intersect: true },
          plugins: {
            legend: { labels: { color: p.fg, boxWidth: 12, boxHeight: 12 } },
            tooltip: { callbacks: { label: (item: TooltipItem<'line'>) => this.tooltip(item) } },
          },
          scales,
        },
      } as never) as Chart<'line', SweepDatum[]>;
    } else {
      this.chart.data.datasets = datasets as never;
      this.chart.options.scales = scales as never;
      if (this.chart.options.plugins?.legend?.labels) this.chart.options.plugins.legend.labels.color = p.fg;
      this.chart.update('none');
    }
    this.describe(results, labels);
  }

  /** Re-reads the colours (after a theme change) and redraws. */
  retheme(): void {
    requestAnimationFrame(() => {
      if (this.last) this.update(this.last.results, this.last.labels);
    });
  }

  private scales(p: Palette, key: string, logY: boolean): Record<string, unknown> {
    const axis = (title: string) => ({ grid: { color: p.grid }, ticks: { color: p.muted }, title: { display: true, text: title, color: p.muted } });
    return {
      x: { type: 'linear', ...axis(`prefix-cache hit rate (%) — each point one value of ${key}`) },
      y: { type: logY ? 'logarithmic' : 'linear', ...axis(`p99 TTFT (ms${logY ? ', log scale' : ''})`) },
    };
  }

  private tooltip(item: TooltipItem<'line'>): string {
    const d = item.raw as SweepDatum;
    const key = this.last?.results.key ?? '';
    const who = item.dataset.label ?? '';
    return `${who}: ${key} = ${d.value} → hit rate ${formatPercent(d.x / 100)}, p99 ${formatMs(d.y)} ms${d.pareto ? ' (Pareto front)' : ''}`;
  }

  /** The one-sentence text alternative on the canvas; the numbers are in the sweep table. */
  private describe(results: SweepResults, labels: Map<string, string>): void {
    const front: string[] = [];
    for (const pt of results.points)
      for (const r of pt.results)
        if (r.pareto) front.push(`${labels.get(r.policy) ?? r.policy} at ${pt.value} (${formatPercent(r.hit_rate)}, ${formatMs(r.p99_ttft_ms)} ms)`);
    this.figure.querySelector('canvas')?.setAttribute(
      'aria-label',
      `Hit rate against p99 time to first token, one series per policy, over ${results.points.length} values of ${results.key}. ` +
        `On the Pareto front: ${front.join('; ') || 'none'}. The table below lists every point.`,
    );
  }
}
