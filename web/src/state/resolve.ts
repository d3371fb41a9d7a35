// Turns a list of overrides (from a link or the controls) into the largest
// valid set the core accepts, so one bad field falls back to its default
// instead of blanking the run. The core's validateScenario decides; this
// only chooses which overrides to drop.

import type { FieldError, ValidateOutcome } from '../worker/prefixroute-module';
import type { Rejection } from '../worker/protocol';
import type { Pair } from './schema';

export type Validate = (overrides: Pair[]) => ValidateOutcome;

export interface Resolved {
  accepted: Pair[];
  rejected: Rejection[];
  /** Canonical scenario JSON of the accepted overrides. */
  scenarioJson: string;
}

function lastWins(overrides: Pair[]): Pair[] {
  const map = new Map<string, string>();
  for (const [k, v] of overrides) {
    map.delete(k);
    map.set(k, v);
  }
  return [...map];
}

function describe(errors: FieldError[], key: string): string {
  return errors.map((e) => (e.field === key ? e.message : `${e.field}: ${e.message}`)).join('; ');
}

/**
 * 1. All overrides valid: take them. 2. Drop those whose field the core
 * names, retry. 3. Otherwise add the rest one by one, keeping each that
 * leaves the scenario valid (handles cross-field errors that name a field
 * the link did not set).
 */
export function resolveOverrides(validate: Validate, input: Pair[]): Resolved {
  const overrides = lastWins(input);
  const first = validate(overrides);
  if (first.ok && first.scenarioJson) return { accepted: overrides, rejected: [], scenarioJson: first.scenarioJson };

  const rejected: Rejection[] = [];
  const named = new Set(first.errors.map((e) => e.field));
  let remaining: Pair[] = [];
  for (const [key, value] of overrides) {
    if (named.has(key)) {
      const mine = first.errors.filter((e) => e.field === key);
      rejected.push({ key, value, message: describe(mine, key) });
    } else {
      remaining.push([key, value]);
    }
  }
  const second = validate(remaining);
  if (second.ok && second.scenarioJson) return { accepted: remaining, rejected, scenarioJson: second.scenarioJson };

  const accepted: Pair[] = [];
  let scenarioJson = '';
  for (const pair of remaining) {
    const attempt = validate([...accepted, pair]);
    if (attempt.ok && attempt.scenarioJson) {
      accepted.push(pair);
      scenarioJson = attempt.scenarioJson;
    } else {
      rejected.push({ key: pair[0], value: pair[1], message: describe(attempt.errors, pair[0]) });
    }
  }
  remaining = accepted;
  if (!scenarioJson) {
    const base = validate([]);
    scenarioJson = base.ok ? base.scenarioJson : '{}';
  }
  return { accepted: remaining, rejected, scenarioJson };
}
