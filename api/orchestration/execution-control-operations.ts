import { z } from 'zod';
import {
  activeExecutionViewSchema,
  cancelledExecutionSchema,
  cancelledExecutionsSchema,
  launchedExecutionSchema,
  retriedExecutionSchema,
} from '../../services/executions';
import { executionExample } from './executions-operations';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { continueBody, executeBody } from './execution-control-input';

/** The operations of api/orchestration/execution-control-routes.ts as the OpenAPI document describes them (docs/agent-executions.md). */
const tags = ['Execuções'];
const agentPath = z.object({ id: idParam.meta({ description: "The agent's id" }) });

/** The header the routes read the live output's client from (api/orchestration/execution-control-routes.ts, requestClientId). */
const clientIdHeaders = z.object({
  'X-Client-Id': z.string().optional().meta({
    description:
      "The WebSocket client that receives the run's live output (trimmed, cut to 128 characters); absent or blank: nobody is told live",
  }),
});

const launchedExample = { executionId: '0f1e2d3c-4b5a-4678-9abc-def012345678', status: 'queued' };
const launched = jsonAnswer(
  'Aceita: a execução foi gravada e espera uma vaga (a saída chega pelo WebSocket)',
  launchedExecutionSchema,
  launchedExample,
);
const budgetRefusal = errorAnswer('Orçamento diário (global ou do agente) esgotado: nada é gravado nem iniciado');

/** An active run, as GET /executions/active lists it: the history's record A, running, with its agent's name where the panel's filter looks. */
const activeExample = {
  ...executionExample,
  status: 'running',
  endedAt: null,
  agentConfig: { agent_name: 'Code Reviewer', model: 'sonnet' },
};

export const executionControlOperations: OperationSpec[] = [
  {
    method: 'post',
    path: '/api/agents/{id}/execute',
    operationId: 'executeAgent',
    summary: 'Executa um agente numa tarefa',
    description:
      'Grava a execução como `queued` e inicia seu workflow; ela roda quando houver vaga (maxConcurrent). Com `repoName`, o repositório e a branch ' +
      'são conferidos com o git antes; os `contextFiles` devem ser envios deste serviço (POST /api/uploads) ainda presentes. ' +
      '400 também para um agente inativo, um diretório fora de AGENT_WORKDIR_ROOTS ou `repoBranch` sem `repoName`; ' +
      '503 quando o Temporal recusa o início (a execução gravada termina com erro).',
    tags,
    pathParams: agentPath,
    headers: clientIdHeaders,
    body: {
      schema: executeBody,
      example: { task: 'Say hello', instructions: 'Answer in Portuguese.' },
    },
    responses: {
      202: launched,
      404: errorAnswer('Agente, repositório ou branch não encontrado'),
      409: budgetRefusal,
    },
  },
  {
    method: 'post',
    path: '/api/agents/{id}/cancel/{executionId}',
    operationId: 'cancelAgentExecution',
    summary: 'Cancela uma execução ativa de um agente',
    description:
      'Responde quando o cancelamento foi pedido; a execução termina `canceled` logo depois (o workflow encerra o agente antes).',
    tags,
    pathParams: z.object({
      id: idParam.meta({ description: "The agent's id" }),
      executionId: idParam.meta({ description: "The execution's id" }),
    }),
    responses: {
      200: jsonAnswer('Cancelamento pedido', cancelledExecutionSchema, { cancelled: true }),
      404: errorAnswer('Execução desconhecida, de outro agente, ou já finalizada'),
    },
  },
  {
    method: 'post',
    path: '/api/agents/{id}/continue',
    operationId: 'continueAgentSession',
    summary: 'Continua uma sessão do agente com uma nova mensagem',
    description:
      'Uma nova execução (source `continue`) que retoma a sessão (`--resume`), no diretório e com o modelo com que ela rodou; `instructions` vazio. ' +
      '400 também para um agente inativo; 503 quando o Temporal recusa o início.',
    tags,
    pathParams: agentPath,
    headers: clientIdHeaders,
    body: {
      schema: continueBody,
      example: { sessionId: '6d1f0c2a-8e7b-4c3d-9a5f-1b2c3d4e5f60', message: 'Agora escreva os testes' },
    },
    responses: {
      202: launched,
      404: errorAnswer('Agente desconhecido, ou nenhuma execução dele tem a sessão'),
      409: budgetRefusal,
    },
  },
  {
    method: 'get',
    path: '/api/executions/active',
    operationId: 'listActiveExecutions',
    summary: 'Lista as execuções ativas (queued, running, retrying, awaiting_approval), as mais antigas primeiro',
    tags,
    responses: { 200: jsonAnswer('As execuções ativas', z.array(activeExecutionViewSchema), [activeExample]) },
  },
  {
    method: 'post',
    path: '/api/executions/cancel-all',
    operationId: 'cancelAllExecutions',
    summary: 'Cancela todas as execuções ativas',
    description: 'As que esperam vaga primeiro, para que nenhuma ocupe a vaga liberada por outra.',
    tags,
    responses: { 200: jsonAnswer('Cancelamentos pedidos', cancelledExecutionsSchema, { cancelled: true, count: 2 }) },
  },
  {
    method: 'post',
    path: '/api/executions/{id}/retry',
    operationId: 'retryExecution',
    summary: 'Reexecuta uma execução que terminou com erro ou foi cancelada',
    description:
      'Um novo registro (source `retry`, `parentExecutionId`) com a mesma tarefa, instruções, diretório, modelo e repositório; um pipeline é ' +
      'reexecutado com sua entrada desde o primeiro passo. Não tem corpo. 400 quando a execução não terminou `error` nem `canceled`, não é de ' +
      'agente nem de pipeline, o agente ou o pipeline está inativo, o agente de um passo está inativo ou não existe mais, ou um arquivo ' +
      'de contexto foi removido; 503 quando o Temporal recusa o início.',
    tags,
    pathParams: z.object({ id: idParam.meta({ description: "The execution's id" }) }),
    headers: clientIdHeaders,
    responses: {
      200: jsonAnswer('A nova execução foi iniciada', retriedExecutionSchema, {
        success: true,
        message: 'Execução reiniciada',
        executionId: '7c2d9e4f-1a3b-4c5d-8e6f-0a1b2c3d4e5f',
      }),
      404: errorAnswer(
        'Execução desconhecida, ou seu agente ou pipeline foi excluído (ou, de um pipeline, o repositório ou a branch não existe mais)',
      ),
      409: errorAnswer('Orçamento diário esgotado (execução de agente): nada é gravado nem iniciado'),
    },
  },
];
