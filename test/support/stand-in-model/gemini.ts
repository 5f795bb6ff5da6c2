import type http from 'node:http';
import type { ModelProtocol, ProtocolContext } from './protocols';
import { parseScenario, SAFE_WORD, type Scenario } from './scenarios';
import type { RecordedRequest, ScriptedReply } from './server';

/**
 * Gemini's generateContent API as the pinned Gemini CLI (0.61.0, through @google/genai with
 * GOOGLE_GEMINI_BASE_URL) calls it: docs/gemini-cli.md.
 *
 *   POST /v1beta/models/<model>:streamGenerateContent?alt=sse   server-sent events, one
 *        `data: <GenerateContentResponse>` frame per chunk (the CLI's main conversation)
 *   POST /v1beta/models/<model>:generateContent                 one GenerateContentResponse (side calls)
 *   POST /v1beta/models/<model>:countTokens                     `{"totalTokens":10}`
 *
 * (`/v1/` and `/v1alpha/` are taken too: GOOGLE_GENAI_API_VERSION changes the prefix.) The reply is
 * the scenario (scenarios.ts) the latest user text of `contents` names (its `text` parts; not the
 * CLI's `<session_context>` part, not a `functionResponse`), else the default reply. A chunk holds
 * `candidates[0].content.parts` (text, or a `functionCall`); the last one also `finishReason: "STOP"`
 * and `usageMetadata`. An error is that HTTP status with the API's body `{"error":{code,message,status}}`.
 * A request for JSON (`responseMimeType: application/json`; without `-m`, the CLI's routing call asks
 * for a complexity score first) gets an object of its schema instead. Before any scenario, the first
 * scripted reply (`enqueueGemini`) whose `when` accepts the request answers it, as
 * `StandInModel.enqueue` does for the Messages API. Recorded as `gemini:scenario:<name>`,
 * `gemini:default`, `gemini:queue`, `gemini:json`, or `gemini:other` (token counting).
 */

/** The text of `stand-in:text`, as the Messages API's (server.ts STAND_IN_TEXT; not imported: server.ts imports this module). */
export const GEMINI_STAND_IN_TEXT = 'Stand-in answer in four parts.';
/** The CLI's shell tool, as its function declaration names it. */
export const GEMINI_SHELL_TOOL = 'run_shell_command';

const PATH = /^\/v1(?:beta|alpha)?\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/;

type Json = Record<string, unknown>;

interface Usage {
  input: number;
  /** Output tokens; a token per 4 characters of the reply when absent. */
  output?: number;
  /** Of `input`, read from the cache (`cachedContentTokenCount`). */
  cached: number;
  /** Thinking tokens (`thoughtsTokenCount`): counted in `totalTokenCount`, not in `candidatesTokenCount`. */
  thoughts: number;
}

interface TextReply {
  kind: 'text';
  /** The chunks' texts, in order. */
  pieces: string[];
  delayMs?: number;
  usage?: Partial<Usage>;
}

interface CallReply {
  kind: 'call';
  name: string;
  args: Json;
  /** A text chunk before the call. */
  text?: string;
}

interface ErrorReply {
  kind: 'error';
  status: number;
  message?: string;
}

type Reply = TextReply | CallReply | ErrorReply;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function contentsOf(body: unknown): Json[] {
  return isObject(body) && Array.isArray(body.contents) ? body.contents.filter(isObject) : [];
}

function partsOf(content: Json): Json[] {
  return Array.isArray(content.parts) ? content.parts.filter(isObject) : [];
}

/** Context the CLI puts before the prompt in the first user turn, not the user's words. */
const CLI_CONTEXT = /^\s*<(session_context|hook_context)>/;

/** The user's own texts of a generateContent request, in order (the CLI's context parts left out). */
export function geminiPromptsOf(body: unknown): string[] {
  return contentsOf(body)
    .filter((content) => content.role === 'user' || content.role === undefined)
    .flatMap(partsOf)
    .filter((part) => typeof part.text === 'string' && part.thought !== true && !CLI_CONTEXT.test(part.text))
    .map((part) => part.text as string);
}

/** The function responses of the last user turn: non-empty when the CLI sends a tool's outcome back. */
export function geminiFunctionResponsesOf(body: unknown): Array<{ name: string; output: string; isError: boolean }> {
  const last = contentsOf(body).at(-1);
  if (last === undefined || last.role === 'model') return [];
  return partsOf(last)
    .map((part) => part.functionResponse)
    .filter(isObject)
    .map((call) => {
      const response = isObject(call.response) ? call.response : {};
      const isError = typeof response.error === 'string' || isObject(response.error);
      const output =
        typeof response.output === 'string'
          ? response.output
          : typeof response.error === 'string'
            ? response.error
            : JSON.stringify(response);
      return { name: String(call.name), output, isError };
    });
}

function splitText(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, parts)));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces.length === 0 ? [''] : pieces;
}

const count = (value: string | undefined, fallback: number): number => {
  const parsed = Number(value);
  return value !== undefined && Number.isSafeInteger(parsed) && parsed >= 0 ? parsed : fallback;
};

/** A shell command writing a plain word into a plain relative path, or the reason it cannot be one. */
function writeCommand(file: string, content: string): string | null {
  if (!SAFE_WORD.test(file) || !SAFE_WORD.test(content) || file.startsWith('/') || file.split('/').includes('..')) return null;
  const dir = file.includes('/') ? `mkdir -p '${file.slice(0, file.lastIndexOf('/'))}' && ` : '';
  return `${dir}printf '%s\\n' '${content}' > '${file}' && cat '${file}'`;
}

/**
 * What the shell tool printed, from the result the CLI sends back: 0.61.0 wraps it as
 * `<untrusted_context>\nOutput: <text>\n[Exit Code: N\n]Process Group PGID: N\n</untrusted_context>`;
 * the `Output` field alone, or the whole text when it has none.
 */
export function shellOutputOf(result: string): string {
  const inner = result.replace(/^\s*<untrusted_context>\n?/, '').replace(/\n?<\/untrusted_context>\s*$/, '');
  const match = /^Output: ([\s\S]*?)(?=\n(?:Exit Code|Error|Signal|Background PIDs|Process Group PGID): |$)/.exec(inner);
  return (match === null ? inner : match[1]!).trim();
}

/** The answer once the CLI sent the tool's outcome back: `<prefix>: <what it printed>`; null before. */
function toolAnswer(prefix: string, body: unknown): TextReply | null {
  const result = geminiFunctionResponsesOf(body)[0];
  if (result === undefined) return null;
  const text = `${result.isError ? 'The tool failed' : prefix}: ${shellOutputOf(result.output)}`;
  return { kind: 'text', pieces: splitText(text, 2) };
}

/** The reply a scenario gives to this request (the tool scenarios have two steps: the call, then the answer). */
export function geminiScenarioReply(scenario: Scenario, body: unknown): Reply {
  const { args } = scenario;
  switch (scenario.name) {
    case 'text': {
      // Optional token counts for the message's usageMetadata (input=, output=, cached=, thoughts=).
      const usage: Partial<Usage> = { input: count(args.input, 10), cached: count(args.cached, 0), thoughts: count(args.thoughts, 0) };
      if (args.output !== undefined) usage.output = count(args.output, 0);
      return { kind: 'text', pieces: splitText(GEMINI_STAND_IN_TEXT, 4), usage };
    }
    case 'write-file': {
      const file = args.path ?? 'stand-in.txt';
      const command = writeCommand(file, args.content ?? 'written-by-the-stand-in');
      if (command === null)
        return { kind: 'error', status: 400, message: `stand-in: path and content must be plain relative words, got ${file}` };
      return (
        toolAnswer('Wrote the file', body) ?? {
          kind: 'call',
          name: GEMINI_SHELL_TOOL,
          text: `Writing ${file}.`,
          args: { command, description: `Write ${file}` },
        }
      );
    }
    case 'read-files': {
      const answer = toolAnswer('Read the files', body);
      if (answer !== null) return answer;
      // The context files' lines of the latest prompt (services/uploads withContextFiles).
      const paths = [...(geminiPromptsOf(body).at(-1) ?? '').matchAll(/^- (\/\S+) \(/gm)].map((match) => match[1]!);
      if (paths.length === 0 || !paths.every((file) => SAFE_WORD.test(file) && !file.split('/').includes('..'))) {
        return { kind: 'error', status: 400, message: `stand-in: no plain context file paths in the prompt: ${paths.join(' ')}` };
      }
      const command = `cat ${paths.map((file) => `'${file}'`).join(' ')}`;
      return {
        kind: 'call',
        name: GEMINI_SHELL_TOOL,
        text: 'Reading the context files.',
        args: { command, description: 'Read the context files' },
      };
    }
    case 'slow': {
      const deltas = count(args.deltas, 600);
      return { kind: 'text', pieces: Array.from({ length: deltas }, (_, i) => `tick ${i + 1}. `), delayMs: count(args.every, 100) };
    }
    case 'sleep': {
      if (geminiFunctionResponsesOf(body).length > 0) return { kind: 'text', pieces: ['Slept.'] };
      const seconds = count(args.seconds, 300);
      return {
        kind: 'call',
        name: GEMINI_SHELL_TOOL,
        args: { command: `echo $$ > sleeper.pid && sleep ${seconds}`, description: 'Sleep' },
      };
    }
    case 'error':
      return { kind: 'error', status: count(args.status, 500) };
    case 'lines': {
      const lines = count(args.count, 100);
      const tag = args.tag ?? 'stand-in';
      return {
        kind: 'text',
        pieces: Array.from({ length: lines }, (_, i) => `${tag} line ${i + 1} of ${lines}\n`),
        delayMs: count(args.every, 100),
      };
    }
    case 'long': {
      // Numbered lines, not one sentence repeated: the CLI's loop detection takes ten equal 50-character
      // stretches for a loop, drops the answer and asks the model again ("Potential loop detected").
      const chars = count(args.chars, 100_000);
      let text = '';
      for (let line = 1; text.length < chars; line += 1) text += `Line ${line} of the long answer.\n`;
      text = text.slice(0, chars);
      return { kind: 'text', pieces: splitText(text, Math.max(1, Math.ceil(chars / 1000))) };
    }
  }
}

/** google.rpc status names of the HTTP statuses the API answers with. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};
const ERROR_MESSAGES: Record<number, string> = {
  400: 'API key not valid. Please pass a valid API key.',
  401: 'Request had invalid authentication credentials.',
  403: 'The caller does not have permission',
  429: 'Resource has been exhausted (e.g. check quota).',
  500: 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
  503: 'The model is overloaded. Please try again later.',
};

function sendJson(response: http.ServerResponse, recorded: RecordedRequest, status: number, body: unknown): void {
  recorded.status = status;
  response.writeHead(status, { 'content-type': 'application/json; charset=UTF-8' });
  response.end(JSON.stringify(body));
  recorded.endedAt = Date.now();
}

let responseCount = 0;

/** The chunks of a reply: each a GenerateContentResponse; the last with finishReason and usageMetadata. */
function chunksOf(reply: TextReply | CallReply, model: string): { chunks: Json[]; delayMs: number | undefined } {
  responseCount += 1;
  const responseId = `stand-in-${responseCount}`;
  const partsList: Json[][] =
    reply.kind === 'text'
      ? reply.pieces.map((text) => [{ text }])
      : [...(reply.text === undefined ? [] : [[{ text: reply.text }]]), [{ functionCall: { name: reply.name, args: reply.args } }]];
  const chars = reply.kind === 'text' ? reply.pieces.join('').length : (reply.text ?? '').length + JSON.stringify(reply.args).length;
  const usage = reply.kind === 'text' ? (reply.usage ?? {}) : {};
  const input = usage.input ?? 10;
  const output = usage.output ?? Math.max(1, Math.ceil(chars / 4));
  const cached = usage.cached ?? 0;
  const thoughts = usage.thoughts ?? 0;
  const chunks = partsList.map((parts, index): Json => {
    const last = index === partsList.length - 1;
    return {
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
      ...(last
        ? {
            usageMetadata: {
              promptTokenCount: input,
              candidatesTokenCount: output,
              totalTokenCount: input + output + thoughts,
              ...(cached > 0 ? { cachedContentTokenCount: cached } : {}),
              ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
            },
          }
        : {}),
      modelVersion: model,
      responseId,
    };
  });
  return { chunks, delayMs: reply.kind === 'text' ? reply.delayMs : undefined };
}

/** The chunks as one response (generateContent): the parts joined, the last chunk's ending. */
function wholeResponse(chunks: Json[]): Json {
  const candidates = chunks.map((chunk) => (chunk.candidates as Json[])[0]!);
  const parts = candidates.flatMap((candidate) => partsOf(candidate.content as Json));
  const text = parts.every((part) => typeof part.text === 'string') ? [{ text: parts.map((part) => part.text as string).join('') }] : parts;
  const last = chunks.at(-1)!;
  return { ...last, candidates: [{ ...(last.candidates as Json[])[0], content: { role: 'model', parts: text } }] };
}

function textOf(chunk: Json): string {
  return partsOf(((chunk.candidates as Json[])[0]!.content as Json) ?? {})
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('');
}

async function stream(
  response: http.ServerResponse,
  recorded: RecordedRequest,
  chunks: Json[],
  delayMs: number | undefined,
  context: ProtocolContext,
) {
  recorded.status = 200;
  recorded.streamCompleted = false;
  let gone = false;
  response.on('close', () => {
    gone = !response.writableFinished;
  });
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const chunk of chunks) {
    if (delayMs !== undefined) await new Promise((resolve) => setTimeout(resolve, delayMs));
    // A cancelled run closes the connection: a slow stream ends there.
    if (gone || response.destroyed) {
      recorded.endedAt = Date.now();
      return;
    }
    response.write(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
    const text = textOf(chunk);
    if (context.onTextDelta && text !== '') context.onTextDelta(text);
  }
  response.end();
  recorded.streamCompleted = true;
  recorded.endedAt = Date.now();
}

/** The schema of a request for JSON (`generationConfig.responseMimeType: application/json`), or null. */
function jsonSchemaOf(body: unknown): Json | null {
  const config = isObject(body) && isObject(body.generationConfig) ? body.generationConfig : {};
  if (config.responseMimeType !== 'application/json') return null;
  const schema = config.responseJsonSchema ?? config.responseSchema;
  return isObject(schema) ? schema : {};
}

/** A value of a (Gemini or JSON) schema: its first enum value, the lowest number allowed, "stand-in", every property. */
function sampleOf(schema: Json): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  switch (String(schema.type ?? 'object').toLowerCase()) {
    case 'object': {
      const properties = isObject(schema.properties) ? schema.properties : {};
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, sampleOf(isObject(property) ? property : {})]));
    }
    case 'array':
      return [];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    default:
      return 'stand-in';
  }
}

/**
 * Scripted replies of the Gemini API, in the Messages API's terms: a text (its `pieces`, or `text` in
 * `deltas` chunks; `usage` as the usageMetadata), a tool call (`Bash` is the CLI's shell tool, its
 * `command` and `description`; another name is called with the input as its arguments), an error.
 * One queue for every stand-in of the process (a protocol is a module, not a server's): give each
 * reply a `when` that names its run (its prompt), as the suites do with `enqueue`.
 */
const queue: ScriptedReply[] = [];

/** Queues replies taken, in order, before any scenario: the first whose `when` accepts the request (none: any). */
export function enqueueGemini(...replies: ScriptedReply[]): void {
  queue.push(...replies);
}

function queuedReply(recorded: RecordedRequest): Reply | null {
  const index = queue.findIndex((reply) => reply.when === undefined || reply.when(recorded));
  if (index === -1) return null;
  const reply = queue.splice(index, 1)[0]!;
  switch (reply.kind) {
    case 'text': {
      const usage: Partial<Usage> = {};
      if (reply.usage?.input_tokens !== undefined) usage.input = reply.usage.input_tokens;
      if (reply.usage?.output_tokens !== undefined) usage.output = reply.usage.output_tokens;
      if (reply.usage?.cache_read_input_tokens !== undefined) usage.cached = reply.usage.cache_read_input_tokens;
      return {
        kind: 'text',
        pieces: reply.pieces ?? splitText(reply.text, reply.deltas ?? 1),
        ...(reply.delayMs !== undefined ? { delayMs: reply.delayMs } : {}),
        usage,
      };
    }
    case 'tool_use':
      return reply.name === 'Bash'
        ? {
            kind: 'call',
            name: GEMINI_SHELL_TOOL,
            args: { command: String(reply.input.command ?? ''), description: String(reply.input.description ?? 'Run a command') },
            ...(reply.text !== undefined ? { text: reply.text } : {}),
          }
        : { kind: 'call', name: reply.name, args: reply.input, ...(reply.text !== undefined ? { text: reply.text } : {}) };
    case 'error':
      return { kind: 'error', status: reply.status, ...(reply.message !== undefined ? { message: reply.message } : {}) };
  }
}

export const geminiApi: ModelProtocol = {
  name: 'gemini',
  matches: (method, path) => method === 'POST' && PATH.test(path),

  async answer(response, recorded, context) {
    const [, model = 'gemini-stand-in', method] = PATH.exec(recorded.path) ?? [];
    if (method === 'countTokens') {
      recorded.answer = 'gemini:other';
      sendJson(response, recorded, 200, { totalTokens: 10 });
      return;
    }
    // A side call that asks for JSON (without -m, the CLI's routing call: a complexity score) gets
    // an object of its schema, not the scenario: the CLI retries an answer it cannot parse.
    const schema = jsonSchemaOf(recorded.body);
    if (schema !== null) {
      recorded.answer = 'gemini:json';
      const text = JSON.stringify(sampleOf(schema));
      sendJson(response, recorded, 200, wholeResponse(chunksOf({ kind: 'text', pieces: [text] }, model).chunks));
      return;
    }
    const scenario = parseScenario(geminiPromptsOf(recorded.body).at(-1) ?? '');
    const queued = queuedReply(recorded);
    const reply: Reply =
      queued ?? (scenario === null ? { kind: 'text', pieces: [context.defaultReply] } : geminiScenarioReply(scenario, recorded.body));
    recorded.answer = queued !== null ? 'gemini:queue' : scenario === null ? 'gemini:default' : `gemini:scenario:${scenario.name}`;
    if (reply.kind === 'error') {
      const status = STATUS_NAMES[reply.status] ?? (reply.status >= 500 ? 'UNAVAILABLE' : 'FAILED_PRECONDITION');
      const message = reply.message ?? ERROR_MESSAGES[reply.status] ?? status;
      sendJson(response, recorded, reply.status, { error: { code: reply.status, message, status } });
      return;
    }
    const { chunks, delayMs } = chunksOf(reply, model);
    if (method === 'generateContent') {
      sendJson(response, recorded, 200, wholeResponse(chunks));
      return;
    }
    await stream(response, recorded, chunks, delayMs, context);
  },
};
