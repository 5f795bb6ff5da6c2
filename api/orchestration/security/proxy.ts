import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import { forwardedClient, proxyTrust, type ForwardedClient, type TrustProxy } from '../../../lib/trust-proxy';

/**
 * How every context of the app reads the client address, the protocol and the host behind reverse
 * proxies (`TRUST_PROXY`, lib/trust-proxy.ts; docs/orchestration-security.md, "Client address and
 * proxies"). Koa's `app.proxy` trusts one switch for every peer and every header, too coarse for a
 * list of proxies, so the app's request prototype gets its own `ip`, `ips`, `protocol` and `host`:
 * every context Koa creates for this app (HTTP requests, the WebSocket handshake's guard and the
 * socket's own context) reads them, and so does everything Koa derives from them (`ctx.secure`, the
 * cookies' `Secure`, `ctx.hostname`, `ctx.origin`, `ctx.href`, `ctx.URL`).
 *
 * - `ip`: the first untrusted hop of `X-Forwarded-For` from the right (rate limits, the WebSocket cap
 *   per address, the webhook's recorded caller);
 * - `protocol`: `https` on a TLS connection; else `X-Forwarded-Proto`'s first value when the peer is a
 *   trusted proxy (`https` or `wss` read as `https`, anything else as `http`); else `http`;
 * - `host`: `X-Forwarded-Host`'s first value only when TRUST_PROXY lists its proxies and the peer is
 *   one of them; else `Host` (`:authority` on HTTP/2), as Koa reads it.
 */
export function trustProxyHeaders(app: Koa, setting: TrustProxy): void {
  // Koa's own reading stays off: the getters below replace every use it had.
  app.proxy = false;
  const trust = proxyTrust(setting);
  // Once per incoming request: the HTTP context and the WebSocket's two contexts share the answer.
  const clients = new WeakMap<IncomingMessage, ForwardedClient>();
  const clientOf = (req: IncomingMessage): ForwardedClient => {
    let client = clients.get(req);
    if (client === undefined) {
      const forwardedFor = req.headers['x-forwarded-for'];
      client = forwardedClient(req.socket.remoteAddress ?? '', Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor, trust);
      clients.set(req, client);
    }
    return client;
  };
  const assigned = Symbol('ip assigned');
  type Request = Koa.Request & { [assigned]?: string };

  Object.defineProperties(app.request, {
    ips: {
      configurable: true,
      get(this: Request): string[] {
        return [...clientOf(this.req).chain];
      },
    },
    ip: {
      configurable: true,
      get(this: Request): string {
        return this[assigned] ?? clientOf(this.req).address;
      },
      // Koa lets a middleware set `ctx.request.ip`; the service does not, but the contract is kept.
      set(this: Request, ip: string) {
        this[assigned] = ip;
      },
    },
    protocol: {
      configurable: true,
      get(this: Request): string {
        if ((this.req.socket as { encrypted?: boolean }).encrypted) return 'https';
        if (!clientOf(this.req).peerTrusted) return 'http';
        const proto = firstValue(this.get('X-Forwarded-Proto')).toLowerCase();
        return proto === 'https' || proto === 'wss' ? 'https' : 'http';
      },
    },
    host: {
      configurable: true,
      get(this: Request): string {
        let host = trust.forwardedHost && clientOf(this.req).peerTrusted ? this.get('X-Forwarded-Host') : '';
        if (!host && this.req.httpVersionMajor >= 2) host = this.get(':authority');
        if (!host) host = this.get('Host');
        host = firstValue(host);
        if (!host) return '';
        // A host with userinfo ("user@host") is invalid (RFC 7230): its host part, as Koa reads it.
        if (host.includes('@')) {
          try {
            return new URL(`http://${host}`).host;
          } catch {
            return '';
          }
        }
        return host;
      },
    },
  });
}

function firstValue(header: string): string {
  return header.split(',', 1)[0]!.trim();
}
