import { z } from 'zod';
import {
  approvedSchema,
  cancelledPipelineRunsSchema,
  pipelineViewSchema,
  rejectedSchema,
  resumedPipelineRunSchema,
  startedPipelineRunSchema,
} from '../../services/pipelines';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { pipelineCreateBody, pipelineExecuteBody, pipelineUpdateBody } from './pipelines-input';

/** The pipelines' operations (api/orchestration/pipelines-routes.ts; docs/pipelines.md) as the OpenAPI document describes them. */
const tags = ['Pipelines'];
const pipelinePath = z.object({ id: idParam.meta({ description: 'O id do pipeline' }) });
const runOrPipelinePath = z.object({ id: idParam.meta({ description: 'O id de uma execução do pipeline, ou o id do pipeline' }) });
const clientHeader = z.object({
  'X-Client-Id': z
    .string()
    .optional()
    .meta({ description: 'O cliente WebSocket que recebe a saída ao vivo da execução (sem ele, ninguém a recebe)' }),
});

const pipelineId = '3f6c2a1e-8b4d-4c7a-9e2f-5d1b0a7c6e94';
const executionId = 'c2b7e0d4-1a9f-4e63-8d25-7f0a3b6c9e18';
const reviewer = { id: '9a1d3c5e-7b2f-4e8a-b6c4-0d2e4f6a8b1c', name: 'revisor' };
const writer = { id: '5e7c9a1b-3d5f-4b2e-8a6c-1f3b5d7e9a2c', name: 'redator' };
const steps = [
  { agentId: reviewer.id, inputTemplate: 'Revise\n\n{{input}}', description: 'Revise', requiresApproval: false },
  { agentId: writer.id, inputTemplate: 'Resuma\n\nResultado do passo anterior:\n{{input}}', description: 'Resuma', requiresApproval: true },
];
const example = {
  id: pipelineId,
  name: 'Revisão',
  description: 'Revisa e resume',
  workingDirectory: '/home/projetos/site',
  status: 'active',
  steps: [
    {
      id: 'e4a6c8b0-2d4f-4a6c-8e0b-3c5e7a9b1d3f',
      agentId: reviewer.id,
      order: 0,
      inputTemplate: steps[0]!.inputTemplate,
      description: 'Revise',
      requiresApproval: false,
      agentName: reviewer.name,
    },
    {
      id: 'b1d3f5a7-9c1e-4b3d-a5f7-6e8a0c2e4b6d',
      agentId: writer.id,
      order: 1,
      inputTemplate: steps[1]!.inputTemplate,
      description: 'Resuma',
      requiresApproval: true,
      agentName: writer.name,
    },
  ],
  created_at: '2026-11-27T08:00:00.000Z',
  updated_at: '2026-11-27T08:00:00.000Z',
};
const notFound = errorAnswer('Pipeline não encontrado');

export const pipelinesOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/pipelines',
    operationId: 'listPipelines',
    summary: 'Lista os pipelines, os mais antigos primeiro, cada passo com o nome do seu agente',
    tags,
    responses: { 200: jsonAnswer('Os pipelines', z.array(pipelineViewSchema), [example]) },
  },
  {
    method: 'post',
    path: '/api/pipelines',
    operationId: 'createPipeline',
    summary: 'Cria um pipeline',
    description:
      'Os passos são guardados ordenados por `order` e renumerados; o primeiro nunca espera aprovação; um `inputTemplate` vazio é guardado como null. ' +
      'Cada `agentId` deve ser um agente existente e `workingDirectory` deve estar sob AGENT_WORKDIR_ROOTS (400 senão, nada guardado).',
    tags,
    body: {
      schema: pipelineCreateBody,
      example: { name: 'Revisão', description: 'Revisa e resume', workingDirectory: '/home/projetos/site', steps },
    },
    responses: {
      201: {
        ...jsonAnswer('O pipeline criado', pipelineViewSchema, example),
        headers: { Location: { description: '/api/pipelines/{id}', schema: z.string() } },
      },
      400: errorAnswer(
        'Entrada inválida (cada campo recusado é nomeado), um agente de passo que não existe, ou um diretório fora das raízes',
      ),
    },
  },
  {
    method: 'post',
    path: '/api/pipelines/resume/{executionId}',
    operationId: 'resumePipelineRun',
    summary: 'Retoma uma execução de pipeline que falhou, a partir do passo que falhou',
    description:
      'Inicia uma nova execução (source `resume`, `resumedFrom`, `resumedAtStep`) a partir do passo que falhou, com a entrada que ele recebeu; ' +
      'os passos anteriores já concluídos contam no detalhe e no custo da nova execução.',
    tags,
    pathParams: z.object({ executionId: idParam.meta({ description: 'O id do registro da execução do pipeline (com status `error`)' }) }),
    headers: clientHeader,
    responses: {
      202: jsonAnswer('A nova execução foi iniciada', resumedPipelineRunSchema, {
        pipelineId,
        executionId,
        resumedAtStep: 1,
        status: 'resumed',
      }),
      400: errorAnswer('A execução não terminou com erro, ou o pipeline está inativo'),
      404: errorAnswer('Execução de pipeline não encontrada, ou o seu pipeline não existe mais'),
    },
  },
  {
    method: 'get',
    path: '/api/pipelines/{id}',
    operationId: 'getPipeline',
    summary: 'Lê um pipeline',
    tags,
    pathParams: pipelinePath,
    responses: { 200: jsonAnswer('O pipeline', pipelineViewSchema, example), 404: notFound },
  },
  {
    method: 'put',
    path: '/api/pipelines/{id}',
    operationId: 'updatePipeline',
    summary: 'Altera os campos dados de um pipeline',
    description:
      'Parcial: um campo ausente mantém o valor guardado (o editor de fluxo não envia `workingDirectory`); `workingDirectory` `""` o limpa.',
    tags,
    pathParams: pipelinePath,
    body: {
      schema: pipelineUpdateBody,
      example: { name: 'Revisão 2', description: 'editado', steps: steps.map(({ description: _description, ...step }) => step) },
    },
    responses: {
      200: jsonAnswer('O pipeline alterado', pipelineViewSchema, example),
      400: errorAnswer(
        'Entrada inválida (cada campo recusado é nomeado), um agente de passo que não existe, ou um diretório fora das raízes',
      ),
      404: notFound,
    },
  },
  {
    method: 'delete',
    path: '/api/pipelines/{id}',
    operationId: 'deletePipeline',
    summary: 'Exclui um pipeline',
    tags,
    pathParams: pipelinePath,
    responses: { 204: { description: 'Excluído' }, 404: notFound },
  },
  {
    method: 'post',
    path: '/api/pipelines/{id}/execute',
    operationId: 'executePipeline',
    summary: 'Inicia uma execução do pipeline',
    description:
      'Verificado antes de guardar qualquer coisa: pipeline desconhecido 404, pipeline inativo, agente de um passo ausente ou inativo, ' +
      'diretório fora das raízes, arquivo de contexto que não é um envio deste serviço 400. A saída ao vivo vai ao cliente de `X-Client-Id`.',
    tags,
    pathParams: pipelinePath,
    headers: clientHeader,
    body: { schema: pipelineExecuteBody, example: { input: 'Revise o pull request #42' } },
    responses: {
      202: jsonAnswer('A execução foi iniciada', startedPipelineRunSchema, { pipelineId, executionId, status: 'started' }),
      400: errorAnswer(
        'Entrada inválida, pipeline inativo, agente de um passo ausente ou inativo, arquivo de contexto ou diretório recusado',
      ),
      404: errorAnswer('Pipeline, repositório ou branch não encontrado'),
    },
  },
  {
    method: 'post',
    path: '/api/pipelines/{id}/approve',
    operationId: 'approvePipelineStep',
    summary: 'Aprova o passo que uma execução de pipeline aguarda',
    description: 'Com o id de um pipeline, decide a execução dele que aguarda aprovação há mais tempo.',
    tags,
    pathParams: runOrPipelinePath,
    responses: {
      200: jsonAnswer('Aprovado: a execução continua', approvedSchema, { approved: true }),
      404: errorAnswer('Nenhuma aprovação pendente para este pipeline'),
    },
  },
  {
    method: 'post',
    path: '/api/pipelines/{id}/reject',
    operationId: 'rejectPipelineStep',
    summary: 'Rejeita o passo que uma execução de pipeline aguarda (a execução termina `rejected`)',
    description: 'Com o id de um pipeline, decide a execução dele que aguarda aprovação há mais tempo.',
    tags,
    pathParams: runOrPipelinePath,
    responses: {
      200: jsonAnswer('Rejeitado: a execução termina', rejectedSchema, { rejected: true }),
      404: errorAnswer('Nenhuma aprovação pendente para este pipeline'),
    },
  },
  {
    method: 'post',
    path: '/api/pipelines/{id}/cancel',
    operationId: 'cancelPipelineRuns',
    summary: 'Cancela uma execução de pipeline, ou todas as execuções ativas de um pipeline',
    tags,
    pathParams: runOrPipelinePath,
    responses: {
      200: jsonAnswer('As execuções canceladas (`count`)', cancelledPipelineRunsSchema, { cancelled: true, count: 1 }),
      404: errorAnswer('Pipeline não está em execução'),
    },
  },
];
