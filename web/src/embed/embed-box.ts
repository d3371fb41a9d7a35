// The Embed box of the full page ("Embed on another page"): the author
// chooses the view, the chart, the colours and up to three controls the
// reader may change, and copies the snippet (embed-snippet.ts).
//
// A replay of the author's own file cannot be embedded as it is: a link
// cannot carry a file, so every reader would be asked to load it. The box
// says so and offers, instead of a snippet, the shipped excerpt or a trace
// the author hosts at an https URL; for the latter it hashes the loaded
// file (SHA-256, crypto.subtle), and the embed replays the hosted file only
// if it still has that hash (hosted-trace.ts).

import { byId, h } from '../ui/dom';
import { defaultEmbedOptions, EMBED_CHARTS, EMBED_THEMES, EMBED_VIEWS, type EmbedOptions, hostedUrlProblem, MAX_READER_CONTROLS } from './embed-options';
import { sha256Hex } from '../trace/hosted-trace';
import type { PageState } from '../state/page-state';
import type { FieldInfo } from '../state/schema';
import { copyText } from '../ui/clipboard';
import { embedSnippet, hasSloBound } from './embed-snippet';
import { EXCERPT } from '../trace/trace-source';

const VIEW_LABELS: Record<(typeof EMBED_VIEWS)[number], string> = {
  'table-chart': 'Table and a chart',
  table: 'Table',
  chart: 'One chart',
  sweep: 'The sweep (its chart)',
  timeline: 'The timeline',
  capacity: 'Capacity: GPUs per policy at the SLO',
};
const CHART_LABELS: Record<(typeof EMBED_CHARTS)[number], string> = {
  ttft: 'Time to first token',
  hits: 'Cache hit rate',
  cdf: 'TTFT distribution',
  load: 'Load per replica',
};
const THEME_LABELS: Record<(typeof EMBED_THEMES)[number], string> = {
  host: 'Follow the host page',
  light: 'Light',
  dark: 'Dark',
};

/** How the embed of a replayed file is made: not at all (refused), with the excerpt, or with the file hosted at a URL. */
type FileChoice = { kind: 'refused' } | { kind: 'excerpt' } | { kind: 'hosted'; url: string; sha256: string };

/** The Embed box (index.html, #embed-details); the page (page/playground.ts) calls update() with each state shown. */
export class EmbedBox {
  private readonly view = byId<HTMLSelectElement>('embed-view');
  private readonly chart = byId<HTMLSelectElement>('embed-chart');
  private readonly theme = byId<HTMLSelectElement>('embed-theme');
  private readonly controlPickers: HTMLSelectElement[] = [];
  private readonly snippetField = byId<HTMLTextAreaElement>('embed-snippet');
  private readonly copyButton = byId<HTMLButtonElement>('copy-embed');
  private state: PageState | null = null;
  private file: File | null = null;
  /** The file the choice was made for (a new file asks again). */
  private choiceFor: File | null = null;
  private choice: FileChoice = { kind: 'refused' };
  /** The core's default policies (the schema's), for a state that names none. */
  private defaultPolicies = '';

  constructor(private readonly note: (text: string) => void) {
    const views = [...EMBED_VIEWS];
    this.view.replaceChildren(...views.map((v) => h('option', { value: v }, VIEW_LABELS[v])));
    this.chart.replaceChildren(...EMBED_CHARTS.map((c) => h('option', { value: c }, CHART_LABELS[c])));
    this.theme.replaceChildren(...EMBED_THEMES.map((t) => h('option', { value: t }, THEME_LABELS[t])));
    for (let i = 0; i < MAX_READER_CONTROLS; i++) this.controlPickers.push(byId<HTMLSelectElement>(`embed-control-${i + 1}`));
    for (const el of [this.view, this.chart, this.theme, ...this.controlPickers]) el.addEventListener('change', () => this.render());
    this.copyButton.addEventListener('click', async () => {
      const text = this.snippet();
      if (!text) return;
      const ok = await copyText(text, this.snippetField);
      this.note(ok ? 'Embed snippet copied.' : 'Copy the selected snippet.');
    });
    byId('embed-use-excerpt').addEventListener('click', () => {
      this.choiceFor = this.file;
      this.choice = { kind: 'excerpt' };
      this.render();
    });
    byId('embed-trace-form').addEventListener('submit', (event) => {
      event.preventDefault();
      void this.useHosted(byId<HTMLInputElement>('embed-trace-url').value.trim());
    });
  }

  /** Offers the scenario's fields as reader controls. */
  setFields(fields: readonly FieldInfo[]): void {
    this.defaultPolicies = fields.find((f) => f.kind === 'policies')?.defaultText ?? '';
    for (const picker of this.controlPickers) {
      picker.replaceChildren(h('option', { value: '' }, '(none)'), ...fields.map((f) => h('option', { value: f.key }, `${f.label} (${f.key})`)));
    }
  }

  /** The page now shows `state`; `file` is the uploaded file it replays, if any. */
  update(state: PageState, file: File | null): void {
    this.state = state;
    this.file = state.trace.kind === 'file' ? file : null;
    if (this.file !== this.choiceFor) this.choice = { kind: 'refused' };
    this.render();
  }

  /** The options chosen in the box (no hosted trace: that is the file's choice). */
  options(): EmbedOptions {
    const controls = [...new Set(this.controlPickers.map((p) => p.value).filter((k) => k !== ''))].slice(0, MAX_READER_CONTROLS);
    return {
      ...defaultEmbedOptions(),
      view: this.view.value as EmbedOptions['view'],
      chart: this.chart.value as EmbedOptions['chart'],
      theme: this.theme.value as EmbedOptions['theme'],
      controls,
    };
  }

  /**
   * The snippet for the state shown and the options chosen, or null when the
   * embed is refused: an uploaded file with no choice made, or the capacity
   * view of a scenario with no SLO bound (the box says what to do).
   */
  snippet(): string | null {
    const state = this.state;
    if (!state) return null;
    const options = this.options();
    if (options.view === 'capacity' && !hasSloBound(state)) return null;
    // A page link's hosted copy becomes the embed's own (embed.trace_url, embed.trace_sha256).
    if (state.trace.kind === 'hosted')
      return embedSnippet({ ...state, trace: { kind: 'none' } }, { ...options, hosted: { url: state.trace.url, sha256: state.trace.sha256 } }, undefined, this.defaultPolicies);
    if (state.trace.kind !== 'file') return embedSnippet(state, options, undefined, this.defaultPolicies);
    const onError = state.trace.onError;
    if (this.choice.kind === 'excerpt') return embedSnippet({ ...state, trace: { kind: 'excerpt', onError } }, options, undefined, this.defaultPolicies);
    if (this.choice.kind === 'hosted') {
      // The hosted file replaces the uploaded one (replayed with bad lines stopping it: the embed shows no trace panel).
      return embedSnippet({ ...state, trace: { kind: 'none' } }, { ...options, hosted: { url: this.choice.url, sha256: this.choice.sha256 } }, undefined, this.defaultPolicies);
    }
    return null;
  }

  private render(): void {
    this.chart.disabled = !(this.view.value === 'chart' || this.view.value === 'table-chart');
    const state = this.state;
    const box = byId('embed-trace');
    const refused = state?.trace.kind === 'file' && this.choice.kind === 'refused';
    box.hidden = state?.trace.kind !== 'file';
    if (state?.trace.kind === 'file') {
      const name = state.trace.name;
      byId('embed-trace-text').textContent = this.choice.kind === 'refused'
        ? `This replay is of your file “${name}”. An embed cannot carry a file: every reader would be asked to load it, so no snippet is offered. Embed the shipped excerpt instead (${EXCERPT.label}), or put the file at an https address and give it here; the embed fetches it in the reader’s browser and replays it only while it is unchanged (the link carries its SHA-256).`
        : this.choice.kind === 'excerpt'
          ? `The snippet replays the shipped excerpt (${EXCERPT.label}) with these settings, not “${name}”.`
          : `The snippet replays the file at ${this.choice.url} while its SHA-256 is ${this.choice.sha256.slice(0, 12)}… (that of “${name}”).`;
    }
    const noSlo = this.view.value === 'capacity' && state !== null && !hasSloBound(state);
    const viewNote = byId('embed-view-note');
    viewNote.hidden = !noSlo;
    viewNote.textContent = noSlo
      ? 'The capacity view searches at the SLO its link carries, and this scenario has none: type a target under Capacity (for example p99 TTFT at most 2000 ms); the snippet follows.'
      : '';
    const text = this.snippet();
    this.snippetField.value = text ?? '';
    this.snippetField.hidden = refused || noSlo;
    this.copyButton.disabled = text === null;
  }

  /** The author hosts the loaded file at `url`: hash the loaded file, so the embed can check the hosted one. */
  private async useHosted(url: string): Promise<void> {
    const error = byId('embed-trace-error');
    const problem = url === '' ? 'Give the https address of the hosted file.' : hostedUrlProblem(url);
    if (problem || !this.file) {
      error.textContent = problem ? (url === '' ? problem : `The address ${problem}.`) : 'Load the file again: its bytes are needed to compute its SHA-256.';
      error.hidden = false;
      return;
    }
    error.hidden = true;
    const file = this.file;
    const sha256 = await sha256Hex(file);
    if (this.file !== file) return; // another file came meanwhile
    this.choiceFor = file;
    this.choice = { kind: 'hosted', url, sha256 };
    this.render();
  }
}
