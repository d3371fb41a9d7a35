// Named scenarios. The documents live in scenarios/*.json at the repository
// root (partial scenarios: missing keys take defaults), shared with the
// command line (`prefixroute --scenario scenarios/overloaded.json`)
// and the tests; the page imports them at build time. The published-results
// suite (scenarios/published/) is listed as its claims.json lists it.

import agentic from '../../../scenarios/agentic.json';
import cacheFits from '../../../scenarios/cache-fits.json';
import chatSessions from '../../../scenarios/chat-sessions.json';
import cumulative from '../../../scenarios/cumulative.json';
import gsp from '../../../scenarios/gsp.json';
import agentBurst from '../../../scenarios/failure-agent-burst.json';
import fleetGate from '../../../scenarios/failure-fleet-gate.json';
import hashThrash from '../../../scenarios/failure-hash-thrash.json';
import manyRouters from '../../../scenarios/failure-many-routers.json';
import sharedPrompt from '../../../scenarios/failure-shared-prompt.json';
import slowPoll from '../../../scenarios/failure-slow-poll.json';
import loadLadder from '../../../scenarios/load-ladder.json';
import oneHotTenant from '../../../scenarios/one-hot-tenant.json';
import overloaded from '../../../scenarios/overloaded.json';
import prefixRepetition from '../../../scenarios/prefix-repetition.json';
import reference from '../../../scenarios/reference.json';
import c1 from '../../../scenarios/published/C1.json';
import c4 from '../../../scenarios/published/C4.json';
import c5 from '../../../scenarios/published/C5.json';
import c6 from '../../../scenarios/published/C6.json';
import c7B2bSaas from '../../../scenarios/published/C7-b2b-saas.json';
import c7CodeGeneration from '../../../scenarios/published/C7-code-generation.json';
import c7Reasoning from '../../../scenarios/published/C7-reasoning.json';
import c8 from '../../../scenarios/published/C8.json';
import c10 from '../../../scenarios/published/C10.json';
import c17 from '../../../scenarios/published/C17.json';
import claims from '../../../scenarios/published/claims.json';
import sharedPrefix from '../../../scenarios/shared-prefix.json';
import { type Pair, valueText } from './schema';

export interface Preset {
  id: string;
  label: string;
  /** The picker's group the preset is listed under (none: the ungrouped list at the top). */
  group?: string;
  /** One line on what the preset shows. */
  blurb: string;
  document: unknown;
}

/**
 * A failure-mode preset: its blurb is the document's own two-line description
 * (what operators reported; the setting that shows it, and by how much the
 * failing policy loses), so the page, the command line and docs/guide/routers.md say the same.
 */
function failureMode(id: string, label: string, document: { description: string[] }): Preset {
  return { id, label: `Failure: ${label}`, blurb: document.description.join(' '), document };
}

/** The picker's group of the published-results suite (docs/guide/published-results.md). */
export const PUBLISHED_GROUP = 'Published experiments';

/**
 * The published-results suite's scenarios, by the path claims.json names
 * each claim's scenario with (scripts/published.mjs runs the same files).
 */
const PUBLISHED_DOCUMENTS: Readonly<Record<string, { description?: string[] }>> = {
  'scenarios/published/C1.json': c1,
  'scenarios/published/C4.json': c4,
  'scenarios/published/C5.json': c5,
  'scenarios/published/C6.json': c6,
  'scenarios/published/C7-b2b-saas.json': c7B2bSaas,
  'scenarios/published/C7-code-generation.json': c7CodeGeneration,
  'scenarios/published/C7-reasoning.json': c7Reasoning,
  'scenarios/published/C8.json': c8,
  'scenarios/published/C10.json': c10,
  'scenarios/published/C17.json': c17,
};

/**
 * A published experiment per claim of claims.json, in its order: labelled
 * with the claim's title, described by its scenario's description (what was
 * published and how the scenario reruns it). A claim whose scenario is not
 * imported above is left out (a unit test checks that none is).
 */
function publishedExperiments(): Preset[] {
  return claims.claims.flatMap((claim) => {
    const document = PUBLISHED_DOCUMENTS[claim.scenario];
    if (!document) return [];
    const blurb = (document.description ?? []).join(' ');
    return [{ id: `published-${claim.id}`, label: `${claim.id}: ${claim.title}`, group: PUBLISHED_GROUP, blurb, document }];
  });
}

/** The reference scenario first: the page opens with it; then the failure modes, then the published experiments. */
export const PRESETS: readonly Preset[] = [
  {
    id: 'reference',
    label: 'Reference',
    blurb: 'The write-up’s setting: a dozen tenants of Zipf popularity on four replicas with tight caches.',
    document: reference,
  },
  {
    id: 'cache-fits',
    label: 'Cache fits',
    blurb: 'Every replica can hold every prefix: routing hardly matters for hits, only for load.',
    document: cacheFits,
  },
  {
    id: 'one-hot-tenant',
    label: 'One hot tenant',
    blurb: 'Steep popularity: one tenant sends most requests, so pure affinity overloads its replica.',
    document: oneHotTenant,
  },
  {
    id: 'overloaded',
    label: 'Overloaded',
    blurb: 'Arrivals outpace cache-blind prefill: queues grow unless the cache does the work.',
    document: overloaded,
  },
  {
    id: 'chat-sessions',
    label: 'Chat sessions',
    blurb: 'Multi-turn chats: each turn re-sends the whole history, so most reuse is within a session and a router that moves a session loses it.',
    document: chatSessions,
  },
  {
    id: 'agentic',
    label: 'Agent loops',
    blurb: 'Coding-agent traffic: several LLM calls per turn, each extending the last by its reply and a tool result (defaults from GitHub’s Copilot agent figures).',
    document: agentic,
  },
  {
    id: 'gsp',
    label: 'Shared-prefix benchmark',
    blurb: 'SGLang’s generated-shared-prefix benchmark: 64 groups of 16 questions behind a 2,048-token system prompt each, shuffled.',
    document: gsp,
  },
  {
    id: 'shared-prefix',
    label: 'Shared-prefix pool (inference-perf)',
    blurb: 'inference-perf’s shared_prefix: 30 groups of 5 prompts behind a 1,500-token system prompt each, the shuffled pool sent again and again.',
    document: sharedPrefix,
  },
  {
    id: 'prefix-repetition',
    label: 'Prefix repetition (vLLM)',
    blurb: 'vLLM’s prefix_repetition dataset: 10 random 256-token prefixes, each with 200 prompts of their own 256-token suffix, shuffled.',
    document: prefixRepetition,
  },
  {
    id: 'cumulative',
    label: 'Cumulative chat prompts',
    blurb: 'Chat conversations cut into cumulative prompts (prompt k: the first 2k-1 messages), pooled, shuffled and sent as independent requests, as KubeAI benchmarked prefix hashing.',
    document: cumulative,
  },
  {
    id: 'load-ladder',
    label: 'Load ladder (closed loop)',
    blurb: 'A benchmark client that keeps 1, 2, 4 … 32 requests outstanding, 10 s each after a warm-up, on a shared-prefix pool of 16 groups of 200 prompts: TTFT and throughput per stage, under Load stages.',
    document: loadLadder,
  },
  failureMode('failure-fleet-gate', 'fleet-wide imbalance gate', fleetGate),
  failureMode('failure-hash-thrash', 'consistent-hash thrash', hashThrash),
  failureMode('failure-agent-burst', 'agent burst before KV events', agentBurst),
  failureMode('failure-slow-poll', '15 s metrics poll', slowPoll),
  failureMode('failure-many-routers', 'N routers, 1/N of the load each', manyRouters),
  failureMode('failure-shared-prompt', 'one shared system prompt', sharedPrompt),
  ...publishedExperiments(),
];

/** Flattens a partial scenario document into --set style pairs (dotted keys, value texts); its description is for people, not a setting. */
export function presetOverrides(document: unknown, prefix = ''): Pair[] {
  const out: Pair[] = [];
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return out;
  for (const [key, value] of Object.entries(document)) {
    const dotted = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      out.push(...presetOverrides(value, dotted));
    } else if (key !== 'schema_version' && key !== 'description') {
      const text = valueText(value);
      if (text !== null) out.push([dotted, text]);
    }
  }
  return out;
}
