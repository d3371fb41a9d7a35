// Named scenarios. The documents live in scenarios/*.json at the repository
// root (partial scenarios: missing keys take defaults), shared with the
// command line (`prefixroute --scenario scenarios/overloaded.json`)
// and the tests; the page imports them at build time.

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
import sharedPrefix from '../../../scenarios/shared-prefix.json';
import { type Pair, valueText } from './schema';

export interface Preset {
  id: string;
  label: string;
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

/** The reference scenario first: the page opens with it; the failure modes last. */
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
