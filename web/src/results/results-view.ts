// The results as the page shows them above the charts: the verdict line, the
// table with its notes, and the pin to compare with (pinned-run.ts). The page
// hands it each run's results; it owns its buttons.

import { byId, h } from '../ui/dom';
import { pinnedDescription } from './pinned-run';
import type { Results } from './results';
import { renderTable } from './table';
import { COLUMNS } from './table-columns';
import { watchTableOverflow } from './table-cue';
import { verdictLine } from './verdict';

export class ResultsView {
  private current: { results: Results; labelOf: (policy: string) => string; recommendedRegret?: number } | null = null;
  private pinned: Results | null = null;
  private readonly pinButton = byId<HTMLButtonElement>('pin-results');
  private readonly unpinButton = byId<HTMLButtonElement>('unpin-results');

  constructor() {
    const table = byId<HTMLTableElement>('results-table');
    watchTableOverflow(table.parentElement!, table, byId('table-cue'));
    this.pinButton.addEventListener('click', () => {
      if (!this.current) return;
      this.pinned = this.current.results;
      this.redraw();
    });
    this.unpinButton.addEventListener('click', () => {
      this.pinned = null;
      this.redraw();
    });
  }

  /** `recommendedRegret`: the catalogue's worst_p99_regret for the recommended policy, shown on its badge. */
  show(results: Results, labelOf: (policy: string) => string, recommendedRegret?: number): void {
    this.current = { results, labelOf, recommendedRegret };
    this.redraw();
  }

  private redraw(): void {
    if (!this.current) return;
    const { results, labelOf, recommendedRegret } = this.current;
    const pinned = this.pinned;
    // The pinned run itself is on screen: nothing to compare yet.
    const compare = pinned && pinned !== results ? { results: pinned, what: pinnedDescription(pinned, results) } : null;
    const line = byId('verdict');
    const verdict = verdictLine(results, COLUMNS, labelOf);
    line.replaceChildren(...verdict.parts.map((p) => h('span', {
      class: p.kind === 'note' ? 'verdict-note' : p.kind === 'metric' ? 'verdict-part' : `verdict-${p.kind}`,
      ...(p.kind === 'metric' ? { 'data-metric': p.metric, 'data-winner': p.winner, 'data-standing': p.standing } : {}),
    }, `${p.text} `)));
    // The badge stays unless this run shows another policy clearly better (the verdict names it).
    const check = verdict.recommendation;
    const badge = { regret: recommendedRegret, shown: check.kind !== 'withheld', withheld: check.kind === 'withheld' ? check.detail : undefined };
    renderTable(byId<HTMLTableElement>('results-table'), byId('table-notes'), results, labelOf, compare, badge);
    this.pinButton.textContent = pinned ? 'Pin these instead' : 'Pin to compare';
    this.pinButton.disabled = pinned === results;
    this.unpinButton.hidden = !pinned;
    const status = pinned === results ? 'Pinned: change a setting and the table shows both runs.' : '';
    const note = byId('pin-status');
    note.textContent = status;
  }
}
