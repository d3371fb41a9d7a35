// Share links and the embed snippet: the page's address with its state as
// the query (page-state.ts).

import { defaultPageState, type PageState, pageStateToUrl } from './page-state';

/** The page's address without query or fragment, for building links. */
export function pageBase(location: Location = window.location): string {
  return `${location.origin}${location.pathname}`;
}

/** The link to the page in this state. */
export function shareLink(state: PageState, base = pageBase()): string {
  return `${base}${pageStateToUrl(state)}`;
}

/** An <iframe> of the page in this state's embed layout (which has no Sweep section: the sweep stays out of it). */
export function embedSnippet(state: PageState, base = pageBase()): string {
  const src = shareLink({ ...state, sweep: defaultPageState().sweep, embed: true }, base);
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
