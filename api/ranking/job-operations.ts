import { z } from 'zod';
import {
  ALREADY_RUNNING_DETAIL,
  jobStartedSchema,
  jobStatusSchema,
  RANKING_JOB_ID,
  WORKFLOWS_UNAVAILABLE_DETAIL,
} from '../../services/ranking/job';
import { detailAnswer, jsonAnswer, type OperationSpec, type ResponseSpec } from '../openapi/operation';
import { processBody } from './job-routes';

/** The ranking job's routes (api/ranking/job-routes.ts) as the OpenAPI document describes them. */
const tags = ['Processamento'];

/** The headers of an answer of a route with a budget (api/ranking/rate-limits.ts), present while Redis answers. */
export const budgetHeaders: NonNullable<ResponseSpec['headers']> = {
  'X-RateLimit-Limit': { description: "Requests of the client's budget per window", schema: z.string() },
  'X-RateLimit-Remaining': { description: 'Requests left in the current window', schema: z.string() },
};

/** The 429 of a route with a budget per client address (docs/ranking-api.md, "Rate limits"). */
export function rateLimitedAnswer(budget: string): ResponseSpec {
  return {
    ...detailAnswer(
      `Orçamento do cliente esgotado (${budget}): \`Muitas requisições: no máximo <n> a cada <s> s por cliente; tente novamente em <r> s\`; nada foi iniciado`,
    ),
    headers: { 'Retry-After': { description: 'Whole seconds until the window ends (at least 1)', schema: z.string() }, ...budgetHeaders },
  };
}

export const rankingJobOperations: OperationSpec[] = [
  {
    method: 'post',
    path: '/api/v1/ranking/processar',
    operationId: 'startRankingJob',
    summary: 'Inicia o processamento do ranking em segundo plano',
    description: 'Returns at once; poll GET /api/v1/ranking/status. The body is optional (no body: `limpar_antes` false).',
    tags,
    body: { schema: processBody, required: false, example: { limpar_antes: true } },
    responses: {
      200: {
        ...jsonAnswer('Iniciado', jobStartedSchema, {
          sucesso: true,
          mensagem: 'Processamento do ranking iniciado em segundo plano; o ranking armazenado será limpo antes',
          job_id: RANKING_JOB_ID,
        }),
        headers: budgetHeaders,
      },
      409: detailAnswer(`Uma execução está em andamento: \`${ALREADY_RUNNING_DETAIL}\``),
      429: rateLimitedAnswer('RANKING_JOB_RATE_LIMIT_REQUESTS a cada RANKING_JOB_RATE_LIMIT_WINDOW_SECONDS, 10 a cada 60 s por padrão'),
      503: detailAnswer(
        `O Temporal não aceitou o início (\`${WORKFLOWS_UNAVAILABLE_DETAIL}: <causa>\`; nada foi iniciado), ou outra dependência está indisponível`,
      ),
    },
  },
  {
    method: 'get',
    path: '/api/v1/ranking/status',
    operationId: 'getRankingJobStatus',
    summary: 'O estado do processamento do ranking',
    description: "From the running job's progress while one runs (`fonte: temporal`), else from the recorded runs (`fonte: mysql`).",
    tags,
    responses: {
      200: jsonAnswer('O estado', jobStatusSchema, {
        job_id: RANKING_JOB_ID,
        em_execucao: false,
        estado: 'concluido',
        fase: 'concluido',
        origem: 'manual',
        limpar_antes: true,
        processados: 3000,
        total: 3000,
        percentual: 100,
        iniciado_em: '2026-11-27T03:00:00.412Z',
        finalizado_em: '2026-11-27T03:04:12.345Z',
        ultimo_erro: null,
        ultima_execucao_sucesso: '2026-11-27T03:04:12.345Z',
        fonte: 'mysql',
      }),
    },
  },
];
