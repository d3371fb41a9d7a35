// What the bare page runs (page-defaults.json, "scenario"): the reference
// scenario with the policies that tell the page's story side by side, at
// most MAX_PAGE_POLICIES of them:
//   - the core's four baselines: round robin (cache-blind, what a plain
//     Kubernetes Service or load balancer does; the baseline the table's
//     small figures compare with) and least loaded (cache-blind, balanced),
//     affinity (cache-chasing: always the replica that holds the prefix)
//     and affinity balanced (cache-chasing guarded by a load slack; the
//     write-up's policy the reference scenario was calibrated on);
//   - the recommended policy (the catalogue's mark, the smallest worst-case
//     regret over the grid; `@recommended` in page-defaults.json; named once
//     when it is one of the others) and Expected TTFT, prefixroute's own;
//   - the three production routers a team is most likely to run: SGLang's
//     cache-aware router (sgl-router / SGLang model gateway), NVIDIA Dynamo's
//     KV router, and llm-d's endpoint picker (the Gateway API Inference
//     Extension path on Kubernetes).
// One replicate: with three seeds the default re-run does not fit the page's
// 100 ms re-run budget (docs/performance.md, `node bench/page_perf.mjs --query`),
// so the verdict says it is one seed. The presets run with the same policies.
// A link is read as written: these apply only to the page opened bare (no
// key but `v` and `embed`) and to the presets.

import pageDefaults from './page-defaults.json';
import type { PolicyInfo } from '../worker/prefixroute-module';
import type { Pair } from './schema';

/** Most policies the bare page runs: more crowd the table and the bar charts, and slow the re-runs. */
export const MAX_PAGE_POLICIES = 8;

/** The catalogue's recommended policy (the core marks exactly one; a catalogue without a mark has none). */
export function recommendedPolicy(catalogue: readonly PolicyInfo[]): string | undefined {
  return catalogue.find((p) => p.recommended)?.name;
}

/** The page's scenario as overrides: page-defaults.json's policies, `@recommended` standing for the catalogue's mark. */
export function pageScenario(catalogue: readonly PolicyInfo[]): Pair[] {
  const recommended = recommendedPolicy(catalogue);
  const names = pageDefaults.scenario.policies.split(',')
    .flatMap((p) => (p === '@recommended' ? (recommended ? [recommended] : []) : [p]))
    .filter((p, i, all) => all.indexOf(p) === i);
  return [['policies', names.join(',')], ['replicates', pageDefaults.scenario.replicates]];
}

/** A preset's overrides over the page's scenario (a preset that names policies keeps its own). */
export function withPageScenario(catalogue: readonly PolicyInfo[], overrides: readonly Pair[]): Pair[] {
  const map = new Map<string, string>(pageScenario(catalogue));
  for (const [k, v] of overrides) map.set(k, v);
  return [...map];
}

/**
 * The overrides a link carries for a scenario: as given, except that the
 * core's own defaults on the synthetic workload (no override at all) are
 * written out as their policy list, since a bare link opens the page's
 * scenario instead.
 */
export function linkOverrides(overrides: readonly Pair[], replaysTrace: boolean, policiesDefault: string): Pair[] {
  if (overrides.length > 0 || replaysTrace) return [...overrides];
  return [['policies', policiesDefault]];
}

/** Whether a page address is bare (no keys but the link version and the embed flag): it opens the page's scenario. */
export function opensPageScenario(search: string): boolean {
  return [...new URLSearchParams(search).keys()].every((k) => k === 'v' || k === 'embed');
}
