// Number formats of the table, the charts' text alternatives and the CSV's
// human columns. Fixed locale so a number reads the same everywhere (and the
// end-to-end test can recompute it from the benchmark's JSON).

let groupedFormat: Intl.NumberFormat | null = null;

/**
 * Made on first use, not when the module loads: a page's first Intl object
 * costs the browser some 40 ms (ICU's locale data), which made the page's
 * start-up one long task (the main thread is never blocked over 50 ms).
 */
function grouped(): Intl.NumberFormat {
  groupedFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  return groupedFormat;
}

let warming: Promise<void> | null = null;

/**
 * Pays for the first Intl use ahead of need, in two tasks of about 20 ms
 * (the locale data, then the number formats) instead of 40 ms inside
 * whichever task first formats a number: the first results, or the first
 * chart's axis ticks (Chart.js formats them with Intl, in the browser's
 * locale). Resolves when done; later calls share the same promise.
 */
export function warmUpNumberFormats(): Promise<void> {
  warming ??= new Promise((resolve) => {
    setTimeout(() => {
      void new Intl.Locale('en-US').maximize();
      setTimeout(() => {
        grouped();
        void new Intl.NumberFormat().format(0.5);
        resolve();
      }, 0);
    }, 0);
  });
  return warming;
}

/** Milliseconds with about three significant digits: 3.35, 18.1, 240, 1,204. */
export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  const abs = Math.abs(ms);
  if (abs >= 100) return grouped().format(Math.round(ms));
  if (abs >= 10) return ms.toFixed(1);
  return ms.toFixed(2);
}

/** A fraction as a percentage with one decimal: 0.8379 → "83.8%". */
export function formatPercent(fraction: number): string {
  return Number.isFinite(fraction) ? `${(fraction * 100).toFixed(1)}%` : '—';
}

export function formatCount(n: number): string {
  return Number.isFinite(n) ? grouped().format(Math.round(n)) : '—';
}

/**
 * A count with its noun, singular for exactly one: "1 line", "2 lines",
 * "1,000 requests". `plural` for nouns that do not just take an "s"
 * ("policy", "policies"). The count is judged as printed (rounded).
 */
export function formatCountOf(n: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(n)} ${Number.isFinite(n) && Math.round(n) === 1 ? singular : plural}`;
}

/** Max-over-mean load ratio: 1.00 is perfectly even. */
export function formatRatio(x: number): string {
  return Number.isFinite(x) ? x.toFixed(2) : '—';
}

const MINUS = '\u2212';

/** Relative change against a baseline: "−90%", "+12%", "±0%". */
export function formatChange(value: number, baseline: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(baseline) || baseline === 0) return '';
  const pct = Math.round(((value - baseline) / baseline) * 100);
  if (pct === 0) return '±0%';
  return pct > 0 ? `+${pct}%` : `${MINUS}${-pct}%`;
}

/** Difference of two fractions in percentage points: "+0.8 pp". */
export function formatPointChange(value: number, baseline: number): string {
  if (!Number.isFinite(value) || !Number.isFinite(baseline)) return '';
  const pp = Math.round((value - baseline) * 1000) / 10;
  if (pp === 0) return '±0 pp';
  return pp > 0 ? `+${pp.toFixed(1)} pp` : `${MINUS}${(-pp).toFixed(1)} pp`;
}

/** Formats a byte count for progress text: "245.6 KB", "104.9 MB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} KB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}
