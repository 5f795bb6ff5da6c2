import { chartStatsSchema, costStatsSchema } from '../../services/stats';
import { jsonAnswer, type OperationSpec } from '../openapi/operation';
import { chartsQuery, costsQuery } from './stats-input';

/** The statistics' operations (api/orchestration/stats-routes.ts) as the OpenAPI document describes them. */
const tags = ['Estatísticas'];
const days = ['2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'];
const tokens = (input: number, output: number, cacheRead = 0, cacheCreation = 0) => ({ input, output, cacheRead, cacheCreation });
const AGENT = '7b0c5d7e-2f4e-4a35-9d8e-0c7f6a1e2b3c';
const PIPELINE = '3c4d5e6f-7a8b-4c9d-8e0f-1a2b3c4d5e6f';

const chartsExample = {
  labels: days,
  successCounts: [1, 0, 4, 1, 1, 1, 1],
  errorCounts: [0, 0, 0, 1, 0, 0, 1],
  executionCounts: [1, 0, 4, 2, 1, 2, 3],
  costData: [0.125, 0, 0, 0.12, 0.3, 0.1235, 0.75],
  statusDistribution: { completed: 9, error: 2, canceled: 1, queued: 1 },
  topAgents: [
    { name: 'Revisor de código', count: 6 },
    { name: 'Documentador', count: 5 },
  ],
};

const costsExample = {
  totalCost: 1.4185,
  totalExecutions: 9,
  period: { days: 7, from: days[0], to: days[6] },
  topAgents: [
    { name: 'Revisor de código', cost: 1.025, count: 5 },
    { name: 'Documentador', cost: 0.3935, count: 4 },
  ],
  dailyCosts: Object.fromEntries(days.map((day, i) => [day, [0.125, 0, 0, 0.12, 0.3, 0.1235, 0.75][i]])),
  tokens: tokens(330, 33, 1000, 50),
  byDay: [
    { date: days[0], cost: 0.125, count: 1, tokens: tokens(0, 0) },
    { date: days[3], cost: 0.12, count: 2, tokens: tokens(0, 0) },
    { date: days[4], cost: 0.3, count: 2, tokens: tokens(30, 3) },
    { date: days[5], cost: 0.1235, count: 2, tokens: tokens(0, 0) },
    { date: days[6], cost: 0.75, count: 2, tokens: tokens(300, 30, 1000, 50) },
  ],
  byAgent: [
    { agentId: AGENT, name: 'Revisor de código', cost: 1.025, count: 5, tokens: tokens(310, 31, 1000, 50) },
    { agentId: '2d3e4f5a-6b7c-4d8e-9f0a-1b2c3d4e5f6a', name: 'Documentador', cost: 0.3935, count: 4, tokens: tokens(20, 2) },
  ],
  byPipeline: [{ pipelineId: PIPELINE, name: 'Release pipeline', cost: 0.42, runs: 3, steps: 4, tokens: tokens(30, 3) }],
  budgets: {
    day: days[6],
    resetsAt: '2026-11-28T00:00:00.000Z',
    global: { limitUsd: 10, spentUsd: 0.75, remainingUsd: 9.25, exhausted: false },
    agents: [{ agentId: AGENT, name: 'Revisor de código', limitUsd: 1, spentUsd: 0.75, remainingUsd: 0.25, exhausted: false }],
  },
};

export const statsOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/stats/charts',
    operationId: 'getChartStats',
    emptyQueryValuesIgnored: true,
    summary: 'Os gráficos do painel: execuções e custo por dia, status e agentes mais usados',
    description:
      'Sobre os últimos `days` dias UTC até hoje (padrão 7); uma execução conta no dia UTC em que foi criada (docs/statistics.md).',
    tags,
    query: chartsQuery,
    responses: { 200: jsonAnswer('Os dados dos gráficos, um valor por dia da janela', chartStatsSchema, chartsExample) },
  },
  {
    method: 'get',
    path: '/api/stats/costs',
    operationId: 'getCostStats',
    emptyQueryValuesIgnored: true,
    summary: 'O que os agentes custaram: total, por dia, por agente e por pipeline, com os tokens',
    description:
      'Sobre os últimos `days` dias UTC até hoje (padrão 30); só registros de agente (passos de pipeline incluídos) com custo > 0. ' +
      '`budgets` é o de hoje, qualquer que seja a janela (docs/budgets.md).',
    tags,
    query: costsQuery,
    responses: { 200: jsonAnswer('Os custos da janela', costStatsSchema, costsExample) },
  },
];
