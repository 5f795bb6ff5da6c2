import type { OutputChunk } from '../../lib/live-output';
import { AgentOptionsError } from './agent-cli';

/** What every adapter (claude-code.ts, codex.ts, gemini.ts) needs to build arguments, read JSON lines and make terminal lines. */

// No shell reads the argument list, but the CLI's own option parser does: a value starting with "-"
// would be taken for an option.
export function optionValue(name: string, value: string): string {
  if (value.trim() === '' || value.startsWith('-')) {
    throw new AgentOptionsError(`${name} não pode ser vazio nem começar com "-", recebido "${value}"`);
  }
  return value;
}

/** An agent's turn limit as every CLI takes it: a non-negative integer (0: no limit). */
export function checkedMaxTurns(maxTurns: number): number {
  if (!Number.isInteger(maxTurns) || maxTurns < 0)
    throw new AgentOptionsError(`maxTurns deve ser um inteiro não negativo, recebido ${maxTurns}`);
  return maxTurns;
}

/** The permission mode given, else the CLI's default, when it is one of the CLI's `modes`. */
export function checkedPermissionMode(given: string | undefined, modes: readonly string[], fallback: string): string {
  const mode = given ?? fallback;
  if (!modes.includes(mode)) throw new AgentOptionsError(`permissionMode deve ser um destes: ${modes.join(', ')}; recebido ${mode}`);
  return mode;
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

/** A value that must say something (a system prompt): AgentOptionsError when blank. */
export function nonEmpty(name: string, value: string): string {
  if (value.trim() === '') throw new AgentOptionsError(`${name} não pode ser vazio, recebido "${value}"`);
  return value;
}

/** `text`, cut to `max` characters with "..." when longer. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}...`;
}

/** Text without its surrounding line ends; nothing for blank text (the panel ignores empty lines). */
export function textChunk(text: string): OutputChunk[] {
  const content = text.replace(/^\n+|\s+$/g, '');
  return content.trim() === '' ? [] : [{ type: 'chunk', content }];
}

/** A line of standard error as a terminal line, trimmed; none when blank. */
export function stderrChunk(line: string): OutputChunk[] {
  const content = line.trim();
  return content === '' ? [] : [{ type: 'stderr', content }];
}

/** Characters of streamed text held while waiting for a line end, before they are sent anyway. */
export const MAX_HELD_TEXT = 2_000;

/** Streamed text (deltas) held until a line ends, or MAX_HELD_TEXT characters: the terminal gets whole lines. */
export class HeldText {
  private held = '';

  /** The lines `text` completes (with what was held), as one chunk; none while no line ended. */
  add(text: string): OutputChunk[] {
    this.held += text;
    const lineEnd = this.held.lastIndexOf('\n');
    if (lineEnd === -1 && this.held.length < MAX_HELD_TEXT) return [];
    const cut = lineEnd === -1 ? this.held.length : lineEnd + 1;
    const ready = this.held.slice(0, cut);
    this.held = this.held.slice(cut);
    return textChunk(ready);
  }

  /** Whatever is held, as a chunk (a block or message ended). */
  flush(): OutputChunk[] {
    const rest = this.held;
    this.held = '';
    return textChunk(rest);
  }
}
