// Last line of defence: any uncaught error or rejected promise is shown in
// the page's alert banner instead of leaving a blank or frozen page. The
// results already on screen stay.

let banner: HTMLElement | null = null;

/** Shows a problem in the page-level banner (text only). */
export function showProblem(text: string): void {
  if (!banner) return;
  const item = document.createElement('p');
  item.textContent = text;
  banner.append(item);
  while (banner.childElementCount > 5) banner.firstElementChild?.remove();
  banner.hidden = false;
}

export function clearProblems(): void {
  if (!banner) return;
  banner.replaceChildren();
  banner.hidden = true;
}

export function installErrorBoundary(element: HTMLElement): void {
  banner = element;
  window.addEventListener('error', (e) => {
    showProblem(`Something went wrong: ${e.message || 'unknown error'}. The page keeps working with the last results.`);
  });
  window.addEventListener('unhandledrejection', (e) => {
    const reason = e.reason instanceof Error ? e.reason.message : String(e.reason);
    showProblem(`Something went wrong: ${reason}. The page keeps working with the last results.`);
  });
}

/** Runs a step; a throw becomes a banner message instead of an unhandled error. */
export function guard<T>(what: string, fn: () => T): T | undefined {
  try {
    return fn();
  } catch (error) {
    showProblem(`Could not ${what}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}
