// Hand-written declarations of the Emscripten module built by
// scripts/build-wasm.sh (Emscripten 3.1.6 has no --emit-tsd). The generated
// files are not committed, so the declarations live beside them, not inside.

/** A problem with a scenario, named by its dotted field. */
export interface FieldError {
  field: string;
  message: string;
}

/** Per-request numbers of one policy's run, copied out of wasm memory. */
export interface PolicySeries {
  policy: string;
  ttftMs: Float64Array;
  replicaOf: Uint32Array;
  cachedTokens: Uint32Array;
}

export type RunOutcome =
  | { ok: true; resultsJson: string; series: PolicySeries[] }
  | { ok: false; errors: FieldError[]; cancelled?: boolean };

export type SweepOutcome =
  | { ok: true; sweepJson: string }
  | { ok: false; errors: FieldError[]; cancelled?: boolean };

export interface ValidateOutcome {
  ok: boolean;
  errors: FieldError[];
  /** Canonical scenario JSON (every field), present when ok. */
  scenarioJson?: string;
}

export interface PolicyInfo {
  name: string;
  label: string;
}

/** A trace read in chunks (wasm/prefixroute.d.ts documents it in full). */
export interface TraceLoaderHandle {
  feed(chunk: Uint8Array | string): { going: boolean; bytes: number; lines: number; requests: number; error: string };
  finish(): {
    ok: boolean;
    name: string;
    bytes: number;
    lines: number;
    requests: number;
    skippedLines: number;
    promptTokens: number;
    contentHash: string;
    problems: { line: number; field: string; message: string }[];
    unlistedProblems: number;
  };
  delete(): void;
}

export type TraceRunOutcome =
  | { ok: true; resultsJson: string; scenarioJson: string; series: PolicySeries[] }
  | { ok: false; errors: FieldError[]; cancelled?: boolean };

export interface PrefixrouteModule {
  /** Reading settings (trace.on_error, ...) come from scenarioJson / overridesJson. */
  TraceLoader: new (name: string, scenarioJson: string, overridesJson: string) => TraceLoaderHandle;
  /** Runs a scenario on a finished loader's trace; results as prefixroute-bench --trace FILE. */
  runTrace(
    loader: TraceLoaderHandle,
    scenarioJson: string,
    overridesJson: string,
    onProgress: ((policyIndex: number, done: number, total: number) => boolean) | null,
  ): TraceRunOutcome;
  /** overridesJson: JSON array of [dottedKey, valueText] pairs, like the CLI's --set. */
  runScenario(
    scenarioJson: string,
    overridesJson: string,
    onProgress: ((policyIndex: number, done: number, total: number) => boolean) | null,
  ): RunOutcome;
  validateScenario(scenarioJson: string, overridesJson: string): ValidateOutcome;
  /** sweepSpec: the CLI's --sweep text ("key=from:to:steps" or "key=v1,v2,..."). */
  runSweep(
    scenarioJson: string,
    overridesJson: string,
    sweepSpec: string,
    onProgress: ((point: number, phase: number, done: number, total: number) => boolean) | null,
  ): SweepOutcome;
  scenarioSchema(): string;
  policyCatalogue(): PolicyInfo[];
  /** wasm heap size and malloc'd bytes in use (see wasm/prefixroute.d.ts). */
  memoryStats(): { heapBytes: number; inUseBytes: number };
}

export type PrefixrouteFactory = (options?: {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
}) => Promise<PrefixrouteModule>;
