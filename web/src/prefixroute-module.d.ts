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

export interface PrefixrouteModule {
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
}

export type PrefixrouteFactory = (options?: {
  wasmBinary?: ArrayBuffer | Uint8Array;
  locateFile?: (path: string, prefix: string) => string;
}) => Promise<PrefixrouteModule>;
