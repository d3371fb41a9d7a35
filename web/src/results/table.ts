// The results table: one row per policy. With replicates each figure is the
// mean over the seeds with the half-width of its 95 % interval; a column's
// leader is tagged "best" only when its interval is apart from every other
// row's, and the rows it cannot be told from are tagged "≈ best" (intervals.ts).
// With one seed nothing is tagged: the notes say why. The small figures are
// the change against the baseline policy, or, when a run is pinned
// (pinned-run.ts), the pinned figure and the change from it.

import { h } from '../ui/dom';
import { formatCount, formatPercent } from '../ui/format';
import { columnStanding, intervalOf, intervalsOverlap, seedCount, type Standing } from './intervals';
import { policySwatch } from '../ui/palette';
import type { PolicyResult, Results } from './results';
import { BASELINE_POLICY, COLUMNS, type Column, columnsFor, formatHalfWidth } from './table-columns';
import { replaysTrace } from './trace-run';

/** A run pinned for comparison, with a few words saying what it was. */
export interface PinnedResults {
  results: Results;
  what: string;
}

/**
 * The recommended policy's badge: `regret` is its worst-case p99 TTFT regret
 * over the project's grid (the catalogue's worst_p99_regret, generated from
 * docs/grid.json), shown beside the mark; `shown` is false where this run
 * shows another policy clearly better (recommendation.ts: the verdict names it).
 */
export interface RecommendedBadge {
  regret?: number;
  shown: boolean;
  /** Why it is not shown (the figures and the rule), for the notes. */
  withheld?: string;
}

/** The recommended badge's tooltip: why this policy, and how far from the best it is at worst. */
function recommendedTitle(regret: number | undefined): string {
  const worst = regret === undefined ? '' : `: at worst its p99 TTFT is ${formatPercent(regret)} above the best policy's`;
  return `the policy this project recommends, the smallest worst-case p99 TTFT regret over its grid of scenarios${worst} ` +
    '(docs/guide/routers.md: The recommended policy across a grid)';
}

/** The badge, "recommended", and under it the worst-case regret it was earned with. */
function recommendedTag(regret: number | undefined): (HTMLElement | null)[] {
  return [
    h('span', { class: 'recommended-tag', title: recommendedTitle(regret) }, 'recommended'),
    regret === undefined ? null : h('span', { class: 'recommended-regret', title: recommendedTitle(regret) }, `worst case +${formatPercent(regret)} p99 over the grid`),
  ];
}

/**
 * Replaces the table with the rows of these results; the notes (what the
 * figures and marks mean, the cache bounds) go below it, outside the
 * sideways-scrolling box, so they stay readable on a phone. `labelOf` names
 * a policy that did not run (the catalogue's label); `badge` says whether the
 * recommended policy's row carries its badge, and with which regret.
 */
export function renderTable(
  table: HTMLTableElement,
  notes: HTMLElement,
  results: Results,
  labelOf: (policy: string) => string = (p) => p,
  pinned: PinnedResults | null = null,
  badge: RecommendedBadge = { shown: true },
): void {
  const rows = results.results;
  const baseline = rows.find((r) => r.policy === BASELINE_POLICY);
  const n = seedCount(results);
  const recommended = results.recommended;

  const columns = columnsFor(rows);
  const headRow = h('tr', {}, h('th', { scope: 'col' }, 'Policy'));
  for (const c of columns) {
    headRow.append(
      h(
        'th',
        { scope: 'col', class: c.optional ? 'num optional' : 'num', 'data-col': c.id },
        c.header,
        c.unit ? h('span', { class: 'unit' }, ` (${c.unit})`) : null,
      ),
    );
  }
  const caption = h('caption', { class: 'visually-hidden' }, 'Results per policy');

  const pinnedRows = new Map((pinned?.results.results ?? []).map((r) => [r.policy, r]));
  const standings = columns.map((c) => columnStanding(rows, c.id, c.value, c.better));
  const body = h('tbody');
  rows.forEach((r, i) => {
    const tr = h(
      'tr',
      { 'data-policy': r.policy },
      h('th', { scope: 'row' }, policySwatch(r.policy), r.label,
        h('code', { class: 'policy-id' }, r.policy),
        ...(r.policy === recommended && badge.shown ? recommendedTag(badge.regret) : [])),
    );
    columns.forEach((c, ci) => {
      const v = c.value(r);
      const mark = cellMark(standings[ci], i);
      const td = h('td', { class: `num${c.optional ? ' optional' : ''}${mark === 'best' ? ' best' : ''}${mark === 'tied' ? ' tied' : ''}`, 'data-col': c.id, 'data-value': v },
        h('span', { class: 'value' }, c.format(v)));
      const interval = intervalOf(r, c.id);
      if (interval) td.append(h('span', { class: 'ci', title: `95% interval ${c.format(interval.low)} – ${c.format(interval.high)} over ${n} seeds` }, `± ${formatHalfWidth(c, interval.half_width)}`));
      if (mark === 'best') td.append(h('span', { class: 'best-tag', title: `apart from every other policy at N = ${n} (95% intervals)` }, 'best'));
      if (mark === 'tied') td.append(h('span', { class: 'tie-tag', title: tieTitle(rows, standings[ci], i, n) }, '≈ best'));
      const before = pinnedRows.get(r.policy);
      if (pinned) {
        if (before) td.append(pinnedFigure(c, r, before));
      } else if (baseline && r !== baseline) {
        td.append(...changeFigure(c, v, c.value(baseline), `change against ${baseline.label}`));
      }
      tr.append(td);
    });
    body.append(tr);
  });

  notes.replaceChildren(
    `${formatCount(results.workload.requests)} requests, same trace for every policy. `,
    seedsText(results, n),
    pinned
      ? pinnedText(results, pinned)
      : baseline
        ? `Small figures: change against ${baseline.label}. `
        : `Add ${labelOf(BASELINE_POLICY)} to the policies to see changes against it. `,
    'Imbalance: the busiest replica’s prefill work over the mean (1.00 = even).',
    columns.some((c) => c.id === 'later_call_hit_rate')
      ? ` Later-call hit rate: over the calls after the first of their session. Sessions on one replica: of the ${formatCount(rows[0].multi_call_sessions ?? 0)} sessions of more than one call, the share served by one replica throughout.`
      : '',
    boundsText(results),
    overlapsText(results, n),
    badge.withheld ? ` ${badge.withheld}` : '',
  );
  table.replaceChildren(caption, h('thead', {}, headRow), body);
}

function cellMark(standing: Standing, row: number): 'best' | 'tied' | null {
  if (standing.kind === 'best' && standing.leader === row) return 'best';
  if (standing.kind === 'tied' && (standing.leader === row || standing.with.includes(row))) return 'tied';
  return null;
}

function tieTitle(rows: readonly PolicyResult[], standing: Standing, row: number, n: number): string {
  if (standing.kind !== 'tied') return '';
  const group = [standing.leader, ...standing.with].filter((i) => i !== row).map((i) => rows[i].label);
  return `not distinguishable at N = ${n} from ${group.join(', ')} (95% intervals overlap)`;
}

/** The small change figure against a reference value, toned good or bad. */
function changeFigure(c: Column, v: number, reference: number, title: string): HTMLElement[] {
  const change = c.change(v, reference);
  if (!change) return [];
  const good = c.better === 'low' ? v < reference : v > reference;
  const tone = change.startsWith('±') ? '' : good ? ' good' : ' bad';
  return [h('span', { class: `change${tone}`, title }, change)];
}

/**
 * The pinned run's figure under the current one, with the change from it;
 * "≈" when both have intervals and they overlap (the change may be chance).
 */
function pinnedFigure(c: Column, now: PolicyResult, before: PolicyResult): HTMLElement {
  const v = c.value(now);
  const b = c.value(before);
  const x = intervalOf(now, c.id);
  const y = intervalOf(before, c.id);
  const same = x && y ? intervalsOverlap(x, y) : null;
  const change = changeFigure(c, v, b, 'change from the pinned run');
  return h('span', { class: 'pinned-figure', 'data-pinned-value': b },
    `pinned ${c.format(b)}`,
    ...change,
    same === true ? h('span', { class: 'pin-same', title: 'the two runs’ 95% intervals overlap: not distinguishable' }, ' ≈') : null);
}

function seedsText(results: Results, n: number): string {
  if (n > 1) {
    const seeds = results.replicates?.seeds ?? [];
    const range = seeds.length ? ` (seeds ${seeds[0]}–${seeds[seeds.length - 1]})` : '';
    return `Figures are means over ${n} seeds${range} ± the half-width of their 95% interval (Student t). “best” marks a leader whose interval is apart from every other policy’s; “≈ best” marks leaders that cannot be told apart at N = ${n}. `;
  }
  if (replaysTrace(results)) {
    return 'A trace has one replicate (one replay of its requests): no intervals, so no policy is marked best. ';
  }
  return 'One seed: no intervals, so no policy is marked best (a one-seed difference can be luck); set Replicates to 3 or more for 95% intervals. ';
}

function pinnedText(results: Results, pinned: PinnedResults): string {
  const now = new Set(results.results.map((r) => r.policy));
  const gone = pinned.results.results.filter((r) => !now.has(r.policy)).map((r) => r.label);
  return `Small figures: the pinned run (${pinned.what}) and the change from it; “≈” where both have 95% intervals and they overlap. ${
    gone.length ? `Only in the pinned run: ${gone.join(', ')}. ` : ''}`;
}

/** The core's list of headline metrics on which pairs of policies overlap (as the command line prints it). */
function overlapsText(results: Results, n: number): string {
  const pairs = results.replicates?.not_distinguishable;
  if (!pairs) return '';
  const label = (p: string) => results.results.find((r) => r.policy === p)?.label ?? p;
  const parts = Object.entries(pairs)
    .filter(([, list]) => list.length > 0)
    .map(([metric, list]) => `${COLUMNS.find((c) => c.id === metric)?.header ?? metric}: ${list.map(([a, b]) => `${label(a)} ~ ${label(b)}`).join(', ')}`);
  const metrics = (results.replicates?.headline_metrics ?? []).map((m) => COLUMNS.find((c) => c.id === m)?.header ?? m);
  return parts.length
    ? ` Not distinguishable at N = ${n} (their 95% intervals overlap): ${parts.join('; ')}.`
    : ` At N = ${n} every pair of policies is distinguishable on ${metrics.join(', ')}.`;
}

/** The core's cache bounds in a sentence, when it reports them. */
function boundsText(results: Results): string {
  const { ideal, pooled } = results.bounds ?? {};
  const parts: string[] = [];
  if (ideal) parts.push(`an unbounded cache would reach ${formatPercent(ideal.hit_rate)}`);
  if (pooled) parts.push(`the replicas’ caches pooled into one (${formatCount(pooled.capacity_tokens)} tokens) ${formatPercent(pooled.hit_rate)}`);
  return parts.length ? ` Hit-rate bounds no routing can beat: ${parts.join('; ')}.` : '';
}
