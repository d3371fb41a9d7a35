// Main-thread tasks from a Chromium trace, with their CPU time. A long task
// (PerformanceObserver 'longtask') is measured in wall-clock time, which on a
// busy machine includes time the thread was not even scheduled; the trace's
// thread time (tdur) says how much work the task really did.

/** Starts tracing the page's renderer; returns stop(), which resolves to the task list. */
export async function startTrace(context, page) {
  const cdp = await context.newCDPSession(page);
  const events = [];
  cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
  await cdp.send('Tracing.start', {
    categories: 'toplevel,blink.user_timing,devtools.timeline,disabled-by-default-devtools.timeline',
    options: 'record-until-full',
    transferMode: 'ReportEvents',
  });
  return async function stop() {
    const done = new Promise((ok) => cdp.once('Tracing.tracingComplete', ok));
    await cdp.send('Tracing.end');
    await done;
    await cdp.detach();
    return analyse(events);
  };
}

/** Tasks of the renderer main thread between two user-timing marks (by name, last occurrence). */
function analyse(events) {
  const mainThreads = new Set(
    events.filter((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain').map((e) => `${e.pid}:${e.tid}`),
  );
  const mark = (name) => events.filter((e) => e.name === name && e.cat?.includes('blink.user_timing')).at(-1);
  const tasks = events
    .filter((e) => e.ph === 'X' && e.name === 'RunTask' && mainThreads.has(`${e.pid}:${e.tid}`))
    .map((e) => ({ ts: e.ts, wallMs: e.dur / 1000, cpuMs: (e.tdur ?? e.dur) / 1000, pid: e.pid }));
  return {
    between(startName, endName) {
      const a = mark(startName);
      const b = mark(endName);
      if (!a || !b) throw new Error(`trace lacks the marks ${startName} / ${endName}`);
      return tasks.filter((t) => t.pid === a.pid && t.ts >= a.ts && t.ts + t.wallMs * 1000 <= b.ts);
    },
    after(name) {
      const a = mark(name);
      if (!a) throw new Error(`trace lacks the mark ${name}`);
      return tasks.filter((t) => t.pid === a.pid && t.ts + t.wallMs * 1000 > a.ts);
    },
  };
}
