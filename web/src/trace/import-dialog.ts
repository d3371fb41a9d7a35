// The guided import's dialog (static markup in index.html, #import-dialog):
// what the core read from a file, how an openai log's keys were mapped (a
// select where the log leaves a choice), and the cluster the replay will
// model, with the fields to change it there, then Replay or Cancel. It only
// shows and reports the reader's choices; traffic-import.ts decides what
// runs. All text goes in through textContent.

import { byId, h } from '../ui/dom';
import { formatBytes } from '../ui/format';
import { problemHeadline, problemText, type TraceSummary } from './trace-summary';
import { type ClusterStatement, figureRows, formatName, type MappingRow, type TraceFigures } from './trace-figures';

/** The cluster fields the dialog offers, by scenario key. */
export const CLUSTER_KEYS = ['cluster.replicas', 'hardware.model', 'hardware.gpu', 'hardware.tp', 'cluster.cache_tokens'] as const;
export type ClusterKey = (typeof CLUSTER_KEYS)[number];

const INPUT_IDS: Record<ClusterKey, string> = {
  'cluster.replicas': 'import-replicas',
  'hardware.model': 'import-model',
  'hardware.gpu': 'import-gpu',
  'hardware.tp': 'import-tp',
  'cluster.cache_tokens': 'import-cache',
};

export interface ImportDialogOptions {
  /** The reader changed a mapping choice (a trace.*_field key and its value). */
  onMapping: (field: string, value: string) => void;
  /** The reader changed a cluster field (its key and the text; "" for the cache: derive it). */
  onCluster: (key: ClusterKey, value: string) => void;
  onReplay: () => void;
  onCancel: () => void;
  /** The reader chose to skip the file's bad lines and read the rest. */
  onSkipBadLines: () => void;
}

export class ImportDialog {
  private readonly dialog = byId<HTMLDialogElement>('import-dialog');
  private readonly status = byId('import-status');
  private readonly problem = byId('import-problem');
  private readonly replayButton = byId<HTMLButtonElement>('import-replay');
  private readonly onSkipBadLines: () => void;

  constructor(options: ImportDialogOptions) {
    this.onSkipBadLines = options.onSkipBadLines;
    this.replayButton.addEventListener('click', () => options.onReplay());
    byId('import-cancel').addEventListener('click', () => options.onCancel());
    // Escape closes the dialog: the import is cancelled, nothing runs.
    this.dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      options.onCancel();
    });
    for (const key of CLUSTER_KEYS) {
      const input = byId<HTMLInputElement | HTMLSelectElement>(INPUT_IDS[key]);
      input.addEventListener('change', () => options.onCluster(key, input.value.trim()));
    }
    byId('import-mapping-rows').addEventListener('change', (e) => {
      const select = e.target as HTMLSelectElement;
      if (select.dataset.field) options.onMapping(select.dataset.field, select.value);
    });
  }

  get open(): boolean {
    return this.dialog.open;
  }

  /** The model and GPU choices (the schema's hardware.model and hardware.gpu options). */
  setChoices(models: readonly string[], gpus: readonly string[]): void {
    const fill = (id: string, values: readonly string[]) =>
      byId<HTMLSelectElement>(id).replaceChildren(...values.map((v) => h('option', { value: v }, v)));
    fill('import-model', models);
    fill('import-gpu', gpus);
  }

  /** Opens the dialog on a file being read. */
  start(name: string, bytes: number): void {
    byId('import-title').textContent = `Your traffic: ${name}`;
    this.status.textContent = `Reading ${name} (${formatBytes(bytes)})…`;
    this.problem.hidden = true;
    byId('import-read').hidden = true;
    byId('import-mapping').hidden = true;
    byId('import-cluster').hidden = true;
    this.replayButton.disabled = true;
    if (!this.dialog.open) this.dialog.showModal();
  }

  /** Reading progress. */
  progress(text: string): void {
    this.status.textContent = text;
  }

  /** What the core read, and how an openai log's keys were mapped. */
  showRead(figures: TraceFigures, mapping: MappingRow[]): void {
    this.problem.hidden = true;
    this.status.textContent = `Read ${figures.name}: nothing has run yet. Check the figures and the cluster, then replay.`;
    byId('import-format').textContent = `Format: ${formatName(figures.format)}, told from its first line.`;
    byId('import-format').dataset.value = figures.format;
    byId('import-figures').replaceChildren(
      ...figureRows(figures).flatMap((row) => [
        h('dt', {}, row.label),
        h('dd', { 'data-key': row.key, 'data-value': String(row.value) }, row.text),
      ]),
    );
    byId('import-read').hidden = false;
    const rows = byId('import-mapping-rows');
    rows.replaceChildren(...mapping.map((row) => this.mappingRow(row)));
    byId('import-mapping').hidden = mapping.length === 0;
  }

  private mappingRow(row: MappingRow): HTMLElement {
    const id = `import-map-${row.part}`;
    const line = h('p', { class: 'import-map-text', 'data-part': row.part }, `${row.label} ${row.text}.`);
    if (row.choices.length === 0) return h('div', { class: 'import-map' }, line);
    const select = h('select', { id, 'data-field': row.field });
    select.replaceChildren(...row.choices.map((c) => h('option', { value: c.value }, c.text)));
    select.value = row.chosen;
    return h('div', { class: 'import-map' }, line, h('label', { for: id }, `${row.label} from (${row.field})`), select);
  }

  /** The cluster the replay will model, and the values its fields hold. */
  showCluster(statement: ClusterStatement | null, values: ReadonlyMap<ClusterKey, string>, problem: string): void {
    const text = byId('import-cluster-text');
    text.textContent = statement ? statement.text : `The cluster cannot be modelled as set: ${problem}`;
    text.dataset.replicas = statement ? String(statement.replicas) : '';
    text.dataset.cache = statement ? String(statement.cacheTokens) : '';
    text.dataset.cacheSource = statement?.cacheSource ?? '';
    for (const key of CLUSTER_KEYS) {
      const input = byId<HTMLInputElement | HTMLSelectElement>(INPUT_IDS[key]);
      input.value = values.get(key) ?? '';
    }
    byId<HTMLInputElement>('import-cache').placeholder = statement?.model && statement.model !== 'none' ? 'derived' : '';
    byId('import-cluster').hidden = false;
    this.replayButton.disabled = statement === null;
  }

  /**
   * The file could not be read: its problems, and, when reading stopped at a
   * bad line, the choice to skip the bad lines (the Trace replay panel's
   * "On a bad line" mode) and read the rest.
   */
  showProblem(summary: TraceSummary | undefined, message: string, canSkip: boolean): void {
    this.status.textContent = '';
    const items = (summary?.problems ?? []).slice(0, 5).map((p) => h('li', {}, problemText(p)));
    const skip = h('button', { id: 'import-skip', type: 'button', class: 'button' }, 'Skip bad lines and read the rest');
    skip.addEventListener('click', () => {
      this.problem.hidden = true;
      this.status.textContent = `Reading ${summary?.name ?? 'the file'} again, skipping bad lines…`;
      this.onSkipBadLines();
    });
    this.problem.replaceChildren(
      h('p', { id: 'import-problem-text' }, !summary ? message : canSkip ? problemHeadline(summary) : `${summary.name} could not be read:`),
      ...(items.length ? [h('ul', {}, ...items)] : []),
      ...(canSkip ? [skip] : []),
    );
    this.problem.hidden = false;
    byId('import-read').hidden = true;
    byId('import-mapping').hidden = true;
    byId('import-cluster').hidden = true;
    this.replayButton.disabled = true;
  }

  close(): void {
    if (this.dialog.open) this.dialog.close();
  }
}
