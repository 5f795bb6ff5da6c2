import { until } from './waiting';

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

/** The notification of execution `executionId` on the service at `baseUrl`, once raised (right after its report). */
export async function notificationOf(baseUrl: string, executionId: string): Promise<any> {
  const items = await until(
    `notification of ${executionId}`,
    async () => (await jsonCall(baseUrl, 'GET', '/api/notifications?pageSize=100')).body.notifications as any[],
    (list) => list.some((item) => item.executionId === executionId),
  );
  return items.find((item) => item.executionId === executionId);
}
