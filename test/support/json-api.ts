/** A service's answer to a JSON request: its status and its body parsed (null when it sent none). */
export interface JsonAnswer {
  status: number;
  body: any;
}

/**
 * One request to the service as the panel makes it: `Content-Type: application/json`, the body (when
 * given) as JSON, `X-Client-Id` when given; the answer's body parsed as JSON when it has one.
 */
export async function jsonCall(baseUrl: string, method: string, route: string, body?: unknown, clientId?: string): Promise<JsonAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(clientId ? { 'x-client-id': clientId } : {}) };
  const response = await fetch(baseUrl + route, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
