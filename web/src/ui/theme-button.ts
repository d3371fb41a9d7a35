// The header's theme toggle: it steps the Theme through auto, light and dark
// and names the choice in effect (also for screen readers).

import { byId } from './dom';
import type { Theme } from './theme';

const NAMES = { auto: 'Auto', light: 'Light', dark: 'Dark' } as const;

/** Wires the toggle to `theme`; its text follows every change of the theme. */
export function wireThemeButton(theme: Theme): void {
  const button = byId('theme-toggle');
  const update = () => {
    button.textContent = `Theme: ${NAMES[theme.current]}`;
    button.setAttribute('aria-label', `Colour scheme: ${NAMES[theme.current]}. Change colour scheme`);
  };
  button.addEventListener('click', () => theme.next());
  theme.onChange(update);
  update();
}
