import { z } from 'zod';
import { jsonAnswer, type OperationSpec } from '../openapi/operation';

/** GET /api/v1/health (api/ranking/health.ts) as the OpenAPI document describes it. */
const healthAnswer = z.object({ status: z.literal('ok'), message: z.string() }).meta({ id: 'RankingHealth' });

export const rankingHealthOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1/health',
    operationId: 'getRankingHealth',
    summary: 'A API de ranking responde',
    description: "Liveness only: the process answers. The dependencies' state is GET /api/system/status.",
    tags: ['Saúde'],
    responses: {
      200: jsonAnswer('Em funcionamento', healthAnswer, { status: 'ok', message: 'API de ranking de consultores em funcionamento' }),
    },
  },
];
