import type http from 'node:http';
import type { ModelProtocol, ProtocolContext } from './protocols';
import { parseScenario } from './scenarios';
import { scenarioReply, STAND_IN_API_KEY, type RecordedRequest, type ScriptedReply, type StandInModel } from './server';

/**
 * OpenAI's Responses API as the pinned Codex CLI (@openai/codex 0.169.0) calls it: `POST
 * <base_url>/responses` with `stream: true`, answered with server-sent events over plain HTTP (the
 * adapter's provider sets `supports_websockets = false`, so Codex never tries the WebSocket transport;
 * activities/agents/codex.ts, docs/codex-cli.md). The stand-in's `url` + `/v1` is the provider's
 * `base_url` (`openaiStandInEnv`), so the path is `/v1/responses`; a base URL without `/v1` gives
 * `/responses`, answered the same.
 *
 * The reply is chosen as for the Messages API (scenarios.ts, server.ts `scenarioReply`), from the
 * latest prompt: the last user text of `input` that is not a block Codex adds itself
 * (`<environment_context>…`, `# AGENTS.md instructions…`). A tool's outcome Codex sends back
 * (`function_call_output` / `custom_tool_call_output` after that prompt) is read as the Messages API's
 * `tool_result`, so each scenario's second step is the same. A `Bash` tool call of a scenario becomes
 * the shell tool the request offers: `exec_command` (`{cmd}`, the unified exec tool of gpt-5.5 and of
 * models Codex has no metadata for), `shell_command` (`{command}`), `shell` (`{command: [argv]}`), or
 * in code mode (the default model's tool set: one custom `exec` tool taking JavaScript) a script that
 * calls `tools.exec_command` and returns its output.
 *
 * A stream is `response.created`, `response.in_progress`, per output item `response.output_item.added`
 * … `response.output_item.done` (a message: `response.content_part.added`, its text in
 * `response.output_text.delta` events, `response.output_text.done`, `response.content_part.done`; a
 * function call: `response.function_call_arguments.delta` pieces and `…done`; a custom tool call:
 * `response.custom_tool_call_input.delta` and `…done`), then `response.completed` with the whole
 * response and its `usage` (10 input tokens, a token per 4 characters out). Codex uses the
 * `output_item.done` items and `response.completed` (its SSE parser ignores the rest). An error is the
 * scenario's HTTP status with the API's body `{"error":{"message","type","param","code"}}`. A request
 * without `stream: true` gets the whole response as one JSON object.
 *
 * Before any scenario, the first scripted reply (`enqueueResponses`) whose `when` accepts the request
 * answers it, as `StandInModel.enqueue` does for the Messages API: recorded `openai-responses:queue`.
 */

type Json = Record<string, unknown>;

export const openaiResponses: ModelProtocol = {
  name: 'openai-responses',
  matches: (method, path) => method === 'POST' && (path === '/v1/responses' || path === '/responses'),
  answer: answerResponses,
};

/** The environment that points the adapter's Codex provider at a stand-in (activities/agents/codex.ts reads it). */
export function openaiStandInEnv(model: Pick<StandInModel, 'url'>): Record<string, string> {
  return { OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_API_KEY: STAND_IN_API_KEY };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function inputOf(body: unknown): Json[] {
  if (!isObject(body)) return [];
  if (typeof body.input === 'string') return [{ type: 'message', role: 'user', content: body.input }];
  return Array.isArray(body.input) ? body.input.filter(isObject) : [];
}

function textsOf(message: Json): string[] {
  if (typeof message.content === 'string') return [message.content];
  if (!Array.isArray(message.content)) return [];
  return message.content
    .filter(isObject)
    .filter((part) => typeof part.text === 'string')
    .map((part) => part.text as string);
}

/** What Codex puts in user messages itself: `<environment_context>…</environment_context>` and the like, AGENTS.md's contents. */
function addedByCodex(text: string): boolean {
  const trimmed = text.trim();
  return /^<([a-z_]+)>[\s\S]*<\/\1>$/.test(trimmed) || trimmed.startsWith('# AGENTS.md instructions');
}

function isUserMessage(item: Json): boolean {
  return (item.type === 'message' || item.type === undefined) && item.role === 'user';
}

/** The user's own texts in `input`, in order (Codex sends the stdin prompt with its trailing newline). */
export function responsesPromptsOf(body: unknown): string[] {
  return inputOf(body)
    .filter(isUserMessage)
    .flatMap(textsOf)
    .filter((text) => !addedByCodex(text));
}

/** The tool outputs Codex sent back after the latest user message: non-empty when a tool call of this turn has run. */
export function responsesToolOutputsOf(body: unknown): Array<{ callId: string; text: string }> {
  const input = inputOf(body);
  let lastUser = -1;
  input.forEach((item, index) => {
    if (isUserMessage(item) && textsOf(item).some((text) => !addedByCodex(text))) lastUser = index;
  });
  return input
    .slice(lastUser + 1)
    .filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
    .map((item) => ({ callId: String(item.call_id), text: outputText(item.output) }));
}

function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    return output
      .filter(isObject)
      .map((part) => (typeof part.text === 'string' ? part.text : ''))
      .join('');
  }
  if (isObject(output) && typeof output.content === 'string') return output.content;
  return '';
}

/**
 * A tool's output as the command printed it: Codex's unified exec tool wraps it in a header
 * (`Chunk ID`, `Wall time`, `Process exited with code N`, `Output:`); the command failed when N is not 0.
 */
export function commandOutput(text: string): { output: string; failed: boolean } {
  const exit = /Process exited with code (\d+)/.exec(text) ?? /Exit code: (\d+)/.exec(text);
  const at = text.indexOf('Output:\n');
  return { output: at === -1 ? text : text.slice(at + 'Output:\n'.length), failed: exit !== null && exit[1] !== '0' };
}

/** The request as the Messages API would carry it, for the shared scenarios: the latest prompt, then the tool's outcome. */
function asMessagesBody(prompt: string, outputs: Array<{ callId: string; text: string }>): Json {
  const messages: Json[] = [{ role: 'user', content: [{ type: 'text', text: prompt }] }];
  if (outputs.length > 0) {
    messages.push(
      { role: 'assistant', content: [] },
      {
        role: 'user',
        content: outputs.map((result) => {
          const { output, failed } = commandOutput(result.text);
          return { type: 'tool_result', tool_use_id: result.callId, content: output, is_error: failed };
        }),
      },
    );
  }
  return { messages };
}

/** The shell tool the request offers Codex's model, by its name in `tools` (or in code mode, the `exec` tool of an `additional_tools` item). */
type ShellTool = 'exec_command' | 'shell_command' | 'shell' | 'code_mode_exec';

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  return tools.filter(isObject).flatMap((tool) => {
    if (tool.type === 'namespace') return toolNames(tool.tools).map((name) => `${String(tool.name)}.${name}`);
    return typeof tool.name === 'string' ? [tool.name] : [];
  });
}

export function shellToolOf(body: unknown): ShellTool | null {
  const names = [
    ...toolNames(isObject(body) ? body.tools : undefined),
    ...inputOf(body)
      .filter((item) => item.type === 'additional_tools')
      .flatMap((item) => toolNames(item.tools)),
  ];
  for (const tool of ['exec_command', 'shell_command', 'shell'] as const) if (names.includes(tool)) return tool;
  if (names.includes('functions.exec') || names.includes('exec')) return 'code_mode_exec';
  return null;
}

const ERROR_TYPES: Record<number, { type: string; code: string | null; message: string }> = {
  400: { type: 'invalid_request_error', code: null, message: 'Invalid request' },
  401: { type: 'invalid_request_error', code: 'invalid_api_key', message: 'Incorrect API key provided: sk-stand-in' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory', message: 'Forbidden' },
  404: { type: 'invalid_request_error', code: 'model_not_found', message: 'The model does not exist or you do not have access to it.' },
  429: { type: 'requests', code: 'rate_limit_exceeded', message: 'Rate limit reached for requests' },
  500: { type: 'server_error', code: 'server_error', message: 'The server had an error while processing your request.' },
  503: { type: 'server_error', code: 'server_is_overloaded', message: 'The engine is currently overloaded, please try again later.' },
};

/**
 * Scripted replies of the Responses API, in the Messages API's terms (a `Bash` tool_use is the shell
 * tool the request offers). One queue for every stand-in of the process (a protocol is a module, not
 * a server's): give each reply a `when` that names its run (its prompt), as the suites do with `enqueue`.
 */
const queue: ScriptedReply[] = [];

/** Queues replies taken, in order, before any scenario: the first whose `when` accepts the request (none: any). */
export function enqueueResponses(...replies: ScriptedReply[]): void {
  queue.push(...replies);
}

function queuedReply(recorded: RecordedRequest): ScriptedReply | null {
  const index = queue.findIndex((reply) => reply.when === undefined || reply.when(recorded));
  return index === -1 ? null : queue.splice(index, 1)[0]!;
}

let responseCount = 0;

async function answerResponses(response: http.ServerResponse, recorded: RecordedRequest, context: ProtocolContext): Promise<void> {
  const body = recorded.body;
  const prompt = responsesPromptsOf(body).at(-1) ?? '';
  const scenario = parseScenario(prompt);
  const outputs = responsesToolOutputsOf(body);
  const queued = queuedReply(recorded);
  const reply: ScriptedReply =
    queued ?? (scenario === null ? { kind: 'text', text: context.defaultReply } : scenarioReply(scenario, asMessagesBody(prompt, outputs)));
  recorded.answer =
    queued !== null
      ? 'openai-responses:queue'
      : scenario === null
        ? 'openai-responses:default'
        : `openai-responses:scenario:${scenario.name}`;

  if (reply.kind === 'error') {
    const known = ERROR_TYPES[reply.status] ?? { type: 'server_error', code: null, message: `stand-in error ${reply.status}` };
    sendJson(response, recorded, reply.status, {
      error: { message: reply.message ?? known.message, type: reply.errorType ?? known.type, param: null, code: known.code },
    });
    return;
  }

  responseCount += 1;
  const id = `resp_standin_${responseCount}`;
  const model = isObject(body) && typeof body.model === 'string' ? body.model : 'gpt-stand-in';
  const items: OutputItem[] = [];
  const text = reply.text;
  if (text !== undefined) {
    const pieces = reply.kind === 'text' && reply.pieces ? reply.pieces : splitText(text, reply.kind === 'text' ? (reply.deltas ?? 1) : 1);
    items.push({
      kind: 'message',
      id: `msg_standin_${responseCount}`,
      text,
      pieces,
      delayMs: reply.kind === 'text' ? reply.delayMs : undefined,
    });
  }
  if (reply.kind === 'tool_use') {
    const tool = shellToolOf(body);
    const command = typeof reply.input.command === 'string' ? reply.input.command : '';
    if (tool === null || reply.name !== 'Bash' || command === '') {
      sendJson(response, recorded, 400, {
        error: { message: `stand-in: no shell tool offered for ${reply.name}`, type: 'invalid_request_error', param: 'tools', code: null },
      });
      return;
    }
    // A scenario that asks for a long-running tool (sleep) waits as long as the tool lets it.
    const long = typeof reply.input.timeout === 'number';
    items.push(toolCall(tool, command, long, responseCount));
  }

  const outputChars = items.reduce((sum, item) => sum + (item.kind === 'message' ? item.text.length : item.payload.length), 0);
  const usage = {
    input_tokens: 10,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 10 + Math.max(1, Math.ceil(outputChars / 4)),
  };
  const base = { id, object: 'response', created_at: Math.floor(recorded.receivedAt / 1000), model };
  const completed = { ...base, status: 'completed', error: null, output: items.map(finalItem), usage };

  if (!isObject(body) || body.stream !== true) {
    sendJson(response, recorded, 200, completed);
    return;
  }

  recorded.status = 200;
  recorded.streamCompleted = false;
  response.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-request-id': id,
  });
  let sequence = 0;
  const send = (event: Json & { type: string }): void => {
    response.write(`event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`);
    sequence += 1;
  };
  const inProgress = { ...base, status: 'in_progress', error: null, output: [], usage: null };
  send({ type: 'response.created', response: inProgress });
  send({ type: 'response.in_progress', response: inProgress });
  for (const [index, item] of items.entries()) {
    if (response.destroyed) return clientGone(recorded);
    if (item.kind === 'message') {
      send({ type: 'response.output_item.added', output_index: index, item: { ...finalItem(item), status: 'in_progress', content: [] } });
      const part = { type: 'output_text', text: '', annotations: [] };
      send({ type: 'response.content_part.added', item_id: item.id, output_index: index, content_index: 0, part });
      for (const piece of item.pieces) {
        if (item.delayMs !== undefined) {
          const pause = item.delayMs;
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
        // A cancelled run closes the connection: a slow stream ends there.
        if (response.destroyed) return clientGone(recorded);
        send({ type: 'response.output_text.delta', item_id: item.id, output_index: index, content_index: 0, delta: piece });
        context.onTextDelta?.(piece);
      }
      send({ type: 'response.output_text.done', item_id: item.id, output_index: index, content_index: 0, text: item.text });
      send({
        type: 'response.content_part.done',
        item_id: item.id,
        output_index: index,
        content_index: 0,
        part: { ...part, text: item.text },
      });
    } else {
      const final = finalItem(item);
      const field = item.kind === 'function_call' ? 'arguments' : 'input';
      const kind = item.kind === 'function_call' ? 'function_call_arguments' : 'custom_tool_call_input';
      send({ type: 'response.output_item.added', output_index: index, item: { ...final, status: 'in_progress', [field]: '' } });
      // The arguments arrive in pieces, as the API may cut them anywhere.
      for (const piece of splitText(item.payload, 2))
        send({ type: `response.${kind}.delta`, item_id: item.id, output_index: index, delta: piece });
      send({ type: `response.${kind}.done`, item_id: item.id, output_index: index, [field]: item.payload });
    }
    send({ type: 'response.output_item.done', output_index: index, item: finalItem(item) });
  }
  send({ type: 'response.completed', response: completed });
  response.end();
  recorded.streamCompleted = true;
  recorded.endedAt = Date.now();
}

type OutputItem =
  | { kind: 'message'; id: string; text: string; pieces: string[]; delayMs: number | undefined }
  | { kind: 'function_call' | 'custom_tool_call'; id: string; callId: string; name: string; payload: string };

/** The shell command as a call of the offered tool (the exec_command and code-mode yields at their maximum for a long tool). */
function toolCall(tool: ShellTool, command: string, long: boolean, count: number): OutputItem {
  const ids = { id: `fc_standin_${count}`, callId: `call_standin_${count}` };
  switch (tool) {
    case 'exec_command':
      return {
        kind: 'function_call',
        ...ids,
        name: tool,
        payload: JSON.stringify({ cmd: command, ...(long ? { yield_time_ms: 30_000 } : {}) }),
      };
    case 'shell_command':
      return { kind: 'function_call', ...ids, name: tool, payload: JSON.stringify({ command, ...(long ? { timeout_ms: 600_000 } : {}) }) };
    case 'shell':
      return {
        kind: 'function_call',
        ...ids,
        name: tool,
        payload: JSON.stringify({ command: ['bash', '-lc', command], ...(long ? { timeout_ms: 600_000 } : {}) }),
      };
    case 'code_mode_exec': {
      const call = JSON.stringify({ cmd: command, ...(long ? { yield_time_ms: 30_000 } : {}) });
      const script = [
        ...(long ? ['// @exec: {"yield_time_ms": 600000}'] : []),
        `const result = await tools.exec_command(${call});`,
        'text(typeof result === "string" ? result : (result.output ?? JSON.stringify(result)));',
      ].join('\n');
      return { kind: 'custom_tool_call', ...ids, name: 'exec', payload: script };
    }
  }
}

function finalItem(item: OutputItem): Json {
  if (item.kind === 'message') {
    return {
      type: 'message',
      id: item.id,
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', text: item.text, annotations: [] }],
    };
  }
  if (item.kind === 'function_call') {
    return { type: 'function_call', id: item.id, status: 'completed', call_id: item.callId, name: item.name, arguments: item.payload };
  }
  return { type: 'custom_tool_call', id: item.id, status: 'completed', call_id: item.callId, name: item.name, input: item.payload };
}

function splitText(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, parts)));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces.length === 0 ? [''] : pieces;
}

function clientGone(recorded: RecordedRequest): void {
  recorded.endedAt = Date.now();
}

function sendJson(response: http.ServerResponse, recorded: RecordedRequest, status: number, body: unknown): void {
  recorded.status = status;
  response.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_standin_${status}` });
  response.end(JSON.stringify(body));
  recorded.endedAt = Date.now();
}
