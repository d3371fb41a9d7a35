// The per-stage table of the "Load stages" section: one row per policy and
// stage (results/stages.ts), the core's figures in the results table's
// number formats. It is also the text alternative of the stage charts. Each
// figure cell carries the JSON's value as data-value, so the end-to-end test
// can hold the page against the command line's JSON exactly.

import { h } from '../ui/dom';
import { formatCount, formatMs, formatPercent } from '../ui/format';
import { policySwatch } from '../ui/palette';
import type { Results } from './results';
import { type OfferedLoad, STAGE_COLUMNS, type StageColumn, stageFigure, stageRows } from './stages';

/** A figure as the table shows it; "—" for a figure the run has none of (TPOT without decode). */
export function formatStageFigure(column: StageColumn, value: number | null): string {
  if (value === null) return '—';
  switch (column.format) {
    case 'ms':
      return formatMs(value);
    case 'percent':
      return formatPercent(value);
    case 'rate':
      return value.toFixed(1);
    case 'count':
      return formatCount(value);
  }
}

/** Replaces the table's content with every stage of every policy. */
export function renderStageTable(table: HTMLTableElement, results: Results, load: OfferedLoad): void {
  const head = h('thead', {}, h('tr', {},
    h('th', { scope: 'col' }, 'Policy'),
    h('th', { scope: 'col', class: 'num' }, 'Stage'),
    h('th', { scope: 'col', class: 'num', 'data-col': 'load' }, load.column),
    ...STAGE_COLUMNS.map((c) => h('th', { scope: 'col', class: 'num', 'data-col': c.id }, c.heading))));
  const body = h('tbody');
  const rows = stageRows(results);
  rows.forEach((row, i) => {
    // The policy heads its first stage's row; the later rows repeat it for screen readers only.
    const first = i === 0 || rows[i - 1].policy !== row.policy;
    body.append(h('tr', { 'data-policy': row.policy, 'data-stage': row.stage, class: first ? 'stage-first' : '' },
      h('th', { scope: 'row' }, policySwatch(row.policy), first ? row.label : h('span', { class: 'visually-hidden' }, row.label)),
      h('td', { class: 'num' }, String(row.stage)),
      h('td', { class: 'num', 'data-col': 'load', 'data-value': row.figures.load }, String(row.figures.load)),
      ...STAGE_COLUMNS.map((c) => {
        const v = stageFigure(row, c);
        return h('td', { class: 'num', 'data-col': c.id, 'data-value': v === null ? 'null' : v }, formatStageFigure(c, v));
      })));
  });
  const caption = h('caption', { class: 'visually-hidden' }, `Each stage of the load ladder per policy, the offered load being the ${load.kind === 'concurrency' ? 'concurrency' : 'send rate'}`);
  table.replaceChildren(caption, head, body);
}
