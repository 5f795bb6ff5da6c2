import { z } from 'zod';
import { STUCK_LOOP_MS } from '../lib/event-loop-liveness';
import { jsonAnswer, type OperationSpec } from './openapi/operation';

/** GET /livez and GET /readyz (api/probes.ts; docs/probes-and-drains.md) as the OpenAPI document describes them. */

const checks = z
  .record(z.string(), z.enum(['up', 'down']))
  .meta({ description: 'Cada verificação do processo: mysql, redis e live-output (API), ranking-worker e agents-worker (workers)' });

const live = z.object({ status: z.literal('ok') }).meta({ id: 'ProbeLive' });
const ready = z.object({ status: z.literal('ok'), checks }).meta({ id: 'ProbeReady' });
const unavailable = z
  .object({
    status: z.literal('unavailable'),
    checks: checks.optional(),
    reasons: z.array(z.string()).min(1).meta({ description: 'Por que não, em palavras que não revelam nada além do estado' }),
  })
  .meta({ id: 'ProbeUnavailable' });

const NO_EDGE =
  'Sem token, com qualquer Host e fora do limite de requisições: a sonda chega pelo endereço do pod e não revela nada além de um estado.';

export const probeOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/livez',
    operationId: 'getLiveness',
    summary: 'Se o processo está vivo (o laço de eventos anda)',
    description: `${NO_EDGE} 503 quando o laço de eventos ficou parado mais de ${STUCK_LOOP_MS / 1000} s (docs/probes-and-drains.md). Também em METRICS_PORT de um worker sozinho.`,
    tags: ['Sistema'],
    public: true,
    beforeEdge: true,
    responses: {
      200: jsonAnswer('Vivo', live, { status: 'ok' }),
      503: jsonAnswer('O laço de eventos ficou parado', unavailable, {
        status: 'unavailable',
        reasons: ['o laço de eventos ficou parado 12043 ms'],
      }),
    },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    summary: 'Se o processo pode trabalhar agora (recebe tráfego)',
    description: `${NO_EDGE} API: MySQL e Redis respondem, a assinatura da saída ao vivo no Redis está feita e o processo não está encerrando; worker: cada worker do Temporal está RUNNING e o Temporal responde. 503 desde o SIGTERM (docs/probes-and-drains.md). Uma rodada de verificações vale 1 s para todas as sondas. Também em METRICS_PORT de um worker sozinho.`,
    tags: ['Sistema'],
    public: true,
    beforeEdge: true,
    responses: {
      200: jsonAnswer('Pronto', ready, { status: 'ok', checks: { mysql: 'up', redis: 'up', 'live-output': 'up' } }),
      503: jsonAnswer('Não está pronto', unavailable, {
        status: 'unavailable',
        checks: { mysql: 'up', redis: 'down', 'live-output': 'down' },
        reasons: ['redis: sem resposta em 2000 ms', 'live-output: sem resposta em 2000 ms'],
      }),
    },
  },
];
