import { CLOSE_POLICY_VIOLATION, NO_SOCKET_HERE_REASON } from '../../api/websocket';
import { startTestServer, type TestServer } from '../support/server';
import { openSocket, refusedHandshake } from '../support/websocket';

let server: TestServer;
let wsBase: string;

beforeAll(async () => {
  server = await startTestServer();
  wsBase = server.url.replace(/^http/, 'ws');
});

afterAll(() => server.close());

describe('WebSocket at /ws and /', () => {
  it('greets a client identified by the clientId query parameter', async () => {
    const probe = await openSocket(`${wsBase}/ws?clientId=navegador-1`);
    expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId: 'navegador-1' });
    probe.socket.close();
  });

  it('accepts the X-Client-Id header when no query parameter is given', async () => {
    const probe = await openSocket(`${wsBase}/ws`, { 'X-Client-Id': 'cli-7' });
    expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId: 'cli-7' });
    probe.socket.close();
  });

  it('closes a connection without a client id with 1008', async () => {
    const probe = await openSocket(`${wsBase}/ws`);
    expect(await probe.closed).toEqual({
      code: CLOSE_POLICY_VIOLATION,
      reason: 'clientId query parameter or X-Client-Id header required',
    });
    expect(probe.messages).toEqual([]);
  });

  it('is accepted at / as well, where the admin panel connects (contract 4.1)', async () => {
    const probe = await openSocket(`${wsBase}/?clientId=painel-raiz`);
    expect(await probe.nextMessage()).toEqual({ type: 'connected', clientId: 'painel-raiz' });
    probe.socket.close();
    // The panel's own URL has no slash before the query: `ws://host?clientId=...` asks for `/`.
    const bare = await openSocket(`${wsBase}?clientId=painel-sem-barra`);
    expect(await bare.nextMessage()).toEqual({ type: 'connected', clientId: 'painel-sem-barra' });
    bare.socket.close();
  });

  it.each(['/outro', '/ws/', '/WS', '/ws/x', '/app.html', '//', '/api/ws', '/%2Fws'])(
    'refuses the handshake on %s with 404 and a JSON error, before the upgrade',
    async (path) => {
      expect(await refusedHandshake(`${wsBase}${path}?clientId=x`)).toEqual({
        status: 404,
        authenticate: null,
        body: { error: NO_SOCKET_HERE_REASON },
      });
    },
  );

  it('tells its clients to reconnect (1012, Service Restart) when the server shuts down', async () => {
    const own = await startTestServer();
    const probe = await openSocket(`${own.url.replace(/^http/, 'ws')}/ws?clientId=ate-logo`);
    await probe.nextMessage();
    await own.close();
    expect(await probe.closed).toEqual({ code: 1012, reason: 'server restarting: reconnect' });
  });
});
