// The trace texts (trace-source.ts) and the chunked feeding of a trace
// stream (trace-feed.ts): pure logic, no DOM, no module needed. The trace's
// keys in the link: page-state.test.ts.
import { describe, expect, test } from 'vitest';
import { feedStream, MAX_FEED_BYTES, type FeedStatus } from '../../web/src/trace-feed';
import { formatBytes, problemText } from '../../web/src/trace-source';

describe('texts', () => {
  test('problems name their line and field', () => {
    expect(problemText({ line: 3, field: 'input_length', message: 'must be an integer' })).toBe('line 3, input_length: must be an integer');
    expect(problemText({ line: 5, field: '', message: 'not valid JSON' })).toBe('line 5: not valid JSON');
    expect(problemText({ line: 0, field: '', message: 'the trace has no requests' })).toBe('trace: the trace has no requests');
  });

  test('byte counts', () => {
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(251_546)).toBe('251.5 KB');
    expect(formatBytes(104_857_600)).toBe('104.9 MB');
  });
});

/** A sink that records what it was fed and stops after `stopAfter` bytes. */
function recordingSink(stopAfter = Infinity) {
  const fed: Uint8Array[] = [];
  let bytes = 0;
  return {
    fed,
    feed(chunk: Uint8Array): FeedStatus {
      fed.push(chunk.slice());
      bytes += chunk.length;
      return { going: bytes < stopAfter, bytes, lines: 0, requests: 0, error: '' };
    },
  };
}

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]);
      else controller.close();
    },
  });
}

describe('feedStream', () => {
  test('feeds every byte in order, slicing chunks larger than MAX_FEED_BYTES', async () => {
    const big = new Uint8Array(MAX_FEED_BYTES * 2 + 5).map((_, i) => i % 251);
    const small = new Uint8Array([1, 2, 3]);
    const sink = recordingSink();
    const progress: number[] = [];
    const last = await feedStream(streamOf([small, big]), sink, (s) => progress.push(s.bytes));
    expect(sink.fed.map((c) => c.length)).toEqual([3, MAX_FEED_BYTES, MAX_FEED_BYTES, 5]);
    const joined = new Uint8Array(sink.fed.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of sink.fed) {
      joined.set(c, at);
      at += c.length;
    }
    // Buffer.compare: a deep equality of 2 MB would take a minute.
    expect(Buffer.compare(joined.subarray(3), big)).toBe(0);
    expect(progress).toEqual([3, 3 + big.length]);
    expect(last.bytes).toBe(3 + big.length);
  });

  test('stops reading once the loader stops (a bad line in stop mode)', async () => {
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(10));
      },
    });
    const last = await feedStream(stream, recordingSink(25));
    expect(last.going).toBe(false);
    expect(pulled).toBeLessThan(6);
  });

  test('a loader error rejects instead of being ignored', async () => {
    const sink = { feed: (): FeedStatus => ({ going: false, bytes: 0, lines: 0, requests: 0, error: 'the loader has finished' }) };
    await expect(feedStream(streamOf([new Uint8Array(1)]), sink)).rejects.toThrow('the loader has finished');
  });
});
