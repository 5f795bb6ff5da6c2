import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import Koa from 'koa';
import { z } from 'zod';
import { envelopeFor, errorEnvelope, HttpError } from '../../api/errors';
import { parseInput } from '../../api/validation';
import { logger } from '../../lib/logger';
import { httpCall } from '../support/json-api';

// The real middleware on a real Koa server, with routes that fail in each way a handler can.
let server: Server;
let base: string;

beforeAll(async () => {
  const app = new Koa();
  app.use(errorEnvelope(logger));
  app.use((ctx) => {
    const route = ctx.path.replace(/^\/api(\/v1)?/, '');
    if (route === '/boom') throw new Error('secret connection string leaked');
    if (route === '/teapot') throw new HttpError(418, 'short and stout');
    if (route === '/edge') throw new HttpError(403, 'Recusado na borda');
    if (route === '/method') ctx.throw(405);
    if (route === '/validate') parseInput(z.object({ limite: z.coerce.number().int().max(1000) }), ctx.query, 'query');
    if (route === '/ok') ctx.body = { fine: true };
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((resolve) => server.close(resolve)));

const get = (path: string) => httpCall(base + path);

describe('envelopeFor', () => {
  it.each([
    ['/api/v1', 'detail'],
    ['/api/v1/ranking', 'detail'],
    ['/api/v10/x', 'error'],
    ['/api/agents', 'error'],
    ['/', 'error'],
  ])('%s answers with %s', (path, envelope) => expect(envelopeFor(path)).toBe(envelope));
});

describe('errorEnvelope', () => {
  it('hides the message of an unexpected error behind a 500 in both envelopes', async () => {
    expect(await get('/api/v1/boom')).toEqual({ status: 500, body: { detail: 'Erro interno do servidor' } });
    expect(await get('/api/boom')).toEqual({ status: 500, body: { error: 'Erro interno do servidor' } });
  });

  it('passes an HttpError status and message through', async () => {
    expect(await get('/api/v1/teapot')).toEqual({ status: 418, body: { detail: 'short and stout' } });
    expect(await get('/api/teapot')).toEqual({ status: 418, body: { error: 'short and stout' } });
  });

  it('answers an edge refusal in pt-BR in both envelopes (the ranking specification speaks Portuguese)', async () => {
    expect(await get('/api/v1/edge')).toEqual({ status: 403, body: { detail: 'Recusado na borda' } });
    expect(await get('/api/edge')).toEqual({ status: 403, body: { error: 'Recusado na borda' } });
  });

  it("gives a library's generic text in pt-BR under /api only", async () => {
    expect(await get('/api/v1/method')).toEqual({ status: 405, body: { detail: 'Método não permitido' } });
    expect(await get('/api/method')).toEqual({ status: 405, body: { error: 'Método não permitido' } });
  });

  it('answers validation failures with 422 under /api/v1 and 400 under /api, naming the field', async () => {
    expect(await get('/api/v1/validate?limite=5000')).toEqual({
      status: 422,
      body: { detail: 'query.limite: Grande demais: esperava que o número fosse <= 1000' },
    });
    expect(await get('/api/validate?limite=abc')).toEqual({
      status: 400,
      body: { error: 'query.limite: Entrada inválida: esperava um número, recebeu um valor "NaN"' },
    });
  });

  it('turns an unmatched route into a 404 envelope and leaves successes alone', async () => {
    expect(await get('/api/v1/missing')).toEqual({ status: 404, body: { detail: 'Não encontrado' } });
    expect(await get('/api/missing')).toEqual({ status: 404, body: { error: 'Não encontrado' } });
    expect(await get('/api/ok')).toEqual({ status: 200, body: { fine: true } });
  });
});
