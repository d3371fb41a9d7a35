// The sweep's chart: hit rate (x) against p99 TTFT (y), one series per
// policy with its points joined in sweep order, each point's tooltip naming
// the policy, the swept field by its label with its unit, and the figures
// with theirs. A policy's outcome that does not change over consecutive
// values is drawn once, standing for those values (sweep-view.ts). The
// points the core flags as the Pareto front (no other point has a higher hit
// rate and a lower p99) are drawn filled and larger, the others hollow, and
// a dashed line joins them (paretoFront) — so the front reads without
// relying on colour. The axis titles say which way is better (right: higher
// hit rate; down: lower p99) and the caption points down-right. A row of checkboxes (the chart's legend) shows
// or hides each policy's series; the choice survives re-runs. Chart.js parts
// used here are registered here; the chart is created once and updated in place.

import { Chart, LinearScale, LineController, LineElement, LogarithmicScale, PointElement, Tooltip, type TooltipItem } from 'chart.js';
import { h } from '../ui/dom';
import { type Palette, policySwatch, readPalette } from '../ui/palette';
import { formatMs, formatPercent } from '../ui/format';
import { paretoFront, type SweepResults, sweepPolicies } from './sweep-results';
import { policyRows, sweepRows, valuesText } from './sweep-view';

Chart.register(LineController, LineElement, PointElement, LinearScale, LogarithmicScale, Tooltip);

/** A drawn point: chart coordinates plus what the tooltip says. */
interface SweepDatum {
  x: number;
  y: number;
  /** The swept values the point stands for (one, or a run where the policy's outcome did not change). */
  values: string[];
  pareto: boolean;
}

/** The swept field as the tooltip names it. */
export interface SweptField {
  label: string;
  unit: string;
}

/** p99 spanning more than this ratio is drawn on a log axis. */
const LOG_AXIS_RATIO = 20;

/** Chart of one sweep in a <figure> holding a <canvas>. */
export class SweepChart {
  private chart: Chart<'line', SweepDatum[]> | null = null;
  private last: { results: SweepResults; labels: Map<string, string>; field?: SweptField } | null = null;
  /** Policies the reader unticked: their series stay hidden across re-runs. */
  private readonly hidden = new Set<string>();

  constructor(private readonly figure: HTMLElement) {}

  /** Draws a sweep; `labels` maps policy names to display labels; `field` names the swept key in tooltips. */
  update(results: SweepResults, labels: Map<string, string>, field?: SweptField): void {
    this.last = { results, labels, field };
    const canvas = this.figure.querySelector('canvas');
    if (!canvas) return;
    const p = readPalette();
    const policies = sweepPolicies(results);
    const rows = sweepRows(results);
    const series = policies.map((policy) => ({
      policy,
      data: policyRows(rows, policy).map((row): SweepDatum => {
        const r = row.outcome;
        return { x: r.hit_rate * 100, y: r.p99_ttft_ms, values: row.values, pareto: r.pareto };
      }),
    }));
    const all = series.flatMap((s) => s.data);
    const frontData = paretoFront(results).map((f): SweepDatum => ({ x: f.hitRate * 100, y: f.p99Ms, values: [f.value], pareto: true }));
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
          hidden: this.hidden.has(s.policy),
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
            legend: { display: false },
            tooltip: {
              callbacks: {
                // Each point names its policy (points of two policies can coincide).
                title: () => '',
                label: (item: TooltipItem<'line'>) => this.tooltip(item),
              },
            },
          },
          scales,
        },
      } as never) as Chart<'line', SweepDatum[]>;
    } else {
      this.chart.data.datasets = datasets as never;
      this.chart.options.scales = scales as never;
      this.chart.update('none');
    }
    this.buildFilter(policies, labels);
    this.describe(results, labels);
  }

  /** Re-reads the colours (after a theme change) and redraws. */
  retheme(): void {
    requestAnimationFrame(() => {
      if (this.last) this.update(this.last.results, this.last.labels, this.last.field);
    });
  }

  private scales(p: Palette, key: string, logY: boolean): Record<string, unknown> {
    const axis = (title: string) => ({ grid: { color: p.grid }, ticks: { color: p.muted }, title: { display: true, text: title, color: p.muted } });
    return {
      x: { type: 'linear', ...axis(`prefix-cache hit rate (%), higher is better → — each point one value of ${key}`) },
      y: { type: logY ? 'logarithmic' : 'linear', ...axis(`p99 TTFT (ms${logY ? ', log scale' : ''}), lower is better`) },
    };
  }

  /** The tooltip's lines for one point: its policy, the swept field with its unit, then the figures with theirs. */
  private tooltip(item: TooltipItem<'line'>): string[] {
    const d = item.raw as SweepDatum;
    const results = this.last?.results;
    const field = this.last?.field;
    const name = field?.label || results?.key || '';
    const unit = field?.unit ? ` ${field.unit}` : '';
    const values = valuesText(d.values, results?.points.length ?? d.values.length);
    const lines = [
      item.dataset.label ?? '',
      `${name}: ${values}${unit}${d.values.length > 1 ? ' (unchanged)' : ''}`,
      `Hit rate: ${formatPercent(d.x / 100)}`,
      `p99 TTFT: ${formatMs(d.y)} ms`,
    ];
    if (d.pareto) lines.push('On the Pareto front');
    return lines;
  }

  /** The policy filter (the chart's legend): one checkbox with its colour per policy. */
  private buildFilter(policies: string[], labels: Map<string, string>): void {
    let box = this.figure.querySelector<HTMLElement>('.sweep-filter');
    if (!box) {
      box = h('div', { class: 'sweep-filter', role: 'group', 'aria-label': 'Policies shown in the chart' });
      this.figure.querySelector('.canvas-box')?.before(box);
    }
    const boxes = policies.map((policy, index) => {
      const input = h('input', { type: 'checkbox', 'data-policy': policy });
      input.checked = !this.hidden.has(policy);
      input.addEventListener('change', () => {
        if (input.checked) this.hidden.delete(policy);
        else this.hidden.add(policy);
        this.chart?.setDatasetVisibility(index, input.checked);
        this.chart?.update('none');
      });
      return h('label', { class: 'sweep-filter-item' }, input, policySwatch(policy), labels.get(policy) ?? policy);
    });
    box.replaceChildren(...boxes);
  }

  /** The one-sentence text alternative on the canvas; the numbers are in the sweep table. */
  private describe(results: SweepResults, labels: Map<string, string>): void {
    const front = sweepRows(results)
      .filter((row) => row.outcome.pareto)
      .map((row) => {
        const r = row.outcome;
        return `${labels.get(r.policy) ?? r.policy} at ${valuesText(row.values, results.points.length)} (${formatPercent(r.hit_rate)}, ${formatMs(r.p99_ttft_ms)} ms)`;
      });
    this.figure.querySelector('canvas')?.setAttribute(
      'aria-label',
      `Hit rate against p99 time to first token, one series per policy, over ${results.points.length} values of ${results.key}. ` +
        `Better is down and to the right. On the Pareto front: ${front.join('; ') || 'none'}. The table below lists every point.`,
    );
  }
}
