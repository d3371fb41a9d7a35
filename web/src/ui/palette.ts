// The page's colours as script needs them. The stylesheet gives each colour
// once as light-dark(…) and `color-scheme` picks the side, so a custom
// property read back is not yet a colour: readPalette() resolves it on a
// hidden probe element, for the scheme in effect. A policy's colour comes
// from the module's policy catalogue (light and dark): applyPolicyColours()
// keeps the side of the scheme in effect as --policy-<name> on the root, for
// the swatches, and for the charts.

import { h } from './dom';
import type { PolicyInfo } from '../worker/prefixroute-module';

/** The charts' colours, resolved for the scheme in effect (CSS colour strings). */
export interface Palette {
  fg: string;
  muted: string;
  grid: string;
  accent: string;
  accent2: string;
  bound: string;
  /** A policy's catalogue colour; the muted colour for a name the catalogue lacks. */
  policy: (name: string) => string;
}

/** Policy name → its colour in the scheme last applied. */
let policyColours = new Map<string, string>();

/** The custom property holding a policy's colour. Catalogue names are [a-z0-9_], valid in a property name. */
function policyProperty(name: string): string {
  return `--policy-${name}`;
}

/**
 * Sets every catalogue policy's colour for the scheme in effect as
 * --policy-<name> on the root element. Call once the catalogue is known and
 * again on every theme change (before the charts re-read their palette).
 * Through the CSSOM, which the Content-Security-Policy allows (it forbids
 * style attributes in markup, not script-set styles).
 */
export function applyPolicyColours(catalogue: readonly PolicyInfo[], dark: boolean): void {
  const root = document.documentElement.style;
  const next = new Map<string, string>();
  for (const p of catalogue) {
    const colour = dark ? p.colours.dark : p.colours.light;
    next.set(p.name, colour);
    root.setProperty(policyProperty(p.name), colour);
  }
  policyColours = next;
}

/** A small square in a policy's colour (decorative: the label beside it names the policy). */
export function policySwatch(name: string): HTMLSpanElement {
  const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
  // A reference, not the colour: a theme change recolours it through the root.
  swatch.style.setProperty('--swatch', `var(${policyProperty(name)})`);
  return swatch;
}

/** Reads the page's colours now (call again after a theme change). */
export function readPalette(): Palette {
  const probe = h('span', { hidden: true });
  document.body.append(probe);
  try {
    const computed = getComputedStyle(probe);
    // The probe's colour set to the property: its computed colour is the property resolved.
    const resolve = (property: string, fallback: string): string => {
      probe.style.setProperty('color', `var(${property}, ${fallback})`);
      return computed.color || fallback;
    };
    const muted = resolve('--muted', '#5b6570');
    return {
      fg: resolve('--fg', '#1b1f24'),
      muted,
      grid: resolve('--grid', 'rgba(0, 0, 0, 0.08)'),
      accent: resolve('--accent', '#2f6fde'),
      accent2: resolve('--accent-2', '#e0892b'),
      bound: resolve('--bound', '#c9ced6'),
      // The colours applied last, looked up when drawn: a palette read before the catalogue came still gets them.
      policy: (name) => policyColours.get(name) ?? muted,
    };
  } finally {
    probe.remove();
  }
}
