// Light and dark colour schemes. The page follows prefers-color-scheme; the
// toggle overrides it (auto → light → dark) and is remembered in
// localStorage, except in embed mode, which never touches the host's storage.

export type ThemeChoice = 'auto' | 'light' | 'dark';
const KEY = 'prefixroute.theme';
const ORDER: ThemeChoice[] = ['auto', 'light', 'dark'];

export class Theme {
  private choice: ThemeChoice = 'auto';
  private readonly listeners: (() => void)[] = [];
  private readonly media = window.matchMedia('(prefers-color-scheme: dark)');

  constructor(private readonly persist: boolean) {
    if (persist) {
      try {
        const saved = window.localStorage.getItem(KEY);
        if (saved === 'light' || saved === 'dark') this.choice = saved;
      } catch {
        // Storage may be blocked (privacy settings, sandboxed iframes): stay on auto.
      }
    }
    this.media.addEventListener('change', () => this.notify());
    this.apply();
  }

  get current(): ThemeChoice {
    return this.choice;
  }

  /** Whether dark colours are in effect right now. */
  get dark(): boolean {
    return this.choice === 'dark' || (this.choice === 'auto' && this.media.matches);
  }

  /** Sets the scheme without remembering it (an embed's choice, or the host page's colours). */
  set(choice: ThemeChoice): void {
    if (choice === this.choice) return;
    this.choice = choice;
    this.apply();
  }

  next(): void {
    this.choice = ORDER[(ORDER.indexOf(this.choice) + 1) % ORDER.length];
    if (this.persist) {
      try {
        if (this.choice === 'auto') window.localStorage.removeItem(KEY);
        else window.localStorage.setItem(KEY, this.choice);
      } catch {
        // Not remembered; still applied.
      }
    }
    this.apply();
  }

  onChange(fn: () => void): void {
    this.listeners.push(fn);
  }

  private apply(): void {
    const root = document.documentElement;
    if (this.choice === 'auto') root.removeAttribute('data-theme');
    else root.setAttribute('data-theme', this.choice);
    this.notify();
  }

  private notify(): void {
    for (const fn of this.listeners) fn();
  }
}
