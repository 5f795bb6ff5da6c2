import http from 'node:http';
import { until } from './waiting';

/**
 * The service's answer to a request: its status and its body parsed when the answer says it is JSON
 * (its content type; else null). The answer as sent is there too, `text` (UTF-8, a byte order mark
 * kept), `bytes` and `headers`, not enumerable: `toEqual({ status, body })` compares the two that matter.
 */
export interface JsonAnswer {
  status: number;
  body: any;
  readonly text: string;
  readonly bytes: Buffer;
  readonly headers: Headers;
}

function answerOf(status: number, headers: Headers, bytes: Buffer): JsonAnswer {
  // TextDecoder keeps a byte order mark that response.text() would drop (the CSV export starts with one).
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  const json = (headers.get('content-type') ?? '').includes('json');
  const answer = { status, body: json && text ? JSON.parse(text) : null };
  return Object.defineProperties(answer, {
    text: { value: text, enumerable: false },
    bytes: { value: bytes, enumerable: false },
    headers: { value: headers, enumerable: false },
  }) as JsonAnswer;
}

/** One request exactly as `init` says (no header added), its answer read whole. */
export async function httpCall(url: string, init: RequestInit = {}): Promise<JsonAnswer> {
  const response = await fetch(url, init);
  return answerOf(response.status, response.headers, Buffer.from(await response.arrayBuffer()));
}

export interface JsonCallOptions {
  /** `X-Client-Id`, as the panel sends it. */
  clientId?: string;
  /** More request headers (they win over the panel's). */
  headers?: Record<string, string>;
  /** Sent as the body as it is, instead of `body` as JSON (a malformed body). */
  raw?: string;
  /** fetch's `redirect` (default `follow`); `manual` reads a redirect itself. */
  redirect?: RequestInit['redirect'];
}

/**
 * One request to the service as the panel makes it: `Content-Type: application/json` (even without a
 * body), the body (when given) as JSON, `X-Client-Id` when given (`options` may be that id alone).
 */
export function jsonCall(
  baseUrl: string,
  method: string,
  route: string,
  body?: unknown,
  options: string | JsonCallOptions = {},
): Promise<JsonAnswer> {
  const { clientId, headers, raw, redirect } = typeof options === 'string' ? { clientId: options } : options;
  const sent = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  return httpCall(baseUrl + route, {
    method,
    headers: { 'content-type': 'application/json', ...(clientId ? { 'x-client-id': clientId } : {}), ...headers },
    ...(sent !== undefined ? { body: sent } : {}),
    ...(redirect ? { redirect } : {}),
  });
}

/**
 * A request whose path is sent exactly as written: fetch would resolve `%2e%2e` segments (WHATWG URL
 * rules) before sending, which hides what a raw client can send.
 */
export function rawPathCall(baseUrl: string, method: string, rawPath: string): Promise<JsonAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}/`, { method, path: rawPath }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, one);
        }
        resolve(answerOf(response.statusCode ?? 0, headers, Buffer.concat(chunks)));
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** The view of execution `executionId` (GET /api/executions/history/:id); the test fails unless it answers 200. */
export async function executionRecord(baseUrl: string, executionId: string): Promise<any> {
  const answer = await jsonCall(baseUrl, 'GET', `/api/executions/history/${executionId}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

/** The view of execution `executionId` once it has ended and its report is written (the report follows the final status). */
export function endedExecution(baseUrl: string, executionId: string, timeoutMs = 60_000): Promise<any> {
  return until(
    `execution ${executionId} ends, its report written`,
    () => executionRecord(baseUrl, executionId),
    (record) => !['queued', 'running', 'retrying'].includes(record.status) && record.reportFile !== null,
    timeoutMs,
  );
}

/** The notification of execution `executionId` on the service at `baseUrl`, once raised (right after its report). */
export async function notificationOf(baseUrl: string, executionId: string): Promise<any> {
  const items = await until(
    `notification of ${executionId}`,
    async () => (await jsonCall(baseUrl, 'GET', '/api/notifications?pageSize=100')).body.notifications as any[],
    (list) => list.some((item) => item.executionId === executionId),
  );
  return items.find((item) => item.executionId === executionId);
}
