// The "Trace replay" panel: the excerpt preset button, the file picker (a
// file picked or dropped here starts the guided import, as anywhere on the
// page), the bad-line mode, and the messages about the trace (what was
// read, a bad line with the choice to skip or stop, a link whose file must be
// loaded again). It only reports the user's choices; replay-controller.ts decides
// what runs. All text goes in through textContent.

import { byId, h } from '../ui/dom';
import { formatCount } from '../ui/format';
import type { CacheAdvice } from './replay-cluster';
import type { OnError } from './trace-source';
import { formatText, problemHeadline, problemText, replayedText, type TraceSummary } from './trace-summary';

/** How many of a trace's problems the panel lists (the core keeps 100). */
const LISTED_PROBLEMS = 5;

export interface TracePanelOptions {
  onExcerpt: () => void;
  /** A file was picked: it goes to the guided import, never straight to a replay. */
  onFile: (file: File) => void;
  onModeChange: (mode: OnError) => void;
  /** The user chose to skip bad lines after a stop. */
  onSkip: () => void;
  /** The user chose to stop (dismiss the bad line). */
  onStop: () => void;
  onClear: () => void;
  /** The reader took the cache per replica the panel offered (tokens). */
  onUseCache: (tokens: number) => void;
}

/**
 * The panel's DOM (static markup in index.html). States: no trace (status
 * empty), a trace replayed (status, "back" button), a bad line (problem box
 * with skip / stop), a link waiting for its file (notice).
 */
export class TracePanel {
  private readonly mode = byId<HTMLSelectElement>('trace-on-error');
  private readonly status = byId('trace-status');
  private readonly problem = byId('trace-problem');
  private readonly linkNote = byId('trace-link-note');
  private readonly clear = byId<HTMLButtonElement>('trace-clear');
  private readonly fileInput = byId<HTMLInputElement>('trace-file');
  private readonly format = byId('trace-format');
  private readonly cacheNote = byId('trace-cache-note');
  private readonly cacheButton = byId<HTMLButtonElement>('trace-cache-use');
  /** The cache the button offers (tokens). */
  private offeredCache = 0;

  constructor(options: TracePanelOptions) {
    byId('trace-excerpt').addEventListener('click', () => options.onExcerpt());
    this.fileInput.addEventListener('change', () => {
      const file = this.fileInput.files?.[0];
      if (file) options.onFile(file);
      // The same file may be chosen again after an edit on disk.
      this.fileInput.value = '';
    });
    // A drop on the panel's zone is a drop on the page: the guided import
    // (traffic-import.ts) takes it, as it takes the file picked here.
    this.mode.addEventListener('change', () => options.onModeChange(this.mode.value === 'skip' ? 'skip' : 'stop'));
    byId('trace-skip').addEventListener('click', () => options.onSkip());
    byId('trace-stop').addEventListener('click', () => options.onStop());
    this.clear.addEventListener('click', () => options.onClear());
    this.cacheButton.addEventListener('click', () => {
      if (this.offeredCache > 0) options.onUseCache(this.offeredCache);
    });
  }

  get onError(): OnError {
    return this.mode.value === 'skip' ? 'skip' : 'stop';
  }

  set onError(mode: OnError) {
    this.mode.value = mode;
  }

  /** A trace was replayed: what was read, and the skipped lines if any. */
  showReplayed(summary: TraceSummary): void {
    this.hideProblem();
    this.linkNote.hidden = true;
    this.clear.hidden = false;
    this.status.textContent = replayedText(summary);
    this.format.textContent = formatText(summary);
    this.format.hidden = this.format.textContent === '';
  }

  /** Says when the replay's prompts outgrow the cache it ran with, offering a larger one (null: nothing to say). */
  showCacheAdvice(advice: CacheAdvice | null): void {
    this.cacheNote.hidden = advice === null;
    if (!advice) return;
    const text = byId('trace-cache-text');
    const prompt = formatCount(Math.round(advice.meanPromptTokens));
    text.textContent = `Its prompts average ${prompt} tokens, more than a replica’s cache holds (${formatCount(advice.cacheTokens)} tokens): hardly a prefix stays cached.` +
      (advice.suggestedTokens === null
        ? ' The cache comes from the hardware chosen under Deployment: a larger GPU or more GPUs per replica hold more.'
        : ' Choose a model and GPU under Deployment to derive the cache from your hardware, or set Cache per replica.');
    this.offeredCache = advice.suggestedTokens ?? 0;
    this.cacheButton.hidden = advice.suggestedTokens === null;
    this.cacheButton.textContent = `Use ${formatCount(this.offeredCache)}-token caches`;
  }

  /** The command line of the replay on screen ("" hides it). */
  showCommand(command: string): void {
    const line = byId('trace-command');
    line.textContent = command ? `Same as: ${command}` : '';
    line.hidden = command === '';
  }

  /** Opens the trace slicing fields when the scenario sets any (e.g. from a link); never closes them. */
  showSlicing(overrides: readonly (readonly [string, string])[]): void {
    if (overrides.some(([key]) => key.startsWith('trace.'))) byId<HTMLDetailsElement>('trace-slice').open = true;
  }

  /** The formats the core reads (the schema's trace.format choices), named in the panel's help. */
  setFormats(formats: readonly string[]): void {
    const named = formats.filter((f) => f !== 'auto');
    if (named.length) byId('trace-formats').textContent = `formats: ${named.join(', ')}`;
  }

  /** The trace could not be read: the problem(s), and the choice to skip bad lines or stop. */
  showProblem(summary: TraceSummary, canSkip: boolean): void {
    byId('trace-problem-text').textContent = problemHeadline(summary);
    const list = byId('trace-problem-list');
    list.replaceChildren(...summary.problems.slice(0, LISTED_PROBLEMS).map((p) => h('li', {}, problemText(p))));
    byId('trace-skip').hidden = !canSkip;
    this.problem.hidden = false;
    this.status.textContent = '';
  }

  hideProblem(): void {
    this.problem.hidden = true;
  }

  /** A message in the panel's status line (e.g. why a replay failed). */
  setStatus(text: string): void {
    this.status.textContent = text;
  }

  /** Opened from a link that replays a file: it must be loaded again. */
  showLinkNeedsFile(name: string, contentHash: string): void {
    this.linkNote.textContent =
      `This link replays the trace file “${name}”, which a link cannot carry: load the file again above` +
      `${contentHash ? ` (it must have content hash ${contentHash})` : ''}. The link’s other settings apply once it is loaded.`;
    this.linkNote.hidden = false;
  }

  /** Back to the synthetic workload. */
  reset(): void {
    this.showCommand('');
    this.format.hidden = true;
    this.cacheNote.hidden = true;
    this.hideProblem();
    this.linkNote.hidden = true;
    this.clear.hidden = true;
    this.status.textContent = '';
  }
}
