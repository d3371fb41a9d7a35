// The results table's per-session columns (table.ts): shown only when the
// core reports per-session figures (workloads with sessions).
import { describe, expect, test } from 'vitest';
import type { PolicyResult } from '../../web/src/results/results';
import { COLUMNS, columnsFor, SESSION_COLUMNS } from '../../web/src/results/table-columns';

const row = (over: Partial<PolicyResult>): PolicyResult => ({
  policy: 'round_robin', label: 'Round robin', mean_ttft_ms: 1, p50_ttft_ms: 1, p90_ttft_ms: 1, p99_ttft_ms: 1, max_ttft_ms: 1,
  hit_rate: 0.5, prompt_tokens: 10, prefill_tokens: 5, cached_tokens: 5, imbalance: 1, replicas: [], ...over,
});

describe('session columns', () => {
  test('absent without per-session figures', () => {
    expect(columnsFor([row({})])).toEqual(COLUMNS);
    expect(columnsFor([])).toEqual(COLUMNS);
  });

  test('after the other columns when the rows carry them, reading the row’s figures', () => {
    const r = row({ sessions: 9, multi_call_sessions: 4, later_call_hit_rate: 0.75, one_replica_session_share: 0.25 });
    const columns = columnsFor([r]);
    expect(columns.map((c) => c.id)).toEqual([...COLUMNS, ...SESSION_COLUMNS].map((c) => c.id));
    expect(columns.slice(-2).map((c) => c.format(c.value(r)))).toEqual(['75.0%', '25.0%']);
  });
});
