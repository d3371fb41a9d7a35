// The guided import of one's own traffic: a file picked from the control at
// the top of the page ("Use your own traffic") or the Trace replay panel's
// picker, or dropped anywhere on the page (the panel's zone included), is
// read by the core first (the pool's 'inspect' job: the worker keeps the
// parsed trace for the replay), and the dialog (import-dialog.ts) states
// what was read, how an openai log's keys were mapped (a choice is a
// trace.*_field scenario field), and the cluster the replay will model,
// from the core's derived values. Nothing runs until the reader presses
// Replay; the cluster is the one on screen unless the reader changes it in
// the dialog, and only the fields they change become overrides.
// It is the one way a file of the reader's reaches a replay.

import type { FieldInfo, Pair } from '../state/schema';
import { byId } from '../ui/dom';
import { formatBytes, formatCountOf } from '../ui/format';
import type { InspectRequest, InspectResult, RunProgress } from '../worker/protocol';
import { RunAborted } from '../worker/worker-client';
import { CLUSTER_KEYS, type ClusterKey, ImportDialog } from './import-dialog';
import { applyEdits } from './import-edits';
import { clusterStatement, mappingRows, parseTraceFigures } from './trace-figures';
import { fileSource, type OnError, type TraceSource } from './trace-source';

/** What the import asks of the page. */
export interface ImportHost {
  /** Reads the trace and describes it and the cluster (the run pool's inspect job). */
  inspect(request: InspectRequest, onProgress: (p: RunProgress) => void): Promise<InspectResult>;
  /** The scenario the import starts from (a link's waiting for its file, else the one on screen) and the content hash it expects. */
  base(): { overrides: Pair[]; contentHash: string };
  /** The bad-line mode of the Trace replay panel. */
  onError(): OnError;
  /** Sets that mode (the reader chose to skip bad lines in the dialog). */
  setOnError(mode: OnError): void;
  /** Replays the source with these overrides (the reader pressed Replay). */
  replay(source: TraceSource, overrides: Pair[], contentHash: string): void;
}

/** Whether a drag carries files. */
function hasFiles(e: DragEvent): boolean {
  return Array.from(e.dataTransfer?.types ?? []).includes('Files');
}

export class TrafficImport {
  private readonly dialog: ImportDialog;
  /** The file being imported (its source key is the worker's cache key for the parsed trace). */
  private source: TraceSource | null = null;
  private base: { overrides: Pair[]; contentHash: string } = { overrides: [], contentHash: '' };
  /** What the reader changed in the dialog: mapping choices and cluster fields (null: back to the default / derived). */
  private readonly edits = new Map<string, string | null>();
  /** Counts inspections: an answer to an older one is dropped. */
  private asked = 0;
  private readable = false;

  constructor(private readonly host: ImportHost) {
    this.dialog = new ImportDialog({
      onMapping: (field, value) => {
        this.edits.set(field, value === 'auto' ? null : value);
        void this.inspect();
      },
      onCluster: (key, value) => {
        this.edits.set(key, value === '' ? null : value);
        void this.inspect();
      },
      onReplay: () => this.replay(),
      onCancel: () => this.cancel(),
      onSkipBadLines: () => {
        this.host.setOnError('skip');
        void this.inspect();
      },
    });
    const picker = byId<HTMLInputElement>('import-file');
    byId('import-open').addEventListener('click', () => picker.click());
    picker.addEventListener('change', () => {
      const file = picker.files?.[0];
      if (file) this.start(file);
      picker.value = ''; // the same file may be chosen again
    });
    this.wireDrops();
  }

  /** The model and GPU choices, from the schema. */
  setFields(fields: readonly FieldInfo[]): void {
    const options = (key: string) => fields.find((f) => f.key === key)?.options ?? [];
    this.dialog.setChoices(options('hardware.model'), options('hardware.gpu'));
  }

  /** A drop anywhere on the page starts an import; a missed drop never opens the file in the tab. */
  private wireDrops(): void {
    document.addEventListener('dragover', (e) => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
      document.body.classList.add('drop-import');
    });
    document.addEventListener('dragleave', (e) => {
      if (e.relatedTarget === null) document.body.classList.remove('drop-import');
    });
    document.addEventListener('drop', (e) => {
      document.body.classList.remove('drop-import');
      if (!hasFiles(e)) return;
      e.preventDefault();
      const file = e.dataTransfer?.files?.[0];
      if (file) this.start(file);
    });
  }

  /** Starts the import of a file: read it, then show what was read. */
  start(file: File): void {
    this.source = fileSource(file);
    this.base = this.host.base();
    this.edits.clear();
    this.dialog.start(file.name, file.size);
    void this.inspect();
  }

  private overrides(): Pair[] {
    return applyEdits(this.base.overrides, this.edits);
  }

  private async inspect(): Promise<void> {
    const source = this.source;
    if (!source) return;
    const token = ++this.asked;
    const request: InspectRequest = { overrides: this.overrides(), trace: { source, onError: this.host.onError(), contentHash: this.base.contentHash } };
    let result: InspectResult;
    try {
      result = await this.host.inspect(request, (p) => {
        if (token === this.asked && p.kind === 'read')
          this.dialog.progress(`Reading ${p.name}: ${formatBytes(p.bytes)} of ${formatBytes(p.totalBytes)}, ${formatCountOf(p.requests, 'request')}…`);
      });
    } catch (error) {
      if (token !== this.asked || !this.dialog.open) return;
      this.readable = false;
      const trace = error instanceof RunAborted ? error.trace : undefined;
      const badLine = request.trace.onError === 'stop' && (trace?.problems.some((p) => p.line > 0) ?? false);
      this.dialog.showProblem(trace, error instanceof Error ? error.message : String(error), badLine);
      return;
    }
    if (token !== this.asked || !this.dialog.open) return;
    const figures = parseTraceFigures(result.trace.summaryJson);
    if (!figures) {
      this.dialog.showProblem(result.trace, 'the core reported no figures for this file', false);
      return;
    }
    this.readable = true;
    this.dialog.showRead(figures, mappingRows(figures));
    const values = new Map<ClusterKey, string>();
    try {
      const doc = JSON.parse(result.scenarioJson) as Record<string, Record<string, unknown>>;
      for (const key of CLUSTER_KEYS) {
        const [group, name] = key.split('.');
        const v = doc[group]?.[name];
        values.set(key, v === null || v === undefined ? '' : String(v));
      }
    } catch {
      // No values to show: the statement below says why.
    }
    const problem = result.rejected.map((r) => `${r.key}: ${r.message}`).join('; ');
    this.dialog.showCluster(result.rejected.length ? null : clusterStatement(result.scenarioJson, result.hardwareJson), values, problem);
  }

  private replay(): void {
    if (!this.source || !this.readable) return;
    const source = this.source;
    const overrides = this.overrides();
    this.source = null;
    this.dialog.close();
    this.host.replay(source, overrides, this.base.contentHash);
  }

  private cancel(): void {
    this.source = null;
    ++this.asked;
    this.dialog.close();
  }
}
