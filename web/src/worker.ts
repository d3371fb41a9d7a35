// The simulation worker: every call into the wasm core happens here, so the
// page's main thread only draws. One run at a time; a run cannot be
// interrupted from outside except by terminating the worker, which is how the
// page cancels (see worker-client.ts). The page runs two of these workers, one
// for its scenario runs and one for sweeps; each serves both kinds of job.
//
// Trace replay: the worker reads the trace itself (a File handle or the
// excerpt's URL, streamed in chunks into the core's TraceLoader) and keeps the
// last loaded trace, so changing a cluster or policy value replays it without
// reading the file again. A terminated worker loses it; the next run reads
// the source again.
/// <reference lib="webworker" />

import { cdfPoints } from './cdf';
import { loadModule } from './load-module';
import type { PolicySeries, PrefixrouteModule, TraceLoaderHandle } from './prefixroute-module';
import type { FromWorker, RunProgress, RunRequest, ToWorker, TraceRequest, TraceSummary } from './protocol';
import { resolveOverrides } from './resolve';
import { feedStream } from './trace-feed';
import { runSweep } from './sweep-worker';
import type { Pair } from './schema';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (message: FromWorker) => scope.postMessage(message);
const progress = (id: number, p: RunProgress) => post({ type: 'progress', id, progress: p });

/** Progress messages at most this often: enough for a smooth bar, cheap for the page. */
const PROGRESS_INTERVAL_MS = 50;

function policiesOf(scenarioJson: string): string[] {
  try {
    const doc = JSON.parse(scenarioJson) as { policies?: unknown };
    return Array.isArray(doc.policies) ? doc.policies.map(String) : [];
  } catch {
    return [];
  }
}

/** The last trace read, by source key and bad-line mode. */
let loaded: { key: string; loader: TraceLoaderHandle; summary: TraceSummary } | null = null;

/** The bytes of a trace source, as a stream (never read whole). */
async function openSource(request: TraceRequest): Promise<ReadableStream<Uint8Array>> {
  const source = request.source;
  if (source.kind === 'file') return source.file.stream() as ReadableStream<Uint8Array>;
  const response = await fetch(source.url);
  if (!response.ok || !response.body) throw new Error(`the trace excerpt could not be fetched (HTTP ${response.status})`);
  return response.body;
}

/**
 * Reads the requested trace (or reuses the loaded one). Returns the loader, or
 * null after posting a 'failed' message naming the bad line.
 */
async function loadTrace(mod: PrefixrouteModule, id: number, request: TraceRequest): Promise<TraceLoaderHandle | null> {
  const key = `${request.source.key}|${request.onError}`;
  if (loaded?.key === key) return loaded.loader;
  loaded?.loader.delete();
  loaded = null;
  const loader = new mod.TraceLoader(request.source.name, '{}', JSON.stringify([['trace.on_error', request.onError]]));
  let last = 0;
  const totalBytes = request.source.bytes;
  const name = request.source.name;
  try {
    progress(id, { kind: 'read', name, bytes: 0, totalBytes, lines: 0, requests: 0 });
    await feedStream(await openSource(request), loader, (s) => {
      const now = performance.now();
      if (now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      progress(id, { kind: 'read', name, bytes: s.bytes, totalBytes, lines: s.lines, requests: s.requests });
    });
  } catch (error) {
    loader.delete();
    throw error;
  }
  const r = loader.finish();
  const summary: TraceSummary = {
    name: r.name,
    bytes: r.bytes,
    lines: r.lines,
    requests: r.requests,
    skippedLines: r.skippedLines,
    contentHash: r.contentHash,
    problems: r.problems,
    unlistedProblems: r.unlistedProblems,
  };
  if (!r.ok) {
    loader.delete();
    const first = r.problems[0];
    const where = first ? `${first.line > 0 ? `line ${first.line}` : 'the trace'}${first.field ? `, ${first.field}` : ''}: ${first.message}` : 'no requests';
    post({ type: 'failed', id, message: `${name} could not be read: ${where}`, trace: summary });
    return null;
  }
  loaded = { key, loader, summary };
  return loader;
}

async function run(mod: PrefixrouteModule, id: number, { overrides, trace }: RunRequest): Promise<void> {
  const started = performance.now();
  const resolved = resolveOverrides((o) => mod.validateScenario('{}', JSON.stringify(o)), overrides);
  const policies = policiesOf(resolved.scenarioJson);
  let last = 0;
  const onProgress = (policyIndex: number, done: number, total: number) => {
    const now = performance.now();
    if (now - last >= PROGRESS_INTERVAL_MS || done === total) {
      last = now;
      progress(id, { kind: 'policy', policyIndex, policyCount: policies.length, policy: policies[policyIndex] ?? '', done, total });
    }
    return true;
  };
  let outcome: { ok: true; resultsJson: string; series: PolicySeries[]; scenarioJson?: string } | { ok: false; errors: { field: string; message: string }[] };
  let summary: TraceSummary | undefined;
  if (trace) {
    const loader = await loadTrace(mod, id, trace);
    if (!loader) return;
    summary = loaded?.summary;
    const traceOverrides: Pair[] = [...resolved.accepted, ['trace.on_error', trace.onError]];
    if (trace.contentHash) traceOverrides.push(['trace.content_hash', trace.contentHash]);
    outcome = mod.runTrace(loader, '{}', JSON.stringify(traceOverrides), onProgress);
  } else {
    outcome = mod.runScenario('{}', JSON.stringify(resolved.accepted), onProgress);
  }
  if (!outcome.ok) {
    const text = outcome.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
    post({ type: 'failed', id, message: text || 'the run failed' });
    return;
  }
  post({
    type: 'done',
    id,
    result: {
      resultsJson: outcome.resultsJson,
      scenarioJson: outcome.scenarioJson ?? resolved.scenarioJson,
      accepted: resolved.accepted,
      rejected: resolved.rejected,
      cdf: outcome.series.map((s) => ({ policy: s.policy, ...cdfPoints(s.ttftMs) })),
      timelines: outcome.series.flatMap((s) => (s.timeline ? [{ policy: s.policy, ...s.timeline }] : [])),
      elapsedMs: performance.now() - started,
      memory: mod.memoryStats(),
      ...(summary ? { trace: summary } : {}),
    },
  });
}

// Registered synchronously: awaiting the module first could lose the first message.
scope.onmessage = async (event: MessageEvent<ToWorker>) => {
  const message = event.data;
  const id = message.type === 'job' ? message.id : null;
  try {
    const mod = await loadModule();
    if (message.type === 'init') {
      post({ type: 'ready', schema: mod.scenarioSchema(), catalogue: mod.policyCatalogue() });
    } else if (message.kind === 'run') {
      await run(mod, message.id, message.request);
    } else if (message.kind === 'sweep') {
      runSweep(mod, message.id, message.request, post);
    }
  } catch (error) {
    post({ type: 'failed', id, message: error instanceof Error ? error.message : String(error) });
  }
};
