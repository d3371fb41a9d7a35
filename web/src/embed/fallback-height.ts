// The frame's height when the host page runs no script (many blog platforms
// strip <script>): the snippet's own script never resizes it, so the height
// written in the snippet must hold the view's content at whatever width the
// frame gets. Content grows as the column narrows (text wraps, the table
// takes its narrow layout, the reader controls stack), with the table's rows
// and the charts' legends, and with the reader controls.
//
// The model, for a blog column at most 700 px wide with 20 px margins (the
// frame then has the viewport's width less 40 px below 740 px, 700 px
// above): a content height per view measured in Chromium at viewport widths
// 320 and 700 px and on a wide screen (tests/e2e/embed.test.mjs checks the
// result at 390, 700 and 1200 px), each linear in the policies shown (2, 8
// and 16 measured; the bound over them taken; the capacity view once its
// search has drawn the sentence, the bars and the curve). The snippet's CSS height is
//   max(wide, the line through (320 px, narrow) and (700 px, mid) in vw),
// which lies above the content between the two widths (content falls ever
// more slowly as the column widens), keeps rising below 320 px and stays at
// `wide` on a wide screen; plus a margin for fonts and longer text. Its
// height attribute, for hosts that also strip style attributes, is the
// 320 px height: too tall on a desktop, never cut off.

import type { EmbedOptions, EmbedView } from './embed-options';

/** A height a + b x policies, in CSS pixels. */
interface Linear {
  a: number;
  b: number;
}

/** Per view: its content at viewport widths 320 px (narrow), 700 px (mid) and 1200 px (wide). */
const VIEW_HEIGHTS: Record<EmbedView, { narrow: Linear; mid: Linear; wide: Linear }> = {
  table: { narrow: { a: 734, b: 74 }, mid: { a: 429, b: 71.5 }, wide: { a: 360, b: 74.5 } },
  chart: { narrow: { a: 809, b: 0 }, mid: { a: 621, b: 0 }, wide: { a: 577, b: 0 } },
  sweep: { narrow: { a: 1111, b: 31.5 }, mid: { a: 826, b: 11.7 }, wide: { a: 810, b: 8.2 } },
  'table-chart': { narrow: { a: 1061, b: 74 }, mid: { a: 771, b: 71.5 }, wide: { a: 702, b: 74.7 } },
  timeline: { narrow: { a: 1455, b: 0 }, mid: { a: 1141, b: 0 }, wide: { a: 1118, b: 0 } },
  capacity: { narrow: { a: 1089, b: 100.7 }, mid: { a: 908, b: 53.2 }, wide: { a: 914, b: 35.3 } },
};

/** The reader controls: stacked one per row on a narrow column, side by side from 700 px. */
function controlsHeight(count: number, at: 'narrow' | 'mid' | 'wide'): number {
  if (count === 0) return 0;
  return at === 'narrow' ? 60 + 71 * count : 101;
}

/** The margin over the measured content: other fonts, a longer verdict or notes. */
const margin = (px: number) => Math.ceil(px * 1.05 + 40);

/** The viewport widths of the model's two points (CSS px). */
const NARROW_VW = 320;
const MID_VW = 700;

/** The frame's fallback height: `css`, the responsive height for its style; `attribute`, its height attribute. */
export interface FallbackHeight {
  css: string;
  attribute: number;
}

/** The fallback height of an embed of these options showing `policies` policies (see above). */
export function fallbackHeight(options: EmbedOptions, policies: number): FallbackHeight {
  const view = VIEW_HEIGHTS[options.view];
  const controls = options.controls.length;
  const at = (where: 'narrow' | 'mid' | 'wide') => margin(view[where].a + view[where].b * policies + controlsHeight(controls, where));
  const narrow = at('narrow');
  const mid = at('mid');
  const wide = at('wide');
  // The line through (NARROW_VW, narrow) and (MID_VW, mid): height = intercept - slope x viewport width.
  const slope = (narrow - mid) / (MID_VW - NARROW_VW);
  const intercept = narrow + slope * NARROW_VW;
  const css = slope > 0 ? `max(${wide}px, calc(${Math.ceil(intercept)}px - ${(slope * 100).toFixed(2)}vw))` : `${Math.max(narrow, wide)}px`;
  return { css, attribute: Math.max(narrow, wide) };
}
