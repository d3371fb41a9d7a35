// The trace a simulation worker holds: read from its source (a File or
// Blob handle, or the excerpt's URL), streamed in chunks into the core's
// TraceLoader, and kept by source key, bad-line mode and reading settings
// (trace.start_s, end_s, limit, time_scale: a change reads it again), so changing a
// cluster or policy value replays it without reading it again. A terminated
// worker loses it; the next run reads the source again (the page's pool hands
// its workers an in-memory copy, so that is never the file: worker-pool.ts).
/// <reference lib="webworker" />

import type { PrefixrouteModule, TraceLoaderHandle } from './prefixroute-module';
import type { FromWorker, RunProgress, TraceRequest } from './protocol';
import type { TraceSummary } from '../trace/trace-summary';
import type { Pair } from '../state/schema';
import { feedStream } from './trace-feed';

/** Progress messages at most this often: enough for a smooth bar, cheap for the page. */
export const PROGRESS_INTERVAL_MS = 50;

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
 * Reads the requested trace (or reuses the loaded one) with the scenario's
 * trace reading settings (`settings`: its trace.* pairs). Returns the loader,
 * or null after posting a 'failed' message naming the bad line.
 */
export async function loadTrace(
  mod: PrefixrouteModule,
  id: number,
  request: TraceRequest,
  post: (message: FromWorker) => void,
  settings: Pair[] = [],
): Promise<TraceLoaderHandle | null> {
  const key = `${request.source.key}|${request.onError}|${JSON.stringify(settings)}`;
  if (loaded?.key === key) return loaded.loader;
  loaded?.loader.delete();
  loaded = null;
  const loader = new mod.TraceLoader(request.source.name, '{}', JSON.stringify([...settings, ['trace.on_error', request.onError]]));
  const progress = (p: RunProgress) => post({ type: 'progress', id, progress: p });
  let last = 0;
  const totalBytes = request.source.bytes;
  const name = request.source.name;
  try {
    progress({ kind: 'read', name, bytes: 0, totalBytes, lines: 0, requests: 0 });
    await feedStream(await openSource(request), loader, (s) => {
      const now = performance.now();
      if (now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      progress({ kind: 'read', name, bytes: s.bytes, totalBytes, lines: s.lines, requests: s.requests });
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
    format: r.format,
    contentHash: r.contentHash,
    problems: r.problems,
    unlistedProblems: r.unlistedProblems,
    summaryJson: r.summaryJson,
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

/** The summary of the trace loadTrace last read (undefined when none is held). */
export function loadedSummary(): TraceSummary | undefined {
  return loaded?.summary;
}
