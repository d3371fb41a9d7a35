// Share links and the embed snippet. The link is the page's address with the
// scenario's non-default values as query keys (see url-state.ts).

import { encodeUrlState, type Pair } from './url-state';

/** The page's address without query or fragment, for building links. */
export function pageBase(location: Location = window.location): string {
  return `${location.origin}${location.pathname}`;
}

/** The link to the page with these overrides (and `extra` pairs: the sweep's keys). */
export function shareLink(overrides: readonly Pair[], base = pageBase(), extra: readonly Pair[] = []): string {
  return `${base}${encodeUrlState(overrides, { extra })}`;
}

export function embedSnippet(overrides: readonly Pair[], base = pageBase()): string {
  const src = `${base}${encodeUrlState(overrides, { embed: true })}`;
  const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<iframe src="${attr(src)}" title="prefixroute: prefix-cache-aware routing" width="100%" height="560" style="border:0" loading="lazy"></iframe>`;
}

/** Copies text; falls back to selecting it in the given field when the clipboard API is refused. */
export async function copyText(text: string, fallbackField?: HTMLInputElement | HTMLTextAreaElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (fallbackField) {
      fallbackField.value = text;
      fallbackField.hidden = false;
      fallbackField.focus();
      fallbackField.select();
    }
    return false;
  }
}
