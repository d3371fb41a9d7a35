// When the first results reached the screen, machine-readable for the
// first-view benchmark (bench/first_view.mjs): the status element carries
// data-first-table-ms (the results table filled) and data-first-chart-ms
// (every chart of the view drawn), in ms since navigation start
// (performance.now()). Each is written once per page load: later runs never
// move them. Reading them costs the page nothing.

export type FirstViewMilestone = 'table' | 'chart';

const ATTRIBUTES: Record<FirstViewMilestone, string> = { table: 'firstTableMs', chart: 'firstChartMs' };

/** Records `milestone` at the current time unless it is already recorded. */
export function recordFirstView(milestone: FirstViewMilestone): void {
  const status = document.getElementById('status');
  const key = ATTRIBUTES[milestone];
  if (!status || status.dataset[key] !== undefined) return;
  status.dataset[key] = String(Math.round(performance.now()));
}
