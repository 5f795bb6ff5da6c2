/**
 * Every HTTP request the deploy test sends goes through the load balancer and is counted here
 * (docs/deploy-test.md): how many, and each one that got a 5xx or no answer at all (a reset, a refused
 * connection, a timeout), with when and what. A steady prober adds a request every few tens of
 * milliseconds throughout, so a restart that drops requests cannot hide between the load's calls.
 */

export interface Answer {
  status: number;
  body: any;
}

export interface Refusal {
  at: number;
  method: string;
  route: string;
  /** The HTTP status (5xx), or 0 with the error's text. */
  status: number;
  error?: string;
}

export interface LbCounts {
  requests: number;
  /** Requests answered 5xx or not at all. */
  refused: Refusal[];
}

export interface LbClient {
  origin: string;
  /** The WebSocket's address through the load balancer, with the token. */
  wsUrl: string;
  counts: LbCounts;
  call(method: string, route: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
  /** A read that must get its answer: asked again (each attempt counted) while it gets none. */
  read(route: string, timeoutMs?: number): Promise<any>;
}

export function lbClient(origin: string, token: string): LbClient {
  const counts: LbCounts = { requests: 0, refused: [] };
  const call = async (method: string, route: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> => {
    counts.requests += 1;
    try {
      const response = await fetch(`${origin}${route}`, {
        method,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}`, ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        // not JSON: kept as text
      }
      if (response.status >= 500)
        counts.refused.push({ at: Date.now(), method, route, status: response.status, error: text.slice(0, 200) });
      return { status: response.status, body: parsed };
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
      counts.refused.push({
        at: Date.now(),
        method,
        route,
        status: 0,
        error: `${(error as Error).message}: ${cause?.code ?? cause?.message ?? ''}`,
      });
      return { status: 0, body: null };
    }
  };
  return {
    origin,
    wsUrl: `${origin.replace(/^http/, 'ws')}/ws?token=${encodeURIComponent(token)}`,
    counts,
    call,
    async read(route, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const answer = await call('GET', route);
        if (answer.status === 200) return answer.body;
        if (Date.now() > deadline)
          throw new Error(`GET ${route}: no answer within ${timeoutMs} ms (last: ${answer.status} ${JSON.stringify(answer.body)})`);
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    },
  };
}

export interface Prober {
  /** Stops it; the requests it sent. */
  stop(): Promise<number>;
}

/** `workers` loops, each a request after the other with `pauseMs` between: alternately the settings and the agents' list (MariaDB behind both). */
export function startProber(client: LbClient, workers = 2, pauseMs = 50): Prober {
  let running = true;
  let sent = 0;
  const routes = ['/api/settings', '/api/agents'];
  const loops = Array.from({ length: workers }, async (_, index) => {
    for (let i = index; running; i += 1) {
      await client.call('GET', routes[i % routes.length]!);
      sent += 1;
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  });
  return {
    async stop() {
      running = false;
      await Promise.all(loops);
      return sent;
    },
  };
}
