// Two small Chart.js plugins of the page's own for bar charts (no extra
// dependency): error bars (a dataset's `errorBars`: the 95 % interval of each
// bar's mean, over the replicates) and off-scale marks (a dataset's
// `offScale`: the true value of a bar cut at the top of the axis; see
// chart-axis.ts). Both draw after the datasets, in the colour given.

import type { Chart, Plugin } from 'chart.js';

export interface BarExtras {
  /** Per bar: the interval to draw, or null. */
  errorBars?: ({ low: number; high: number } | null)[];
  /** Per bar: the true value of a cut bar (its text), or null for a whole bar. */
  offScale?: (string | null)[];
}

interface BarGeometry {
  x: number;
  y: number;
  base: number;
  width: number;
}

function bars(chart: Chart, di: number): BarGeometry[] {
  const meta = chart.getDatasetMeta(di);
  if (meta.hidden || !chart.isDatasetVisible(di)) return [];
  return meta.data as unknown as BarGeometry[];
}

/** Error bars: a vertical line from low to high with caps, clamped to the chart area. */
export function errorBarsPlugin(colour: () => string): Plugin {
  return {
    id: 'prefixroute-error-bars',
    afterDatasetsDraw(chart) {
      const scale = chart.scales.y;
      const area = chart.chartArea;
      if (!scale || !area) return;
      const ctx = chart.ctx;
      ctx.save();
      ctx.strokeStyle = colour();
      ctx.lineWidth = 1.5;
      chart.data.datasets.forEach((ds, di) => {
        const intervals = (ds as BarExtras).errorBars;
        if (!intervals) return;
        bars(chart, di).forEach((bar, i) => {
          const iv = intervals[i];
          if (!iv) return;
          const clamp = (px: number) => Math.min(area.bottom, Math.max(area.top, px));
          const low = scale.type === 'logarithmic' && !(iv.low > 0) ? area.bottom : clamp(scale.getPixelForValue(iv.low));
          const high = clamp(scale.getPixelForValue(iv.high));
          const cap = Math.min(8, bar.width / 3);
          ctx.beginPath();
          ctx.moveTo(bar.x, low);
          ctx.lineTo(bar.x, high);
          ctx.moveTo(bar.x - cap, high);
          ctx.lineTo(bar.x + cap, high);
          ctx.moveTo(bar.x - cap, low);
          ctx.lineTo(bar.x + cap, low);
          ctx.stroke();
        });
      });
      ctx.restore();
    },
  };
}

/**
 * Off-scale marks: a break across the cut bar's top and, written up the bar
 * inside it, its true value with an arrow (inside, so labels of neighbouring
 * bars never collide with each other or the legend).
 */
export function offScalePlugin(colours: () => { fg: string; bg: string }): Plugin {
  return {
    id: 'prefixroute-off-scale',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      const { bg } = colours();
      ctx.save();
      ctx.font = `600 11px ${getComputedStyle(chart.canvas).fontFamily}`;
      ctx.textAlign = 'right';
      ctx.textBaseline = 'middle';
      chart.data.datasets.forEach((ds, di) => {
        const off = (ds as BarExtras).offScale;
        if (!off) return;
        bars(chart, di).forEach((bar, i) => {
          const text = off[i];
          if (!text) return;
          const y = bar.y + 8;
          // Two slanted strokes in the background colour: the bar is broken, not this tall.
          ctx.strokeStyle = bg;
          ctx.lineWidth = 3;
          ctx.beginPath();
          for (const dy of [0, 6]) {
            ctx.moveTo(bar.x - bar.width / 2 - 1, y + dy + 3);
            ctx.lineTo(bar.x + bar.width / 2 + 1, y + dy - 3);
          }
          ctx.stroke();
          ctx.save();
          ctx.translate(bar.x, y + 16);
          ctx.rotate(-Math.PI / 2);
          ctx.fillStyle = bg;
          ctx.fillText(`${text} ▲`, 0, 0);
          ctx.restore();
        });
      });
      ctx.restore();
    },
  };
}
