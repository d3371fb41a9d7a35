// How a bar chart's value axis is chosen so that an outlier cannot flatten
// the other bars: a log axis when the values span more than two decades (or
// when the reader asks for one), and on a linear axis a bar far above all the
// others is cut at the top of the axis and drawn as a marked bar with its
// value (bar-marks.ts), instead of setting the scale.

export type AxisMode = 'auto' | 'linear' | 'log';

export interface AxisChoice {
  log: boolean;
  /** The axis' lower end on a log axis: a power of ten at least three times below the smallest value, so the smallest bar keeps half a decade of height. */
  min?: number;
  /** The axis' upper end on a linear axis when bars are cut, a round number (else Chart.js chooses). */
  max?: number;
  /** Values above this are drawn cut at `max` and marked; null: nothing is cut. */
  cap: number | null;
}

/** Beyond this ratio of the largest to the smallest positive value, "auto" chooses a log axis (two decades). */
export const LOG_SPAN = 100;
/** On a linear axis a value more than this many times the next largest is cut (it would squash the rest below a tenth of the axis). */
export const OUTLIER_FACTOR = 10;

export function chooseAxis(values: readonly number[], mode: AxisMode): AxisChoice {
  const finite = values.filter((v) => Number.isFinite(v) && v >= 0);
  const positive = finite.filter((v) => v > 0);
  if (!positive.length) return { log: false, cap: null };
  const lo = Math.min(...positive);
  const hi = Math.max(...positive);
  if (mode === 'log' || (mode === 'auto' && hi / lo > LOG_SPAN)) {
    let min = 10 ** Math.floor(Math.log10(lo / 3));
    if (min * 3 > lo) min /= 10; // log10 rounding at an exact power of ten
    return { log: true, min, cap: null };
  }
  // Cut the values above the lowest big gap (a value more than OUTLIER_FACTOR
  // times the next), so that most bars are readable, but never more than half of them.
  const sorted = [...finite].sort((a, b) => b - a);
  let cut = 0;
  for (let k = 0; k < Math.floor(sorted.length / 2); k++) {
    if (sorted[k + 1] > 0 && sorted[k] > OUTLIER_FACTOR * sorted[k + 1]) cut = k + 1;
  }
  if (cut === 0) return { log: false, cap: null };
  const max = niceCeil(sorted[cut] * 1.1);
  return { log: false, max, cap: max };
}

const NICE_STEPS = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10];

/** The smallest 1-1.5-2-2.5-3-4-5-6-8 × 10^k at or above x (x > 0): an axis end that reads as a round number. */
export function niceCeil(x: number): number {
  const decade = 10 ** Math.floor(Math.log10(x));
  const step = NICE_STEPS.find((m) => m * decade >= x * (1 - 1e-12)) ?? 10;
  return Number((step * decade).toPrecision(12));
}
