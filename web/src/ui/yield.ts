// Start-up work is split into tasks so that no one task blocks the main
// thread for long (never more than 50 ms at a time).

/** How long to wait for a frame before going on without one (a hidden tab draws none). */
const NO_FRAME_MS = 100;

/**
 * Resolves in a task just after the next frame is drawn: the browser has
 * then laid out what the previous tasks built, so work that measures the page
 * (a chart sizing its canvas) forces no layout, and the page has painted.
 */
export function afterNextPaint(): Promise<void> {
  return new Promise((resolve) => {
    const fallback = setTimeout(resolve, NO_FRAME_MS);
    requestAnimationFrame(() => {
      clearTimeout(fallback);
      setTimeout(resolve, 0);
    });
  });
}

/** Resolves in a task of its own, after the tasks already queued (a frame may come first). */
export function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
