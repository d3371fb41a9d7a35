// The buttons under the results table: Copy link, Export JSON, Export CSV.
// Each acts on the run on screen and says what it did in the line beside
// them; nothing happens before the first results.

import { exportName, resultsToCsv } from '../results/export';
import type { Results } from '../results/results';
import type { PageState } from '../state/page-state';
import type { Pair } from '../state/schema';
import { shareLink } from '../state/share-link';
import { copyText } from '../ui/clipboard';
import { byId } from '../ui/dom';
import { download } from '../ui/download';
import type { TraceRequest } from '../worker/protocol';

/** The run on screen, as the exports need it. */
export interface ShownRun {
  overrides: Pair[];
  results: Results;
  resultsJson: string;
  /** The trace these results replayed, if any. */
  trace: TraceRequest | null;
}

/** What the buttons read from the page: the run on screen (null before the first) and the page's state. */
export interface ActionsHost {
  shown(): ShownRun | null;
  state(): PageState;
}

/** Shows what a button did, beside the buttons. */
export function actionNote(text: string): void {
  byId('action-status').textContent = text;
}

export function wireActions(host: ActionsHost): void {
  byId('copy-link').addEventListener('click', async () => {
    if (!host.shown()) return;
    const state = host.state();
    const ok = await copyText(shareLink(state), byId<HTMLInputElement>('link-fallback'));
    const file = state.trace.kind === 'file' ? state.trace.name : null;
    const extra = file
      ? ` It names the trace file “${file}” and its content hash, not its contents: whoever opens it must load the file again (or give the https address of a copy under Trace replay).`
      : state.trace.kind === 'hosted'
        ? ` It fetches the trace from ${state.trace.url} and replays it once its SHA-256 matches.`
        : '';
    actionNote((ok ? 'Link copied.' : 'Copy the selected link.') + extra);
  });
  byId('export-json').addEventListener('click', () => {
    const shown = host.shown();
    if (!shown) return;
    download(exportName(shown.results, 'json'), 'application/json', shown.resultsJson);
    actionNote('Results exported as JSON.');
  });
  byId('export-csv').addEventListener('click', () => {
    const shown = host.shown();
    if (!shown) return;
    download(exportName(shown.results, 'csv'), 'text/csv', resultsToCsv(
      shown.results,
      shown.trace?.onError === 'skip' ? [...shown.overrides, ['trace.on_error', 'skip']] : shown.overrides,
      shown.trace?.source.name,
      shareLink({ ...host.state(), embed: false }),
    ));
    actionNote('Results exported as CSV.');
  });
}
