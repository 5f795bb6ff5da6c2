import { AgentOptionsError } from './agent-cli';

/** What every adapter (claude-code.ts, codex.ts, gemini.ts) needs to build arguments and read JSON lines. */

// No shell reads the argument list, but the CLI's own option parser does: a value starting with "-"
// would be taken for an option.
export function optionValue(name: string, value: string): string {
  if (value.trim() === '' || value.startsWith('-')) {
    throw new AgentOptionsError(`${name} must be non-empty and must not start with "-", got "${value}"`);
  }
  return value;
}

export type JsonObject = Record<string, unknown>;

/** One line of standard output as a JSON object, or null (not JSON, or not an object). */
export function parseObject(line: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The columns are INT: a count beyond it (never seen) is stored as its maximum rather than failing the record. */
export const MAX_TOKEN_COUNT = 2_147_483_647;

/** A token count a CLI reported, bounded by the column; null when it is not a non-negative integer. */
export function tokenCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? Math.min(value, MAX_TOKEN_COUNT) : null;
}
