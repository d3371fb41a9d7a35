// Streams a trace into the core's TraceLoader, chunk by chunk, so a file of
// any size is never held whole: Blob.stream() (a picked or dropped file) or a
// fetch() body (the shipped excerpt) yields byte chunks, each handed to the
// loader as it arrives. Bytes go in undecoded, so the content hash is the
// file's, exactly as the command line computes it (a TextDecoder would drop a
// byte-order mark and replace malformed UTF-8). Runs in the worker.

/** What the loader reports after a chunk (the module's TraceFeedStatus). */
export interface FeedStatus {
  going: boolean;
  bytes: number;
  lines: number;
  requests: number;
  error: string;
}

/** The part of the module's TraceLoader this file needs. */
export interface ChunkSink {
  feed(chunk: Uint8Array): FeedStatus;
}

/** Chunks larger than this are fed in slices: each feed copies its chunk into wasm memory. */
export const MAX_FEED_BYTES = 1 << 20;

/**
 * Feeds every chunk of `stream` to `sink` until the stream ends or the loader
 * stops (a bad line in stop mode; past trace.limit it keeps hashing). Calls onProgress
 * after each chunk. Returns the last status; the caller then calls finish().
 * A stream error rejects; the reader is released either way.
 */
export async function feedStream(
  stream: ReadableStream<Uint8Array>,
  sink: ChunkSink,
  onProgress: (status: FeedStatus) => void = () => {},
): Promise<FeedStatus> {
  const reader = stream.getReader();
  let status: FeedStatus = { going: true, bytes: 0, lines: 0, requests: 0, error: '' };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      for (let pos = 0; pos < value.length && status.going; pos += MAX_FEED_BYTES) {
        status = sink.feed(value.subarray(pos, pos + MAX_FEED_BYTES));
        if (status.error) throw new Error(status.error);
      }
      onProgress(status);
      if (!status.going) {
        await reader.cancel().catch(() => {});
        break;
      }
    }
  } finally {
    reader.releaseLock();
  }
  return status;
}
