// Type-checked, never run: uses every declaration of prefixroute.d.ts the way
// the playground and README do, so a declaration that drifts from its use
// fails `npm run typecheck:wasm`.
import createPrefixroute from './prefixroute.js';
import type {
  Admission,
  AffinityBalanced,
  CapacityProgressCallback,
  CapacityResult,
  Cluster,
  EmbindHandle,
  FieldError,
  InsertResult,
  MergeResult,
  MemoryStats,
  PolicyInfo,
  PolicySeries,
  PolicyTimeline,
  PrefixrouteModule,
  PrefixrouteOptions,
  ProgressCallback,
  RadixCache,
  ReplicaState,
  RoutingPolicy,
  RunResult,
  ShardResult,
  TraceShardResult,
  ShardSeries,
  SweepProgressCallback,
  SweepShardResult,
  SweepExpansion,
  SweepResult,
  Tokens,
  TraceChunk,
  TraceFeedStatus,
  TraceLoader,
  TraceLoadResult,
  TraceProblem,
  TraceRunResult,
  ValidateResult,
  HardwareSummaryResult,
  SmallestTpResult,
} from './prefixroute.js';

export async function load(wasm: ArrayBuffer): Promise<PrefixrouteModule> {
  const options: PrefixrouteOptions = {
    wasmBinary: wasm,
    locateFile: (path: string, dir: string): string => dir + path,
    print: (text: string) => console.log(text),
    printErr: (text: string) => console.error(text),
    onAbort: (what: unknown) => console.error(what),
  };
  const fromUrl: PrefixrouteModule = await createPrefixroute();
  void fromUrl;
  return createPrefixroute(options);
}

export function coarse(pr: PrefixrouteModule): number {
  const catalogue: PolicyInfo[] = pr.policyCatalogue();
  const names: string[] = catalogue.map((p) => `${p.name}: ${p.label}`);
  const recommended: PolicyInfo | undefined = catalogue.find((p) => p.recommended);
  const schema: unknown = JSON.parse(pr.scenarioSchema());
  const version: string = pr.version();
  const memory: MemoryStats = pr.memoryStats();
  const inUse: number = memory.inUseBytes + memory.heapBytes;

  const checked: ValidateResult = pr.validateScenario('{"cluster":{"replicas":8}}', '');
  if (checked.ok) {
    const canonical: string = checked.scenarioJson;
    const none: [] = checked.errors;
    void canonical, void none;
  } else {
    const first: FieldError | undefined = checked.errors[0];
    void first?.field, void first?.message;
  }

  const hardware: HardwareSummaryResult = pr.hardwareSummary('', '[["hardware.model", "llama-3.1-8b"]]');
  if (hardware.ok) {
    const summary: string = hardware.summaryJson;
    void summary;
  } else {
    void hardware.errors[0]?.field;
  }

  const tpChoice: SmallestTpResult = pr.smallestTp('', '[["hardware.model", "llama-3.1-70b"]]');
  if (tpChoice.ok) {
    const tp: number = tpChoice.tp;
    const holds: boolean = tpChoice.holdsContext;
    const why: string = tpChoice.reason;
    void tp, void holds, void why, void tpChoice.minFitTp, void tpChoice.cacheTokens, void tpChoice.contextTokens, void tpChoice.weightBytes;
  }

  const onProgress: ProgressCallback = (policyIndex: number, done: number, total: number) =>
    policyIndex >= 0 && done <= total;
  const overrides: string = JSON.stringify([['cluster.replicas', '8'], ['policies', 'affinity,round_robin']]);
  const result: RunResult = pr.runScenario('', overrides, onProgress);
  pr.runScenario('{}', '', null);
  pr.runScenario('{}', '', () => undefined);
  if (!result.ok) {
    const cancelled: boolean = result.cancelled === true;
    return cancelled ? -1 : result.errors.length;
  }
  const doc: unknown = JSON.parse(result.resultsJson);
  let sum = 0;
  for (const s of result.series) {
    const series: PolicySeries = s;
    const ttft: Float64Array = series.ttftMs;
    const where: Uint32Array = series.replicaOf;
    const cached: Uint32Array = series.cachedTokens;
    sum += ttft[0] + where[0] + cached[0] + series.policy.length;
    const timeline: PolicyTimeline | undefined = series.timeline;
    if (timeline) {
      const top: Int32Array = timeline.topGroup;
      const kv: Float64Array | undefined = timeline.kvUse;
      sum += timeline.requests[0] + timeline.hitRate[timeline.rows] + top[0] + (kv ? kv[0] : 0) + timeline.groupKeys.length;
    }
  }
  void names, void recommended, void schema, void version, void doc, void inUse;
  return sum;
}

export function sweep(pr: PrefixrouteModule): number {
  const onProgress: SweepProgressCallback = (point: number, phase: number, done: number, total: number) =>
    point >= 0 && phase >= 0 && done <= total;
  const overrides: string = JSON.stringify([['workload.requests', '1000']]);
  const result: SweepResult = pr.runSweep('', overrides, 'affinity_balanced.load_slack_s=0:0.2:5', onProgress);
  const onCapacity: CapacityProgressCallback = (runs, done, searches) => runs < 1000 && done <= searches;
  const capacity: CapacityResult = pr.runCapacity('', '[["slo.ttft_ms","200"]]', onCapacity);
  if (capacity.ok) {
    const doc: { results: { policy: string; max_load: number | null; gpus: number | null }[] } = JSON.parse(capacity.capacityJson);
    void doc.results[0].gpus;
  } else {
    void capacity.errors[0].field;
  }
  pr.runSweep('{}', '', 'cluster.replicas=2,4,8', null);
  pr.runSweep('{}', '', 'seed=1,2', () => undefined);
  const expanded: SweepExpansion = pr.expandSweep('cluster.replicas=1:4:5');
  const points: number = expanded.ok ? expanded.values.length : expanded.errors.length;
  void points;
  if (!result.ok) {
    const cancelled: boolean = result.cancelled === true;
    const first: FieldError | undefined = result.errors[0];
    return cancelled ? -1 : (first?.field.length ?? 0);
  }
  const doc: { points: { value: string; results: { pareto: boolean }[] }[] } = JSON.parse(result.sweepJson);
  return doc.points.length;
}

// A pool of workers would each call runShard with its own index; here in turn.
export function shards(pr: PrefixrouteModule, count: number): string {
  const overrides: string = JSON.stringify([['replicates', '3']]);
  const documents: string[] = [];
  const series: ShardSeries[] = [];
  for (let k = 1; k <= count; ++k) {
    const onProgress: ProgressCallback = (run: number, done: number, total: number) => run >= 0 && done <= total;
    const shard: ShardResult = pr.runShard('', overrides, k, count, onProgress);
    if (!shard.ok) return shard.errors.map((e: FieldError) => `${e.field}: ${e.message}`).join('\n');
    documents.push(shard.shardJson);
    for (const s of shard.series) series.push(s);
  }
  series.sort((a, b) => a.run - b.run);
  const merged: MergeResult = pr.mergeShards(documents);
  const sweepShard: SweepShardResult = pr.runSweepShard('', '', 'seed=1,2', 1, 1, null);
  const sweepMerged: SweepResult = pr.mergeSweepShards(sweepShard.ok ? [sweepShard.shardJson] : []);
  void sweepMerged;
  return merged.ok ? merged.resultsJson + String(series[0]?.ttftMs.length) : String(merged.cancelled === true);
}

export function library(pr: PrefixrouteModule): string[] {
  const lines: string[] = [];

  const cache: RadixCache = new pr.RadixCache(1000);
  const protectedCache: RadixCache = new pr.RadixCache(1000, 0);
  const inserted: InsertResult = cache.insert([1, 2, 3, 4]);
  const tokens: Tokens = new Uint32Array([1, 2, 9]);
  const matched: number = cache.match(tokens);
  lines.push(`${inserted.cachedTokens} ${inserted.insertedTokens} ${inserted.evictedTokens} ${matched}`);
  lines.push(`${cache.size()} ${cache.capacity()} ${cache.nodeCount()} ${cache.protectAfterHits()}`);
  lines.push(`${cache.evictedTotal()} ${cache.checkInvariants()} ${protectedCache.isDeleted()}`);
  cache.delete();
  protectedCache.delete();

  const cluster: Cluster = new pr.Cluster(4, 20000);
  const protectedCluster: Cluster = new pr.Cluster(4, 20000, 0);
  const policies: RoutingPolicy[] = [new pr.RoundRobin(), new pr.LeastLoaded(), new pr.Affinity(), new pr.AffinityBalanced()];
  const balanced: AffinityBalanced = new pr.AffinityBalanced(0.05);
  const slack: number = balanced.loadSlackSeconds();
  const systemPrompt: number[] = Array.from({ length: 50 }, (_, t) => 1000 + t);
  const turns: number[][] = [[1, 2, 3], [4, 5], [6, 7, 8, 9]];
  let now = 0;
  turns.forEach((turn, r) => {
    const prompt: Tokens = [...systemPrompt, ...turn];
    const index: number = balanced.choose(prompt, cluster, now);
    const a: Admission = cluster.admit(index, prompt, now, 10000);
    lines.push(`request ${r}: replica ${index} cached ${a.cachedTokens} prefill ${a.prefillTokens}` +
      ` ${a.startSeconds} ${a.firstTokenSeconds} ${cluster.match(index, prompt)}`);
    now += 0.1;
  });
  for (let i = 0; i < cluster.size(); ++i) {
    const s: ReplicaState = cluster.replica(i);
    lines.push(`${s.requests} ${s.prefillTokens} ${s.cachedTokens} ${s.busySeconds} ${s.busyUntilSeconds} ${s.cacheSize} ${s.cacheNodes}`);
  }
  const handles: EmbindHandle[] = [cluster, protectedCluster, balanced, ...policies];
  for (const p of policies) lines.push(p.name(), String(p instanceof pr.RoutingPolicy));
  for (const h of handles) h.delete();
  lines.push(String(slack));
  return lines;
}

export function trace(pr: PrefixrouteModule, chunks: TraceChunk[]): string[] {
  const lines: string[] = [];
  const loader: TraceLoader = new pr.TraceLoader('conversation.jsonl', '', JSON.stringify([['trace.on_error', 'skip']]));
  for (const chunk of [...chunks, 'text', new Uint8Array([10]), new ArrayBuffer(1)]) {
    const status: TraceFeedStatus = loader.feed(chunk);
    lines.push(`${status.bytes} ${status.lines} ${status.requests} ${status.error}`);
    if (!status.going) break;
  }
  const loaded: TraceLoadResult = loader.finish();
  const first: TraceProblem | undefined = loaded.problems[0];
  lines.push(`${loaded.ok} ${loaded.name} ${loaded.bytes} ${loaded.lines} ${loaded.requests} ${loaded.skippedLines}`);
  lines.push(`${loaded.promptTokens} ${loaded.format} ${loaded.contentHash} ${loaded.unlistedProblems} ${first?.line} ${first?.field} ${first?.message}`);
  const traceSummary: string = loaded.summaryJson;
  lines.push(traceSummary);
  const onProgress: ProgressCallback = (policyIndex, done, total) => policyIndex >= 0 && done <= total;
  const run: TraceRunResult = pr.runTrace(loader, '', JSON.stringify([['trace.on_error', 'skip']]), onProgress);
  pr.runTrace(loader, '{}', '', null);
  const traceCapacity: CapacityResult = pr.runTraceCapacity(loader, '', JSON.stringify([['slo.ttft_ms', '2000']]), null);
  void traceCapacity.ok;
  const shard: TraceShardResult = pr.runTraceShard(loader, '', '', 1, 2, onProgress);
  if (shard.ok) lines.push(shard.shardJson, shard.scenarioJson, String(shard.series[0]?.run));
  const traceSweep: SweepResult = pr.runTraceSweep(loader, '', '', 'cluster.replicas=1:8:8', (point, phase, done, total) => point >= 0 && phase >= 0 && done <= total);
  if (traceSweep.ok) lines.push(traceSweep.sweepJson);
  pr.runTraceSweep(loader, '{}', '', 'seed=1,2', null);
  if (run.ok) {
    const scenario: unknown = JSON.parse(run.scenarioJson);
    const series: PolicySeries[] = run.series;
    lines.push(run.resultsJson, String(series.length), String(scenario));
  } else {
    lines.push(...run.errors.map((e: FieldError) => `${e.field}: ${e.message}`), String(run.cancelled === true));
  }
  const handle: EmbindHandle = loader;
  handle.delete();
  return lines;
}
