// The Capacity section's pure parts against the real core: the capacity JSON
// as the page reads it, and the sentence that states the answer (each
// policy's GPUs from the core's document, fewest first; a policy that never
// meets the SLO named as such; the cost with a GPU-hour price).
import { beforeAll, describe, expect, it } from 'vitest';
import type { PrefixrouteModule } from '../../web/src/worker/prefixroute-module';
import { parseCapacityResults } from '../../web/src/capacity/capacity-results';
import { capacitySentence, sloText } from '../../web/src/capacity/capacity-sentence';
import { loadCore } from './core';

let core: PrefixrouteModule;

beforeAll(async () => {
  core = await loadCore();
});

function capacity(pairs: [string, string][]) {
  const r = core.runCapacity('{}', JSON.stringify([['workload.requests', '600'], ['policies', 'round_robin,affinity'], ...pairs]), null);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return parseCapacityResults(r.capacityJson);
}

describe('capacity sentence', () => {
  it('names every policy with the core\'s GPUs, fewest first', () => {
    const doc = capacity([['slo.ttft_ms', '2000']]);
    const sentence = capacitySentence(doc);
    expect(sentence.startsWith(`At p99 TTFT ≤ 2,000 ms and ${doc.load.base} requests/s: `)).toBe(true);
    const [a, b] = [...doc.results].sort((x, y) => x.gpus! - y.gpus!);
    const gpus = (n: number) => `${n} GPU${n === 1 ? '' : 's'}`;
    const expected = a!.gpus === b!.gpus
      ? `${doc.results[0]!.label} and ${doc.results[1]!.label} need ${gpus(a!.gpus!)}`
      : `${a!.label} needs ${gpus(a!.gpus!)}; ${b!.label} needs ${gpus(b!.gpus!)}`;
    expect(sentence).toBe(`At p99 TTFT ≤ 2,000 ms and ${doc.load.base} requests/s: ${expected}.`);
  });

  it('says when a policy never meets the SLO, and gives the cost with a price', () => {
    // 1 ms at p99 cannot be met: no replica count does it.
    const never = capacity([['slo.ttft_ms', '1'], ['capacity.max_replicas', '6']]);
    expect(never.results.every((r) => r.gpus === null)).toBe(true);
    expect(capacitySentence(never)).toContain('Round robin and Affinity (naive) do not meet it with up to 6 GPUs');
    const priced = capacity([['slo.ttft_ms', '2000'], ['capacity.gpu_hour_price', '2']]);
    const rr = priced.results.find((r) => r.policy === 'round_robin')!;
    expect(capacitySentence(priced)).toMatch(new RegExp(`Round robin (and Affinity \\(naive\\) )?needs? ${rr.gpus} GPUs? \\(\\$${Math.round(rr.cost_per_month!).toLocaleString('en-US')} a month\\)`));
  });

  it('states a TPOT bound too', () => {
    // A TPOT target needs the batched engine (slow here): the SLO text reads only the document's scenario.slo.
    const doc = capacity([['slo.ttft_ms', '2000']]);
    expect(sloText(doc)).toBe('p99 TTFT ≤ 2,000 ms');
    const both = { ...doc, scenario: { ...doc.scenario, slo: { ...doc.scenario.slo, tpot_ms: 50 } } };
    expect(sloText(both)).toBe('p99 TTFT ≤ 2,000 ms and p90 TPOT ≤ 50 ms');
  });

  it('refuses a document of another kind', () => {
    expect(() => parseCapacityResults('{"schema":"prefixroute.results/1","results":[]}')).toThrow(/capacity/);
  });
});
