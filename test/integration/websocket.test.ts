import { CLOSE_POLICY_VIOLATION } from '../../api/websocket';
import { startTestServer, type TestServer } from '../support/server';
import { openSocket } from '../support/websocket';

let server: TestServer;
let wsBase: string;

beforeAll(async () => {
  server = await startTestServer();
  wsBase = server.url.replace(/^http/, 'ws');
});

afterAll(() => server.close());

describe('WebSocket at /ws', () => {
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

  it('refuses the handshake on any other path', async () => {
    await expect(openSocket(`${wsBase}/outro?clientId=x`)).rejects.toThrow('handshake refused: 400');
  });

  it('says goodbye with 1001 when the server shuts down', async () => {
    const own = await startTestServer();
    const probe = await openSocket(`${own.url.replace(/^http/, 'ws')}/ws?clientId=ate-logo`);
    await probe.nextMessage();
    await own.close();
    expect((await probe.closed).code).toBe(1001);
  });
});
