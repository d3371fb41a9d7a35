// The "Some of the link could not be used" box above the results: what a
// link asked for that the page dropped or replaced, each with its field's
// label. The reader may dismiss it; the next link's notes show it again.

import { byId, h } from '../ui/dom';

export class LinkNotes {
  private readonly box = byId('link-messages');

  constructor() {
    byId('dismiss-link-messages').addEventListener('click', () => {
      this.box.hidden = true;
    });
  }

  /** Shows these notes (plain text), or hides the box when there are none. */
  show(notes: readonly string[]): void {
    const list = this.box.querySelector('ul')!;
    list.replaceChildren(...notes.map((n) => h('li', {}, n)));
    this.box.hidden = notes.length === 0;
  }
}
