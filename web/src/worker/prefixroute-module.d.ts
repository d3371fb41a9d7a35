// The WebAssembly module's types, as the page names them. The declarations
// themselves are written once, by hand, in wasm/prefixroute.d.ts (Emscripten
// 3.1.6 has no --emit-tsd); this file only gives the page's names to them.

export type {
  FieldError,
  PolicyInfo,
  PolicySeries,
  PolicyTimeline,
  PrefixrouteModule,
  RunResult as RunOutcome,
  SweepResult as SweepOutcome,
  TraceLoader as TraceLoaderHandle,
  TraceRunResult as TraceRunOutcome,
  ValidateResult as ValidateOutcome,
} from '../../../wasm/prefixroute';

import type { PrefixrouteModule, PrefixrouteOptions } from '../../../wasm/prefixroute';

export type PrefixrouteFactory = (options?: PrefixrouteOptions) => Promise<PrefixrouteModule>;
