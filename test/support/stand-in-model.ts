import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the Anthropic Messages API, so the real Claude Code CLI can run in tests without
 * a network or a model: node:http on 127.0.0.1, a random port. The CLI reaches it through
 * ANTHROPIC_BASE_URL (with any ANTHROPIC_API_KEY).
 *
 * `POST /v1/messages` answers the next scripted reply (a queue; `defaultReply` when it is empty):
 * with `stream: true` as the server-sent events message_start, content_block_start,
 * content_block_delta (text_delta), content_block_stop, message_delta (stop_reason, usage),
 * message_stop; otherwise as one JSON message. Any other path (token counting, settings the CLI
 * looks up) gets a harmless JSON answer. Every request is recorded.
 *
 * Extending it (tool calls, API errors): add a variant to `ScriptedReply` and its branch in
 * `answerMessages`.
 */

export interface TextReply {
  kind: 'text';
  text: string;
  /** The text is sent in this many text_delta events (default 1). */
  deltas?: number;
  /** Only a request this accepts takes the reply (e.g. the main conversation, not a side call). */
  when?: (request: RecordedRequest) => boolean;
}

export type ScriptedReply = TextReply;

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export interface StandInModel {
  /** `http://127.0.0.1:<port>`: the CLI's ANTHROPIC_BASE_URL. */
  url: string;
  requests: RecordedRequest[];
  /** Scripted replies of POST /v1/messages, taken in order. */
  enqueue(...replies: ScriptedReply[]): void;
  close(): Promise<void>;
}

const MODEL = 'claude-stand-in';

async function readBody(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

let messageCount = 0;

function usage(text: string) {
  return { input_tokens: 10, output_tokens: Math.max(1, Math.ceil(text.length / 4)) };
}

function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function sendEvents(response: http.ServerResponse, events: Array<Record<string, unknown>>): void {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const event of events) response.write(`event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`);
  response.end();
}

function splitText(text: string, parts: number): string[] {
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, parts)));
  const pieces: string[] = [];
  for (let start = 0; start < text.length; start += size) pieces.push(text.slice(start, start + size));
  return pieces.length === 0 ? [''] : pieces;
}

function answerMessages(response: http.ServerResponse, request: RecordedRequest, reply: ScriptedReply): void {
  const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as { stream?: boolean; model?: string };
  messageCount += 1;
  const id = `msg_standin_${messageCount}`;
  const model = body.model ?? MODEL;
  const counts = usage(reply.text);
  if (body.stream !== true) {
    sendJson(response, 200, {
      id, type: 'message', role: 'assistant', model, content: [{ type: 'text', text: reply.text }],
      stop_reason: 'end_turn', stop_sequence: null, usage: counts,
    });
    return;
  }
  sendEvents(response, [
    {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: counts.input_tokens, output_tokens: 1 } },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
    ...splitText(reply.text, reply.deltas ?? 1).map((text) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } })),
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: counts.output_tokens } },
    { type: 'message_stop' },
  ]);
}

export async function startStandInModel(options: { defaultReply?: string } = {}): Promise<StandInModel> {
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  const fallback: ScriptedReply = { kind: 'text', text: options.defaultReply ?? 'OK' };

  const server = http.createServer((incoming, response) => {
    void (async () => {
      const url = new URL(incoming.url ?? '/', 'http://stand-in');
      const request: RecordedRequest = { method: incoming.method ?? 'GET', path: url.pathname, headers: incoming.headers, body: await readBody(incoming) };
      requests.push(request);
      if (request.method === 'POST' && request.path === '/v1/messages') {
        const index = queue.findIndex((reply) => reply.when === undefined || reply.when(request));
        const reply = index === -1 ? fallback : queue.splice(index, 1)[0]!;
        answerMessages(response, request, reply);
        return;
      }
      if (request.method === 'POST' && request.path === '/v1/messages/count_tokens') {
        sendJson(response, 200, { input_tokens: 10 });
        return;
      }
      sendJson(response, 200, {});
    })().catch((error: unknown) => sendJson(response, 500, { type: 'error', error: { type: 'api_error', message: String(error) } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    enqueue: (...replies) => queue.push(...replies),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
