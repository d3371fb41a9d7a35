// User Timing marks and measures that keep only the latest entry of each name.
//
// The page marks every run (start, result) and measures every drawing step,
// so the browser's performance panel and the tests can see them. The browser
// keeps every entry until cleared: after thousands of re-runs the buffer would
// be the page's largest growing object. Clearing the previous entry of the
// same name keeps the buffer bounded; the tests read only the latest entry.

export function markLatest(name: string): void {
  performance.clearMarks(name);
  performance.mark(name);
}

export function measureLatest(name: string, start: number, end: number): void {
  performance.clearMeasures(name);
  performance.measure(name, { start, end });
}
