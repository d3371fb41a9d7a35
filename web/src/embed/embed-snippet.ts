// The embed snippet an author pastes: an <iframe> of the page's embed layout
// (its link: the page's state, state/page-state.ts, and the embed's options,
// embed-options.ts) and the host page's few lines of script that fit the
// frame to its content and tell it the host's colours. The messages between
// the two are EMBED_MESSAGES.

import { MAX_PAGE_POLICIES } from '../state/page-scenario';
import { defaultPageState, type PageState, pageStateToUrl } from '../state/page-state';
import { pageBase } from '../state/share-link';
import { defaultEmbedOptions, type EmbedOptions, embedOptionPairs } from './embed-options';
import { fallbackHeight } from './fallback-height';

/** The message type of the embed's height reports (embed-frame.ts) and of the host's colours (the snippet's script). */
export const EMBED_MESSAGES = { height: 'prefixroute:height', hostTheme: 'prefixroute:host-theme' } as const;

/**
 * The address of the embed document. An embed that fetches a hosted trace
 * is served as embed.html: the same page under a Content-Security-Policy
 * that also allows https fetches (web/content-security-policy.mjs); every
 * other embed keeps the full page's narrower policy.
 */
export function embedBase(options: EmbedOptions, base = pageBase()): string {
  return options.hosted ? new URL('embed.html', base).href : base;
}

/** The embed's link: the state's scenario and trace, the embed flag and options (the sweep only in the sweep view). */
export function embedLink(state: PageState, options: EmbedOptions, base = pageBase()): string {
  const sweep = options.view === 'sweep' ? state.sweep : defaultPageState().sweep;
  const query = pageStateToUrl({ ...state, sweep, embed: true });
  const extra = embedOptionPairs(options).map(([k, v]) => `&${encodeURIComponent(k)}=${encodeURIComponent(v).replace(/%2C/gi, ',')}`).join('');
  return `${embedBase(options, base)}${query}${extra}`;
}

/**
 * The host page's script of the snippet: it sets the frame's height to the
 * height the embedded page posts (checking that the message comes from that
 * frame and its origin) and, for the "host" theme, answers with whether the
 * host page's background is dark. Without it the frame keeps its fallback
 * height. ES5, no globals, for any blog engine.
 */
function hostScript(): string {
  return [
    '<script>(function (f) {',
    '  var o = new URL(f.src).origin;',
    "  addEventListener('message', function (e) {",
    '    var d = e.data;',
    `    if (e.origin !== o || e.source !== f.contentWindow || !d || d.type !== '${EMBED_MESSAGES.height}') return;`,
    "    f.style.height = Math.ceil(d.height) + 'px';",
    '    if (!d.hostTheme) return;',
    // The host's background: the body's, else (transparent) the root's. String.raw keeps the regex's backslash.
    String.raw`    var rgb = function (el) { return (getComputedStyle(el).backgroundColor.match(/[\d.]+/g) || []).map(Number); };`,
    '    var c = rgb(document.body);',
    '    if (c[3] === 0) c = rgb(document.documentElement);',
    `    f.contentWindow.postMessage({ type: '${EMBED_MESSAGES.hostTheme}', dark: c.length > 2 && c[3] !== 0 && c[0] * 0.299 + c[1] * 0.587 + c[2] * 0.114 < 128 }, o);`,
    '  });',
    '})(document.currentScript.previousElementSibling);</script>',
  ].join('\n');
}

/** The SLO bounds a capacity search needs (the core refuses a search without one). */
const SLO_BOUND_KEYS = ['slo.ttft_ms', 'slo.tpot_ms'] as const;

/**
 * Whether the state sets an SLO bound (slo.ttft_ms or slo.tpot_ms above 0):
 * the capacity view searches at the link's SLO, so without one it has
 * nothing to search for.
 */
export function hasSloBound(state: PageState): boolean {
  return state.overrides.some(([key, value]) => (SLO_BOUND_KEYS as readonly string[]).includes(key) && Number(value) > 0);
}

/**
 * How many policies the embed shows: those its state names, else the core's
 * default list (`defaultPolicies`, the schema's), else as many as the bare
 * page runs at most.
 */
export function policiesShown(state: PageState, defaultPolicies = ''): number {
  const named = state.overrides.find(([key]) => key === 'policies')?.[1] ?? defaultPolicies;
  return named ? named.split(',').length : MAX_PAGE_POLICIES;
}

/**
 * What an author pastes: an <iframe> of the page's embed layout in this
 * state with these options, at a fallback height that holds its content
 * without the script (fallback-height.ts), and the few lines of host script
 * that fit it to its content.
 */
export function embedSnippet(state: PageState, options: EmbedOptions = defaultEmbedOptions(), base = pageBase(), defaultPolicies = ''): string {
  const src = embedLink(state, options, base);
  const attr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  const height = fallbackHeight(options, policiesShown(state, defaultPolicies));
  const frame = `<iframe src="${attr(src)}" title="prefixroute: prefix-cache-aware routing" width="100%" height="${height.attribute}" style="border:0;width:100%;height:${height.css};display:block" loading="lazy"></iframe>`;
  return `${frame}\n${hostScript()}`;
}
