// The cue over a results table wider than its box (a phone, or many
// columns): it names the columns out of view and which way to scroll for
// them, so nobody takes the columns they can see for all there are. Kept up
// to date as the box resizes, the table is redrawn and the reader scrolls.
// Cost: one layout read of the header cells per change, batched per frame.

/** The columns of `table` (header cells with data-col) not fully inside its scrolling `wrap`, by side. */
export function columnsOutOfView(wrap: HTMLElement, table: HTMLTableElement): { left: string[]; right: string[] } {
  const box = wrap.getBoundingClientRect();
  const left: string[] = [];
  const right: string[] = [];
  for (const th of table.querySelectorAll<HTMLTableCellElement>('thead th[data-col]')) {
    const r = th.getBoundingClientRect();
    if (r.width === 0) continue; // a column the layout hides
    const name = th.firstChild?.textContent?.trim() ?? th.dataset.col ?? '';
    if (r.right > box.right + 1) right.push(name);
    else if (r.left < box.left - 1) left.push(name);
  }
  return { left, right };
}

/** The cue's sentence for these columns ('' when every column is in view). */
export function cueText(out: { left: string[]; right: string[] }): string {
  const parts: string[] = [];
  if (out.right.length) parts.push(`→ ${out.right.join(', ')}`);
  if (out.left.length) parts.push(`← ${out.left.join(', ')}`);
  if (!parts.length) return '';
  const n = out.left.length + out.right.length;
  return `Scroll the table sideways for ${n} more column${n === 1 ? '' : 's'}: ${parts.join('; ')}.`;
}

/** Keeps `cue` saying which of `table`'s columns its box `wrap` cuts off (hidden when none). */
export function watchTableOverflow(wrap: HTMLElement, table: HTMLTableElement, cue: HTMLElement): void {
  let queued = false;
  const update = () => {
    queued = false;
    const text = table.tBodies.length ? cueText(columnsOutOfView(wrap, table)) : '';
    if (cue.textContent !== text) cue.textContent = text;
    cue.hidden = text === '';
    wrap.classList.toggle('cut-right', /→/.test(text));
  };
  // In the next frame, not inside an observer's callback (a layout change there would loop).
  const queue = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(update);
  };
  new ResizeObserver(queue).observe(wrap);
  new MutationObserver(queue).observe(table, { childList: true });
  wrap.addEventListener('scroll', queue, { passive: true });
}
