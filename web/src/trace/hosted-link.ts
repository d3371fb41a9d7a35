// The Trace replay panel's offer to share a replayed file in one click: the
// reader gives the https address where a copy of the file is served, the
// page hashes the loaded file (SHA-256) and from then on its link carries
// `trace.url` and `trace.sha256` (state/trace-link.ts). Whoever opens the
// link gets the file fetched, checked against the hash and replayed
// (hosted-trace.ts), as an embed of a hosted trace does. Markup in
// index.html (#trace-host); text goes in through textContent.

import { hostedUrlProblem } from '../embed/embed-options';
import { byId } from '../ui/dom';
import { sha256Hex } from './hosted-trace';

export class HostedLinkForm {
  private readonly box = byId('trace-host');
  private readonly input = byId<HTMLInputElement>('trace-host-url');
  private readonly error = byId('trace-host-error');
  private readonly note = byId('trace-host-note');
  /** The replayed file the address serves a copy of (null: nothing to offer). */
  private file: File | null = null;

  constructor(onHosted: (url: string, sha256: string) => void) {
    byId<HTMLFormElement>('trace-host-form').addEventListener('submit', async (e) => {
      e.preventDefault();
      const file = this.file;
      if (!file) return;
      const url = this.input.value.trim();
      const problem = url === '' ? 'Give the https address of the copy.' : hostedUrlProblem(url);
      this.error.textContent = problem ? (url === '' ? problem : `The address ${problem}.`) : '';
      this.error.hidden = !problem;
      if (problem) return;
      const sha256 = await sha256Hex(file);
      if (this.file !== file) return; // another trace replaced it meanwhile
      onHosted(url, sha256);
      this.note.textContent =
        `The page’s link now fetches ${url} and replays it once its SHA-256 is ${sha256.slice(0, 12)}… (this file’s): ` +
        'Copy link to share it. The server must answer over https and allow other sites to read the file (Access-Control-Allow-Origin).';
      this.note.hidden = false;
    });
  }

  /** The file replayed now (null: the excerpt, a hosted copy or none: nothing to offer). */
  offer(file: File | null): void {
    if (file === this.file) return;
    this.file = file;
    this.box.hidden = file === null;
    this.error.hidden = true;
    this.note.hidden = true;
  }
}
