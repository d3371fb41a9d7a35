// The trace texts (trace-summary.ts), the way back from a replay (replay-cluster.ts) and the chunked feeding of a trace
// stream (trace-feed.ts): pure logic, no DOM, no module needed. The trace's
// keys in the link: page-state.test.ts.
import { describe, expect, test } from 'vitest';
import { feedStream, MAX_FEED_BYTES, type FeedStatus } from '../../web/src/worker/trace-feed';
import { cacheAdvice, EXCERPT_PRESET, overridesAfterReplay } from '../../web/src/trace/replay-cluster';
import { problemHeadline, problemText, replayedText, type TraceSummary } from '../../web/src/trace/trace-summary';
import { formatBytes } from '../../web/src/ui/format';

describe('texts', () => {
  test('problems name their line and field', () => {
    expect(problemText({ line: 3, field: 'input_length', message: 'must be an integer' })).toBe('line 3, input_length: must be an integer');
    expect(problemText({ line: 5, field: '', message: 'not valid JSON' })).toBe('line 5: not valid JSON');
    expect(problemText({ line: 0, field: '', message: 'the trace has no requests' })).toBe('trace: the trace has no requests');
  });

  const summary = (over: Partial<TraceSummary>): TraceSummary => ({
    name: 't.jsonl', bytes: 300, lines: 1, requests: 1, skippedLines: 0, format: '', contentHash: '', problems: [], unlistedProblems: 0, summaryJson: '', ...over,
  });

  test('counts take the singular for one: "stopped after 1 line", "1 request from 1 line", "1 bad line"', () => {
    const bad = { line: 1, field: 'input_length', message: 'must be an integer' };
    expect(problemHeadline(summary({ lines: 1, requests: 0, problems: [bad] }))).toBe('t.jsonl has a bad line, so reading stopped after 1 line:');
    expect(problemHeadline(summary({ lines: 3, requests: 2, problems: [{ ...bad, line: 3 }] }))).toBe('t.jsonl has a bad line, so reading stopped after 3 lines:');
    expect(problemHeadline(summary({ lines: 0, requests: 0, problems: [{ line: 0, field: '', message: 'the trace has no requests' }] }))).toBe('t.jsonl could not be replayed:');
    expect(replayedText(summary({}))).toBe('Replayed t.jsonl: 1 request from 1 line (300 B).');
    expect(replayedText(summary({ lines: 2, requests: 1, skippedLines: 1, problems: [{ ...bad, line: 2 }] })))
      .toBe('Replayed t.jsonl: 1 request from 2 lines (300 B). Skipped 1 bad line; first: line 2, input_length: must be an integer.');
    expect(replayedText(summary({ lines: 1000, requests: 998, skippedLines: 2 }))).toBe('Replayed t.jsonl: 998 requests from 1,000 lines (300 B). Skipped 2 bad lines.');
  });

  test('the trace status names the format the module read', () => {
    expect(replayedText(summary({ format: 'openai' }))).toBe('Replayed t.jsonl (openai format): 1 request from 1 line (300 B).');
  });

  test('the trace status once the replay has finished says it was replayed, not that it is replaying', () => {
    expect(replayedText(summary({}))).toMatch(/^Replayed /);
    expect(replayedText(summary({}))).not.toMatch(/Replaying/);
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

describe('back to the synthetic workload', () => {
  const keys = EXCERPT_PRESET.map(([k]) => k);

  test('puts the cluster fields the replay set back to their values before it, keeping the rest', () => {
    const before: [string, string][] = [['cluster.replicas', '6'], ['seed', '3']];
    const during: [string, string][] = [['cluster.replicas', '8'], ['cluster.cache_tokens', '1000000'], ['seed', '3'], ['policies', 'affinity']];
    const { overrides, restored } = overridesAfterReplay(during, before);
    expect(new Map(overrides)).toEqual(new Map([['cluster.replicas', '6'], ['seed', '3'], ['policies', 'affinity']]));
    expect(restored).toEqual([
      { key: 'cluster.replicas', from: '8', to: '6' },
      { key: 'cluster.cache_tokens', from: '1000000', to: null },
    ]);
    expect(keys).toEqual(['cluster.replicas', 'cluster.cache_tokens']);
  });

  test('the trace slicing fields are dropped with the trace', () => {
    const { overrides } = overridesAfterReplay([['trace.limit', '100'], ['seed', '3'], ['trace.time_scale', '2']], [['seed', '3']]);
    expect(overrides).toEqual([['seed', '3']]);
  });

  test('with no scenario before the replay (opened on a replay link), to the defaults', () => {
    const { overrides, restored } = overridesAfterReplay([['cluster.replicas', '8'], ['cluster.cache_tokens', '1000000']], null);
    expect(overrides).toEqual([]);
    expect(restored.map((r) => [r.key, r.to])).toEqual([['cluster.replicas', null], ['cluster.cache_tokens', null]]);
  });

  test('fields already as before are not reported', () => {
    const { overrides, restored } = overridesAfterReplay([['cluster.replicas', '8']], [['cluster.replicas', '8']]);
    expect(overrides).toEqual([['cluster.replicas', '8']]);
    expect(restored).toEqual([]);
  });
});

describe('a replay whose prompts outgrow the cache', () => {
  test('is advised, with the excerpt preset’s cache offered unless the hardware derives it', () => {
    // 1,000 prompts of 14,000 tokens on average against 4,000-token caches.
    expect(cacheAdvice(14_000_000, 1000, 4000, false)).toEqual({ meanPromptTokens: 14_000, cacheTokens: 4000, suggestedTokens: 1_000_000 });
    expect(cacheAdvice(14_000_000, 1000, 4000, true)).toEqual({ meanPromptTokens: 14_000, cacheTokens: 4000, suggestedTokens: null });
  });

  test('is not advised when the mean prompt fits, or there is nothing to measure', () => {
    expect(cacheAdvice(3_000_000, 1000, 4000, false)).toBeNull();
    expect(cacheAdvice(4_000_000, 1000, 4000, false)).toBeNull();
    expect(cacheAdvice(100, 0, 4000, false)).toBeNull();
    expect(cacheAdvice(100, 1, Number.NaN, false)).toBeNull();
  });

  test('offers nothing larger than the prompts need', () => {
    // Prompts larger than the preset's cache: no offer that would not help.
    expect(cacheAdvice(2e9, 1000, 4000, false)?.suggestedTokens).toBeNull();
  });
});
