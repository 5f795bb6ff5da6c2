import {
  AgentOptionsError,
  DEFAULT_PERMISSION_MODE,
  PERMISSION_MODES,
  type AgentCli,
  type AgentEvent,
  type AgentRunOptions,
} from './agent-cli';

/**
 * Claude Code in print mode with streaming JSON output:
 *   claude -p --output-format stream-json --verbose [--max-turns N] --permission-mode MODE
 *          [--model MODEL] [--resume SESSION_ID] [--system-prompt TEXT] [--allowedTools A,B]
 * with the prompt on standard input. Claude Code refuses stream-json in print mode without --verbose.
 */
export const claudeCode: AgentCli = {
  name: 'claude-code',

  buildArgs(options: AgentRunOptions): string[] {
    if (!Number.isInteger(options.maxTurns) || options.maxTurns < 0) {
      throw new AgentOptionsError(`maxTurns must be a non-negative integer, got ${options.maxTurns}`);
    }
    const permissionMode = options.permissionMode ?? DEFAULT_PERMISSION_MODE;
    if (!PERMISSION_MODES.includes(permissionMode)) {
      throw new AgentOptionsError(`permissionMode must be one of ${PERMISSION_MODES.join(', ')}, got ${permissionMode}`);
    }
    const args = ['-p', '--output-format', 'stream-json', '--verbose'];
    // 0 is the panel's "no limit": the CLI's own default applies.
    if (options.maxTurns > 0) args.push('--max-turns', String(options.maxTurns));
    args.push('--permission-mode', permissionMode);
    if (options.model !== undefined) args.push('--model', optionValue('model', options.model));
    if (options.resumeSessionId !== undefined) args.push('--resume', optionValue('resumeSessionId', options.resumeSessionId));
    if (options.systemPrompt !== undefined) args.push('--system-prompt', optionValue('systemPrompt', options.systemPrompt));
    if (options.allowedTools !== undefined && options.allowedTools.length > 0) {
      args.push('--allowedTools', options.allowedTools.map((tool) => toolName(tool)).join(','));
    }
    return args;
  },

  parseLine(line: string): AgentEvent {
    const raw: AgentEvent = { kind: 'raw', line };
    const event = parseObject(line);
    if (event === null) return raw;

    if (event.type === 'system' && event.subtype === 'init' && typeof event.session_id === 'string') {
      return { kind: 'init', sessionId: event.session_id, model: stringOrNull(event.model), cwd: stringOrNull(event.cwd) };
    }
    if (event.type === 'assistant') {
      // A failed API call (401, 429, 529 after retries) comes as a synthetic assistant message holding
      // the error text: the model did not say it; the result event carries it as the error.
      if (event.is_api_error_message === true) return raw;
      const text = assistantText(event.message);
      return text === null ? raw : { kind: 'text', text, sessionId: stringOrNull(event.session_id) };
    }
    if (event.type === 'result') {
      const subtype = stringOrNull(event.subtype);
      return {
        kind: 'result',
        isError: event.is_error === true || (subtype !== null && subtype !== 'success'),
        subtype,
        resultText: resultText(event),
        sessionId: stringOrNull(event.session_id),
        costUsd: numberOrNull(event.total_cost_usd),
        durationMs: numberOrNull(event.duration_ms),
        turns: numberOrNull(event.num_turns),
      };
    }
    return raw;
  },
};

// No shell reads the argument list, but the CLI's own option parser does: a value starting with "-"
// would be taken for an option.
function optionValue(name: string, value: string): string {
  if (value.trim() === '' || value.startsWith('-')) {
    throw new AgentOptionsError(`${name} must be non-empty and must not start with "-", got "${value}"`);
  }
  return value;
}

// The list goes as one comma-separated value: a comma inside a name would split it into two.
function toolName(value: string): string {
  if (value.includes(',')) throw new AgentOptionsError(`allowedTools entries must not contain ",", got "${value}"`);
  return optionValue('allowedTools entry', value.trim());
}

type JsonObject = Record<string, unknown>;

function parseObject(line: string): JsonObject | null {
  try {
    const value: unknown = JSON.parse(line);
    return isObject(value) ? value : null;
  } catch {
    return null;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The text blocks of an assistant message, joined; null when it holds none (a tool call only). */
function assistantText(message: unknown): string | null {
  if (!isObject(message) || !Array.isArray(message.content)) return null;
  const texts = message.content
    .filter((block): block is JsonObject => isObject(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string);
  return texts.length === 0 ? null : texts.join('');
}

// Error results of newer Claude Code versions carry `errors` (a list of messages) instead of `result`.
function resultText(event: JsonObject): string | null {
  if (typeof event.result === 'string') return event.result;
  if (Array.isArray(event.errors)) {
    const errors = event.errors.filter((error): error is string => typeof error === 'string');
    if (errors.length > 0) return errors.join('; ');
  }
  return null;
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
