// TypeScript declarations for the prefixroute WebAssembly module
// (build/wasm/wasm/prefixroute.mjs + prefixroute.wasm, bound in wasm/bindings.cpp).
// Written by hand: Emscripten 3.1.6 cannot emit them. usage-check.ts uses every
// declaration and is type-checked by `npm run typecheck:wasm`.
//
// Browser / Vite:   const pr = await createPrefixroute();
//                   (the .wasm is fetched next to the .mjs; or pass locateFile)
// Node:             const pr = await createPrefixroute({ wasmBinary: fs.readFileSync(wasmPath) });
//
// Conventions: counts and token totals are plain numbers (exact below 2^53);
// library times are seconds; TTFT series and results JSON use milliseconds.

/** Options of the module factory. Only these are read. */
export interface PrefixrouteOptions {
  /** The .wasm bytes; skips fetching (the way to load the module in Node). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Maps "prefixroute.wasm" to the URL to fetch it from. */
  locateFile?: (path: string, scriptDirectory: string) => string;
  /** Full control over instantiation (Emscripten's standard hook). */
  instantiateWasm?: (
    imports: WebAssembly.Imports,
    receiveInstance: (instance: WebAssembly.Instance, module?: WebAssembly.Module) => void,
  ) => WebAssembly.Exports | {};
  print?: (text: string) => void;
  printErr?: (text: string) => void;
  /** Called if the module aborts (after which every call throws RuntimeError). */
  onAbort?: (what: unknown) => void;
}

/**
 * One problem. `field` is a dotted scenario key ("cluster.replicas") or one of
 * the pseudo-fields "(document)" (scenarioJson: not a string, not JSON, not an
 * object), "(overrides)" (overridesJson), "(memory)" (the run could outgrow
 * the module's 2 GiB heap), "(onProgress)" (not a function, or it threw),
 * "(run)" (cancelled), for runTrace "(trace)" (the loader has not
 * finished, or its trace could not be read), "(sweep)" (runSweep's
 * sweepSpec, or a sweep too big), "(shard)" (runShard's shardIndex /
 * shardCount), "(shards)" (mergeShards: a shard missing or given twice, not
 * an array of strings, the wrong kind) and "(shard documents[i])" (that
 * document: not a shard document, another scenario, another shard count, a
 * run missing or misplaced).
 */
export interface FieldError {
  field: string;
  message: string;
}

/** Per-request results of one policy, in arrival order; copies, safe to keep. */
export interface PolicySeries {
  policy: string;
  /** Time to first token of each request, ms. */
  ttftMs: Float64Array;
  /** Replica that served each request. */
  replicaOf: Uint32Array;
  /** Cached prompt tokens of each request. */
  cachedTokens: Uint32Array;
  /** The run over time (runScenario and runTrace record it; core/include/prefixroute/sim/timeline.h). */
  timeline?: PolicyTimeline;
}

/**
 * One policy's run in `windows` equal windows of its arrival span, per shown
 * replica: every per-cell array is indexed window * rows + row, rows = shown
 * (+ 1 when `other`: a last row pooling replicas shown .. replicas-1).
 */
export interface PolicyTimeline {
  windows: number;
  windowMs: number;
  replicas: number;
  shown: number;
  other: boolean;
  rows: number;
  batched: boolean;
  /** Arrivals routed to the row's replica in the window. */
  requests: Uint32Array;
  /** Fifo engine: their mean queue wait (0 under the batched engine). */
  meanWaitMs: Float64Array;
  meanTtftMs: Float64Array;
  /** Their cached prompt tokens / prompt tokens. */
  hitRate: Float64Array;
  /** The router's in-flight count, mean of the window's samples. */
  meanInFlight: Float64Array;
  /** Batched engine only: sequences running, mean of the window's samples. */
  meanBatch?: Float64Array;
  /** Batched engine only: KV held / capacity, mean of the window's samples. */
  kvUse?: Float64Array;
  /** Distinct prefix groups (first content run of the prompt) among the cell's requests. */
  groups: Uint32Array;
  /** Index in groupKeys of the cell's most frequent group; -1 for an empty cell. */
  topGroup: Int32Array;
  /** That group's share of the cell's requests. */
  topShare: Float64Array;
  /** The groups that top a cell, most dominant first (content run ids). */
  groupKeys: Float64Array;
}

export interface RunSuccess {
  ok: true;
  /**
   * Results JSON ("prefixroute.results/1"), byte-identical to prefixroute --json.
   * With replicates > 1 every metric is the mean over the seeds, each row adds
   * `interval` ({metric: {half_width, low, high}}, 95 % Student t) and
   * `per_seed`, and a top-level `replicates` section lists the pairs of
   * policies not distinguishable on each headline metric (docs/reference/results-json.md).
   */
  resultsJson: string;
  /** One entry per policy, in the scenario's policy order: the first seed's (scenario.seed) requests. */
  series: PolicySeries[];
}

export interface RunFailure {
  ok: false;
  /** Present (true) when onProgress returned false. */
  cancelled?: true;
  errors: FieldError[];
}

export type RunResult = RunSuccess | RunFailure;

export interface ValidateSuccess {
  ok: true;
  errors: [];
  /** Canonical scenario JSON: every field, fixed key order, compact. */
  scenarioJson: string;
}

export interface ValidateFailure {
  ok: false;
  errors: FieldError[];
}

export type ValidateResult = ValidateSuccess | ValidateFailure;

export interface HardwareSummarySuccess {
  ok: true;
  errors: [];
  /**
   * The summary JSON ("prefixroute.hardware/1", see
   * core/include/prefixroute/scenario/hardware_summary.h): the replica's model, GPU and
   * tensor parallelism, the presets' constants with their sources, memory
   * (weights, KV bytes per token), every derivable raw field with the value
   * in force, its source ("given", "derived" or "default"), the derived value
   * and its arithmetic, the step model's times for three loads, the
   * saturated replica's token rates, and a one-line "text".
   */
  summaryJson: string;
}

export type HardwareSummaryResult = HardwareSummarySuccess | ValidateFailure;

/** smallestTp's answer (core/include/prefixroute/cluster/tp_choice.h). */
export interface SmallestTpSuccess {
  ok: true;
  errors: [];
  /** 1, 2, 4 or 8; 0 when no degree up to 8 holds the weights with room for KV. */
  tp: number;
  /** The smallest degree the scenario accepts at all (the weights fit with one KV block); 0: none. */
  minFitTp: number;
  /** The KV cache at `tp` holds one request of the model's full context (vLLM's start-up check). */
  holdsContext: boolean;
  /** KV capacity per replica at `tp`, tokens (0 when tp is 0). */
  cacheTokens: number;
  /** The model's context length (its config's max_position_embeddings). */
  contextTokens: number;
  /** The whole model's weights, bytes. */
  weightBytes: number;
  /** One line for people: "TP 4: the smallest that holds Llama-3.1-70B's 141.11 GB of weights ...". */
  reason: string;
}

export type SmallestTpResult = SmallestTpSuccess | ValidateFailure;

/**
 * Called before each run and every 4096 requests within a policy's run. The
 * first argument is the run's index in the experiment's run list: per
 * replicate (seed, seed + 1, ...) the policies in order, then the ideal and
 * the pooled cache bound (reported once, done = 0), so run = replicate x
 * (policies + 2) + phase; with one replicate it is the phase (0..policies-1
 * the policies, policies and policies+1 the bounds).
 * `total` is the request count. Return false to cancel; anything else goes on.
 * If it throws, the run stops with an "(onProgress)" error value. It may call
 * the module (even runScenario); the run resumes when it returns.
 */
export type ProgressCallback = (policyIndex: number, done: number, total: number) => boolean | void;

export interface SweepSuccess {
  ok: true;
  /**
   * Sweep JSON ("prefixroute.sweep/1"), byte-identical to what
   * `prefixroute --sweep SPEC --json FILE` writes: the key, the base
   * scenario, and per value each policy's mean/p99 TTFT, hit rate, prefill
   * tokens, imbalance and `pareto` (no other point of the sweep has a
   * higher-or-equal hit rate and a lower-or-equal p99, one of them strictly).
   * A point with replicates > 1 has means and an `interval` per row.
   */
  sweepJson: string;
}

export type SweepResult = SweepSuccess | RunFailure;

/**
 * Called before each phase of each sweep point and every 4096 requests within
 * a policy's run: `point` indexes the sweep's values; `phase`, `done` and
 * `total` are as for ProgressCallback. Return false to cancel; if it throws,
 * the sweep stops with an "(onProgress)" error value.
 */
export type SweepProgressCallback = (point: number, phase: number, done: number, total: number) => boolean | void;

/** runCapacity's success. */
export interface CapacitySuccess {
  ok: true;
  /**
   * Capacity JSON ("prefixroute.capacity/1"), byte-identical to what
   * `prefixroute --capacity --json FILE` writes: the load axis searched
   * (`load.key`, `load.unit`, `load.base`), and per policy `max_load` (the
   * highest load meeting the SLO), `replicas` and `gpus` (the fewest meeting
   * it at the scenario's load; GPUs = replicas x hardware.tp),
   * `cost_per_month` (with capacity.gpu_hour_price > 0), an `interval` per
   * figure with replicates > 1, and `per_seed` with every step of both
   * searches ({ value, met, slo_attainment, goodput_per_s, ttft_ms / tpot_ms
   * at the SLO's percentile }): the curve of the percentile against load or
   * replicas with the SLO's bound.
   */
  capacityJson: string;
}

export type CapacityResult = CapacitySuccess | RunFailure;

/**
 * Called after every run of a capacity search (one policy at one load or
 * replica count): `runs` done so far, `searchesDone` of `searches` (policies
 * x replicates) finished. Return false to cancel; if it throws, the search
 * stops with an "(onProgress)" error value.
 */
export type CapacityProgressCallback = (runs: number, searchesDone: number, searches: number) => boolean | void;

/** One policy run's series from runShard: the run's index in the experiment's run list beside them. */
export interface ShardSeries extends PolicySeries {
  run: number;
}

export interface ShardSuccess {
  ok: true;
  /**
   * Shard document ("prefixroute.shard/1"), byte-identical to
   * `prefixroute --shard K/N --json` for the same scenario: this
   * shard's runs' summaries, with what a merge checks (the scenario, K, N, the
   * run count). Hand all N documents to mergeShards.
   */
  shardJson: string;
  /**
   * Per-request series of this shard's policy runs of the first replicate
   * (scenario.seed), in run order; over all shards, runScenario's series.
   */
  series: ShardSeries[];
}

export type ShardResult = ShardSuccess | RunFailure;

/** runTraceShard's success: as runShard's, plus the scenario as run (scenario.trace filled in, as runTrace's). */
export interface TraceShardSuccess extends ShardSuccess {
  scenarioJson: string;
}

export type TraceShardResult = TraceShardSuccess | RunFailure;

export interface MergeSuccess {
  ok: true;
  /** runScenario's resultsJson for the shards' scenario, byte for byte. */
  resultsJson: string;
}

export type MergeResult = MergeSuccess | RunFailure;

export interface SweepShardSuccess {
  ok: true;
  /** Shard document of a sweep, byte-identical to `prefixroute --sweep SPEC --shard K/N --json`. */
  shardJson: string;
}

export type SweepShardResult = SweepShardSuccess | RunFailure;

/** Token ids: integers in [0, 2^32). Anything else throws TypeError. */
export type Tokens =
  | readonly number[]
  | Uint32Array
  | Int32Array
  | Uint16Array
  | Int16Array
  | Uint8Array
  | Int8Array
  | Uint8ClampedArray
  | Float64Array
  | Float32Array;

export interface PolicyInfo {
  /** As in scenarios and results JSON ("affinity_balanced"). */
  name: string;
  /** For tables and charts ("Affinity balanced"). */
  label: string;
  /** One line: what the policy does. */
  description: string;
  /** Its colour in charts and swatches (CSS hex), on a light and on a dark page. */
  colours: { light: string; dark: string };
  /** The scenario keys of its parameters ("affinity_balanced.load_slack_s"), in the schema. */
  params: string[];
  /** Whether this is the policy prefixroute recommends (exactly one entry is). */
  recommended: boolean;
  /**
   * On the recommended entry only: its worst-case p99 TTFT regret over the grid
   * (docs/guide/routers.md), its p99 over the best policy's minus one (0.5: 50 % worse).
   */
  worst_p99_regret?: number;
}

/** expandSweep's answer: the values a sweep spec runs, in order. */
export type SweepExpansion =
  | { ok: true; key: string; values: string[] }
  | { ok: false; errors: FieldError[] };

/**
 * A C++ object owned by JS: call delete() when done, or its memory leaks.
 * Methods and constructors throw TypeError (tokens) or RangeError (numbers)
 * on bad arguments, before changing anything. (`obj.constructor` is embind's
 * raw constructor; use `instanceof`.)
 */
export interface EmbindHandle {
  delete(): void;
  isDeleted(): boolean;
}

export interface InsertResult {
  /** Leading tokens that were already cached. */
  cachedTokens: number;
  /** Tokens newly added to the tree. */
  insertedTokens: number;
  /** Tokens evicted to restore the budget. */
  evictedTokens: number;
}

/**
 * One replica's prefix cache: a compressed radix tree over token ids with a
 * budget in tokens and LRU eviction of whole leaves; nodes reused
 * protectAfterHits times are evicted after unprotected ones (0 = off).
 */
export interface RadixCache extends EmbindHandle {
  /** Length of the longest cached prefix of `tokens`. Changes nothing. */
  match(tokens: Tokens): number;
  /** Caches `tokens` (at most the first capacity() of them), evicts to budget. */
  insert(tokens: Tokens): InsertResult;
  size(): number;
  capacity(): number;
  /** Nodes in the tree, root excluded. */
  nodeCount(): number;
  protectAfterHits(): number;
  /** Tokens evicted since construction. */
  evictedTotal(): number;
  /** "" when every invariant holds, else the first violation. O(N log N). */
  checkInvariants(): string;
}

export interface RadixCacheConstructor {
  /**
   * capacityTokens: integer in [0, 2^32). protectAfterHits defaults to the
   * core's default (the scenario's cluster.protect_after_hits default). Bad
   * values throw RangeError.
   */
  new (capacityTokens: number, protectAfterHits?: number): RadixCache;
}

/** What happened to one admitted request. */
export interface Admission {
  cachedTokens: number;
  /** Uncached tokens charged for prefill. */
  prefillTokens: number;
  /** When prefill starts (after the work queued ahead), s. */
  startSeconds: number;
  /** When prefill ends: the first output token, s. */
  firstTokenSeconds: number;
}

export interface ReplicaState {
  requests: number;
  prefillTokens: number;
  cachedTokens: number;
  /** Sum of prefill times, s. */
  busySeconds: number;
  /** When all admitted work is done, s. */
  busyUntilSeconds: number;
  /** Tokens in the replica's cache. */
  cacheSize: number;
  cacheNodes: number;
}

/**
 * The replicas a policy routes among, each a prefix cache plus one FIFO
 * prefill queue. Index arguments out of range, or times outside [0, 1e9] s,
 * throw RangeError.
 */
export interface Cluster extends EmbindHandle {
  /** Number of replicas. */
  size(): number;
  /**
   * Queues a request arriving at nowSeconds on replica `index`: matches and
   * caches its prompt, charges prefill (tokensPerS in [1, 1e9]) for the
   * uncached tokens only.
   */
  admit(index: number, tokens: Tokens, nowSeconds: number, prefillTokensPerS: number): Admission;
  /** Cached prefix of `tokens` on replica `index` (a peek: changes nothing). */
  match(index: number, tokens: Tokens): number;
  replica(index: number): ReplicaState;
}

export interface ClusterConstructor {
  /** replicas in [1, 4096]; cacheTokens per replica; protectAfterHits as for RadixCache. */
  new (replicas: number, cacheTokens: number, protectAfterHits?: number): Cluster;
}

/**
 * A routing policy: the four baseline policies are bound for step-by-step use
 * (runScenario runs every policy of policyCatalogue()). One instance keeps its
 * own cursor: use one per simulation.
 */
export interface RoutingPolicy extends EmbindHandle {
  /** Index of the replica that should serve `tokens` arriving at nowSeconds. Reads the cluster only. */
  choose(tokens: Tokens, cluster: Cluster, nowSeconds: number): number;
  /** "round_robin", "least_loaded", "affinity" or "affinity_balanced". */
  name(): string;
}

export interface AffinityBalanced extends RoutingPolicy {
  loadSlackSeconds(): number;
}

/** See PrefixrouteModule.memoryStats. */
export interface MemoryStats {
  heapBytes: number;
  inUseBytes: number;
}

/**
 * A chunk of trace input: text (hashed as its UTF-8; do not split a surrogate
 * pair between chunks), or the file's bytes (exact: hashed as given, as the
 * command line hashes the file). Chunks may split lines anywhere.
 */
export type TraceChunk = string | Uint8Array | Int8Array | Uint8ClampedArray | ArrayBuffer | DataView;

/** What TraceLoader.feed() reports after each chunk. */
export interface TraceFeedStatus {
  /**
   * False once reading has stopped (a bad line in "stop" mode, a fatal problem, or an error): stop
   * feeding. Past trace.limit requests it stays true: the rest is only hashed, so that contentHash is
   * the whole file's, as the command line's.
   */
  going: boolean;
  /** Bytes fed so far (UTF-8 bytes for string chunks). */
  bytes: number;
  /** Lines seen so far (blank ones included). */
  lines: number;
  /** Requests read so far. */
  requests: number;
  /** "" normally; else why this chunk was not read (not a string or bytes; a finished loader). */
  error: string;
}

/**
 * One problem with a trace: `line` is 1-based, or 0 for problems of the whole
 * trace and for the loader's scenario problems (then `field` is a dotted
 * scenario key). `field` names the line's JSON field ("timestamp",
 * "input_length", "output_length", "hash_ids"), or is "" when the line is not
 * a JSON object at all.
 */
export interface TraceProblem {
  line: number;
  field: string;
  message: string;
}

/** What TraceLoader.finish() returns. */
export interface TraceLoadResult {
  /** True when a trace was read (possibly with skipped lines). */
  ok: boolean;
  /** The file name recorded in scenario.trace.name (directories dropped, at most 256 bytes). */
  name: string;
  bytes: number;
  lines: number;
  requests: number;
  /** Bad lines skipped (trace.on_error = "skip"). */
  skippedLines: number;
  /** The format read: "mooncake", "bailian" or "openai" (trace.format, or detected from the first JSON line); "auto" when no line told it. */
  format: string;
  /** Sum of the requests' input_length. */
  promptTokens: number;
  /** FNV-1a 64 of every byte fed, 16 hex digits ("" when the loader never started). */
  contentHash: string;
  /** The first 100 problems, in line order. */
  problems: TraceProblem[];
  /** Bad lines beyond those listed. */
  unlistedProblems: number;
  /**
   * What was read (JSON, schema "prefixroute.trace/1": requests, duration,
   * rate, prompt and output lengths, sessions, shared prefixes, ideal hit
   * rate, an openai log's key mapping): the bytes of `prefixroute --trace
   * FILE --trace-summary --json`. "" when no trace was read.
   */
  summaryJson: string;
}

/**
 * Reads a Mooncake-format JSONL trace incrementally (one request a line:
 * timestamp ms, input_length, output_length, hash_ids), so a big file can be
 * streamed in chunks split anywhere. The reading settings come from the
 * scenario given to the constructor: trace.block_size, trace.time_scale,
 * trace.limit and trace.on_error ("stop" at the first bad line, or "skip"
 * bad lines and count them). Never throws on input: a bad scenario, chunk or
 * line is reported as a value. Memory: O(requests + block ids). delete() when done.
 */
export interface TraceLoader extends EmbindHandle {
  /** Reads the next chunk. Once `going` is false, further chunks are ignored. */
  feed(chunk: TraceChunk): TraceFeedStatus;
  /** Ends the input (a last line without a newline counts) and returns the outcome; later calls return it again. */
  finish(): TraceLoadResult;
}

export interface TraceLoaderConstructor {
  /**
   * name: the file name, recorded in results (as prefixroute --trace
   * records the file's). scenarioJson / overridesJson as for runScenario;
   * only their trace reading settings matter here.
   */
  new (name: string, scenarioJson: string, overridesJson: string): TraceLoader;
}

/** runTrace's success: as runScenario's, plus the scenario as run (scenario.trace filled in). */
export interface TraceRunSuccess extends RunSuccess {
  /** Canonical scenario JSON with trace.name, lines, skipped_lines and content_hash of the loaded trace. */
  scenarioJson: string;
}

export type TraceRunResult = TraceRunSuccess | RunFailure;

export interface PrefixrouteModule {
  /**
   * Runs every policy of a scenario on one trace (once per seed when
   * replicates > 1: seeds seed .. seed + replicates - 1). scenarioJson may be "" (the
   * reference scenario); overridesJson is "" or a JSON array of [key, valueText]
   * pairs applied like the CLI's --set key=valueText (a non-string value is
   * taken as its JSON text). Never throws: every problem, including arguments
   * of the wrong type, is an error value. A scenario naming a trace
   * (trace.name) is refused: replay a trace with TraceLoader and runTrace.
   * Big runs take time (about 5 s per 100k requests for the default policies)
   * and block the calling thread: call it from a Web Worker.
   */
  runScenario(scenarioJson: string, overridesJson: string, onProgress: ProgressCallback | null): RunResult;
  /**
   * Runs every policy of a scenario on a finished TraceLoader's trace, with the
   * cache bounds: resultsJson is byte-identical to `prefixroute --trace
   * FILE --json` for the same file and scenario (scenario.trace records the
   * file's name, lines, skipped lines and content hash). The scenario's
   * trace reading settings must equal the loader's ("trace.*" errors
   * otherwise); a trace.content_hash given must match the file. A trace whose
   * prefill work at cluster.prefill_tokens_per_s exceeds 1e9 s is refused.
   * Never throws; blocks the calling thread like runScenario.
   */
  runTrace(
    loader: TraceLoader,
    scenarioJson: string,
    overridesJson: string,
    onProgress: ProgressCallback | null,
  ): TraceRunResult;
  /**
   * Runs the scenario once per value of one key and returns the sweep JSON.
   * sweepSpec is the CLI's --sweep text: "key=v1,v2,..." or
   * "key=from:to:steps" (evenly spaced, both ends included, 2 <= steps <= 200).
   * Every point is validated as runScenario validates a scenario before any
   * runs; errors name the field (a value's error carries `(sweep value "v")`),
   * or "(sweep)" for the spec itself and for a sweep over 2e7 requests in all
   * (points x the trace's requests: workload.requests, for gsp groups x prompts per group, for
   * prefix_repetition workload.requests rounded down to a multiple of its prefixes).
   * Never throws. Blocks: call it from a Web Worker.
   */
  runSweep(scenarioJson: string, overridesJson: string, sweepSpec: string, onProgress: SweepProgressCallback | null): SweepResult;
  /**
   * Per policy, the highest offered load at which the scenario's SLO
   * (slo.ttft_ms / slo.tpot_ms with their percentiles) holds, and the fewest
   * replicas that meet it at the scenario's load: a bracketing search, then
   * bisection to capacity.resolution, per seed (replicates). The load is
   * client.concurrency for a closed client, client.rate_per_s when set,
   * else the workload's arrival (or session) rate. The same checks as
   * runScenario, plus errors naming slo.ttft_ms (no SLO), client.kind (a
   * burst client) or client.stages; "(memory)" when the largest cluster
   * tried (capacity.max_replicas) could outgrow the module. capacityJson is
   * the CLI's bytes. Never throws. Blocks: call it from a Web Worker.
   */
  runCapacity(scenarioJson: string, overridesJson: string, onProgress: CapacityProgressCallback | null): CapacityResult;
  /**
   * runCapacity on a finished TraceLoader's trace: the load is the trace's
   * rate (trace.time_scale = 1 / load; a step at another scale multiplies
   * the arrivals read at the scenario's scale), with runTrace's checks of the
   * loader and the scenario. capacityJson is the bytes of
   * `prefixroute --trace FILE --capacity --json`. Never throws; blocks.
   */
  runTraceCapacity(
    loader: TraceLoader,
    scenarioJson: string,
    overridesJson: string,
    onProgress: CapacityProgressCallback | null,
  ): CapacityResult;
  /**
   * One shard of runScenario's work, for a pool of Web Workers: shard
   * shardIndex (1-based, 1..shardCount, as the CLI's --shard K/N) runs the
   * runs i of the experiment's run list (per replicate each policy, then the
   * ideal and pooled bounds) with i mod shardCount == shardIndex - 1, and
   * returns their shard document. The same checks and refusals as runScenario
   * (plus "(shard)" for bad indices); onProgress as runScenario's (run indices
   * of this shard's runs only). Never throws; blocks its thread.
   */
  runShard(
    scenarioJson: string,
    overridesJson: string,
    shardIndex: number,
    shardCount: number,
    onProgress: ProgressCallback | null,
  ): ShardResult;
  /**
   * One shard of runTrace's work on a finished TraceLoader's trace: the
   * page's pool gives each worker the trace once and a share of the runs.
   * Checks and refusals as runTrace, plus "(shard)"; the document is
   * `prefixroute --trace FILE --shard K/N --json`'s for the same file
   * and scenario; mergeShards of all N gives runTrace's resultsJson. Never
   * throws; blocks its thread.
   */
  runTraceShard(
    loader: TraceLoader,
    scenarioJson: string,
    overridesJson: string,
    shardIndex: number,
    shardCount: number,
    onProgress: ProgressCallback | null,
  ): TraceShardResult;
  /**
   * A sweep of a finished TraceLoader's trace: every point replays it.
   * sweepJson is byte-identical to `prefixroute --trace FILE --sweep
   * SPEC --json` for the same file, scenario and spec (its base scenario
   * records the trace). Checks as runSweep's for the spec and points and as
   * runTrace's for the trace, per point; a trace.* key (a reading setting) or
   * a workload.* key (the trace replaces the synthetic workload) is refused as
   * "(sweep)", and so is a sweep over 2e7 replayed requests in all. Never
   * throws; blocks its thread.
   */
  runTraceSweep(
    loader: TraceLoader,
    scenarioJson: string,
    overridesJson: string,
    sweepSpec: string,
    onProgress: SweepProgressCallback | null,
  ): SweepResult;
  /**
   * Merges the shardJson of all shards 1..N of one runShard (or
   * runTraceShard) split (any order) into runScenario's (runTrace's)
   * resultsJson, byte for byte. A wrong set is refused,
   * never merged: a shard missing or twice, shards of another scenario (the
   * first differing field named) or of another N, a run missing or in the
   * wrong shard, documents that are not shard documents. A merged synthetic
   * scenario gets runScenario's refusals too (the memory bound). Never throws.
   */
  mergeShards(documents: readonly string[]): MergeResult;
  /**
   * One shard of runSweep's work: the sweep's run list is its points' lists
   * one after another; shard K of N runs every N-th run from K - 1. Checks
   * as runSweep (and "(shard)"). Never throws; blocks its thread.
   */
  runSweepShard(
    scenarioJson: string,
    overridesJson: string,
    sweepSpec: string,
    shardIndex: number,
    shardCount: number,
    onProgress: SweepProgressCallback | null,
  ): SweepShardResult;
  /** Merges all N runSweepShard documents into runSweep's sweepJson, byte for byte; refusals as mergeShards. */
  mergeSweepShards(documents: readonly string[]): SweepResult;
  /**
   * The values a sweep spec runs, as runSweep expands it: "key=v1,v2,..." as
   * given; "key=from:to:steps" evenly spaced, and for an integer field rounded
   * half up without repeats. Errors name "(sweep)". Never throws.
   */
  expandSweep(sweepSpec: string): SweepExpansion;
  /** Parses and checks a scenario exactly as runScenario does, without running it. */
  validateScenario(scenarioJson: string, overridesJson: string): ValidateResult;
  /**
   * What the scenario's hardware.* and cluster settings mean for one replica,
   * with the arithmetic; a scenario that does not validate gives its errors
   * (an unknown model or GPU lists the allowed names; weights that do not fit
   * name hardware.gpu and hardware.tp). Never throws.
   */
  hardwareSummary(scenarioJson: string, overridesJson: string): HardwareSummaryResult;
  /**
   * The smallest tensor parallelism that holds the scenario's model on its
   * GPU with room for KV (one full-context request, as vLLM needs to start);
   * the scenario's own hardware.tp is ignored (it may be the refused one).
   * Errors only for the fields the choice reads (hardware.model "none" or
   * unknown, hardware.gpu, the data types, memory utilisation, block size).
   * Never throws.
   */
  smallestTp(scenarioJson: string, overridesJson: string): SmallestTpResult;
  /** JSON Schema (draft 2020-12) of the scenario document. */
  scenarioSchema(): string;
  /** Every policy, in report order. */
  policyCatalogue(): PolicyInfo[];
  /** Project version, e.g. "0.1.0". */
  version(): string;
  /**
   * The module's memory now: heapBytes is the wasm heap (it grows on demand
   * and never shrinks), inUseBytes what malloc has handed out and not taken
   * back. A finished run leaves inUseBytes where it found it.
   */
  memoryStats(): MemoryStats;

  TraceLoader: TraceLoaderConstructor;
  RadixCache: RadixCacheConstructor;
  Cluster: ClusterConstructor;
  /** The policies' common base: for `instanceof`; not constructible. */
  RoutingPolicy: abstract new () => RoutingPolicy;
  RoundRobin: new () => RoutingPolicy;
  LeastLoaded: new () => RoutingPolicy;
  Affinity: new () => RoutingPolicy;
  /** loadSlackSeconds in [0, 3600], default 0.05. */
  AffinityBalanced: new (loadSlackSeconds?: number) => AffinityBalanced;
}

declare function createPrefixroute(options?: PrefixrouteOptions): Promise<PrefixrouteModule>;
export default createPrefixroute;
