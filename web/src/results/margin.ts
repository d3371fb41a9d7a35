// A difference as a share of the figure it is measured against, as a reader
// takes it in: "2%", "<1%", "35%". Shared by the verdict's margins and gains.

/** "2%", "<1%", "35%": a non-negative share (0.35 → "35%"). */
export function formatMargin(margin: number): string {
  const pct = Math.round(margin * 100);
  return pct < 1 ? (margin > 0 ? '<1%' : '0%') : `${pct}%`;
}
