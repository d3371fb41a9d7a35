// The share link: the page's address with its state as the query
// (page-state.ts). Copy link, the exports' provenance column and the embed's
// "open in the full playground" are all made with it.

import { type PageState, pageStateToUrl } from './page-state';

/** The page's address without query or fragment, for building links. */
export function pageBase(location: Location = window.location): string {
  return `${location.origin}${location.pathname}`;
}

/** The link to the page in this state. */
export function shareLink(state: PageState, base = pageBase()): string {
  return `${base}${pageStateToUrl(state)}`;
}
