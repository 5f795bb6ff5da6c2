import { z } from 'zod';
import { executionDetailViewSchema, executionViewSchema, historyPageViewSchema } from '../../services/executions';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { CSV_HEADER, UTF8_BOM } from './executions-csv';
import { exportQuery, historyQuery, recentQuery } from './executions-input';

/** The operations of api/orchestration/executions-routes.ts as the OpenAPI document describes them (docs/executions.md). */
const tags = ['Execuções'];
const historyPath = z.object({ id: idParam.meta({ description: "The execution's id" }) });
const notFound = errorAnswer('Execução não encontrada');

/** Record A of test/integration/executions-history.test.ts, as the lists answer it. */
export const executionExample = {
  id: '0f1e2d3c-4b5a-4678-9abc-def012345678',
  executionId: '0f1e2d3c-4b5a-4678-9abc-def012345678',
  type: 'agent',
  agentId: '11111111-1111-4111-8111-111111111111',
  agentName: 'Code Reviewer',
  pipelineId: null,
  pipelineName: null,
  task: 'Review the parser',
  input: null,
  instructions: 'be brief',
  status: 'completed',
  source: 'manual',
  scheduleId: null,
  webhookId: null,
  workingDirectory: '/home/projetos/work',
  model: 'sonnet',
  cli: 'claude-code',
  startedAt: '2026-01-10T10:00:01.000Z',
  endedAt: '2026-01-10T10:01:01.000Z',
  createdAt: '2026-01-10T10:00:00.000Z',
  costUsd: 0.0123,
  totalCostUsd: 0.0123,
  durationMs: 61000,
  numTurns: 3,
  sessionId: 'sess-a',
  parentSessionId: null,
  parentExecutionId: null,
  result: 'The parser is fine.',
  error: null,
  exitCode: 0,
  attempt: 1,
  delegatedFrom: null,
  reportFile: '2026-01-10_100101_code-reviewer_0f1e2d3c.md',
  failedAtStep: null,
  resumedFrom: null,
  resumedAtStep: null,
  inputTokens: 1500,
  outputTokens: 320,
  cacheReadTokens: 40000,
  cacheCreationTokens: 2100,
  repoName: null,
  repoBranch: null,
  repoCommit: null,
  contextFiles: [],
  host: 'agents-1',
};

const csvExample =
  `${UTF8_BOM}${CSV_HEADER.join(',')}\n` +
  '"0f1e2d3c-4b5a-4678-9abc-def012345678","agent","Code Reviewer","completed","2026-01-10T10:00:01.000Z","2026-01-10T10:01:01.000Z","61000","0.0123","3"\n';

export const executionsOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/executions/recent',
    operationId: 'listRecentExecutions',
    emptyQueryValuesIgnored: true,
    summary: 'Lista as execuções mais recentes, as mais novas primeiro',
    tags,
    query: recentQuery,
    responses: {
      200: jsonAnswer('As execuções (sem a saída; `result` resumido a 1000 caracteres)', z.array(executionViewSchema), [executionExample]),
    },
  },
  {
    method: 'get',
    path: '/api/executions/history',
    operationId: 'listExecutionHistory',
    emptyQueryValuesIgnored: true,
    summary: 'Uma página do histórico de execuções, com filtros',
    description:
      'Os filtros se combinam (E); parâmetros vazios são ignorados, desconhecidos ou repetidos recusados (400). `status` e `source` aceitam ' +
      'vários valores separados por vírgula; `to` é inclusivo (uma data vai até o fim daquele dia UTC); `from` depois de `to` é 400.',
    tags,
    query: historyQuery.in,
    responses: {
      200: jsonAnswer('A página, as mais novas primeiro, e o total que casa com os filtros', historyPageViewSchema, {
        items: [executionExample],
        total: 1,
        limit: 20,
        offset: 0,
      }),
    },
  },
  {
    method: 'get',
    path: '/api/executions/history/{id}',
    operationId: 'getExecution',
    summary: 'Uma execução com a saída gravada (e os passos, se for de pipeline; as tentativas e o custo de cada uma, se for de agente)',
    tags,
    pathParams: historyPath,
    responses: {
      200: jsonAnswer('A execução', executionDetailViewSchema, {
        ...executionExample,
        output: 'All good\n',
        outputTruncated: false,
        outputSeq: 1,
        attempts: [
          {
            attempt: 1,
            status: 'completed',
            error: null,
            costUsd: 0.0123,
            startedAt: executionExample.startedAt,
            endedAt: executionExample.endedAt,
          },
        ],
      }),
      404: notFound,
    },
  },
  {
    method: 'delete',
    path: '/api/executions/history/{id}',
    operationId: 'deleteExecution',
    summary: 'Exclui uma execução finalizada do histórico',
    description: 'O relatório da execução não é excluído.',
    tags,
    pathParams: historyPath,
    responses: {
      204: { description: 'Excluída' },
      404: notFound,
      409: errorAnswer('A execução ainda está ativa: cancele-a antes'),
    },
  },
  {
    method: 'delete',
    path: '/api/executions/history',
    operationId: 'clearExecutionHistory',
    summary: 'Exclui todas as execuções finalizadas',
    description: 'As ativas ficam (seus workflows ainda as escrevem); os relatórios não são excluídos.',
    tags,
    responses: { 204: { description: 'Histórico limpo' } },
  },
  {
    method: 'get',
    path: '/api/executions/export',
    operationId: 'exportExecutions',
    emptyQueryValuesIgnored: true,
    summary: 'Exporta o histórico filtrado em CSV',
    description:
      'Os mesmos filtros do histórico, sem `limit`/`offset`: todas as execuções que casam. UTF-8 com BOM, cabeçalho ' +
      '`ID,Tipo,Nome,Status,Início,Fim,Duração (ms),Custo (USD),Turnos`, cada valor entre aspas; um texto que começa com `=`, `+`, `-` ou `@` ' +
      "ganha um `'` na frente.",
    tags,
    query: exportQuery.in,
    responses: {
      200: {
        description: 'O CSV',
        contentType: 'text/csv',
        example: csvExample,
        headers: {
          'Content-Disposition': { description: 'attachment; filename=execucoes_<AAAA-MM-DD>.csv (dia UTC do pedido)', schema: z.string() },
        },
      },
    },
  },
];
