import { z } from 'zod';
import { isoDateTime } from '../../services/view-schema';
import { jsonAnswer, type OperationSpec } from '../openapi/operation';

/** GET /api/health (api/orchestration/health-routes.ts) as the OpenAPI document describes it: open, no token. */
const healthSchema = z
  .object({
    status: z.literal('ok'),
    timestamp: isoDateTime,
    uptime: z.number().meta({ description: 'Segundos desde o início do processo (com fração)' }),
  })
  .meta({ id: 'OrchestrationHealth' });

export const healthOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/health',
    operationId: 'getHealth',
    summary: 'Se o processo responde (sem token, fora do limite de requisições)',
    description: 'Não revela nada da instalação: as dependências estão em /api/system/status.',
    tags: ['Sistema'],
    public: true,
    responses: {
      200: jsonAnswer('O processo responde', healthSchema, { status: 'ok', timestamp: '2026-11-21T12:00:00.000Z', uptime: 3600.52 }),
    },
  },
];
