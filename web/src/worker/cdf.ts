// Downsamples a TTFT series to an empirical CDF small enough to draw. Runs in
// the worker: sorting millions of samples on the main thread would block it.

/** Ranks always kept so the tail (what p99 is about) stays sharp. */
const TAIL_QUANTILES = [0.5, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.999, 1];

/** Points (x = TTFT ms, y = fraction of requests at or below x), at most ~points + tail. */
export function cdfPoints(samples: ArrayLike<number>, points = 200): { x: number[]; y: number[] } {
  const n = samples.length;
  if (n === 0) return { x: [], y: [] };
  const sorted = Float64Array.from(samples).sort();
  const ranks = new Set<number>();
  const k = Math.min(points, n);
  for (let i = 1; i <= k; i++) ranks.add(Math.ceil((i / k) * n) - 1);
  for (const q of TAIL_QUANTILES) ranks.add(Math.max(0, Math.ceil(q * n) - 1));
  const ordered = [...ranks].sort((a, b) => a - b);
  const x: number[] = [];
  const y: number[] = [];
  for (const r of ordered) {
    // Equal x values: keep only the highest rank (the CDF's value there).
    if (x.length > 0 && x[x.length - 1] === sorted[r]) {
      y[y.length - 1] = (r + 1) / n;
      continue;
    }
    x.push(sorted[r]);
    y.push((r + 1) / n);
  }
  return { x, y };
}
