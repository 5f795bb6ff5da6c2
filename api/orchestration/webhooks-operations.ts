import { z } from 'zod';
import { hookAnswerSchema, testedWebhookSchema, webhookViewSchema } from '../../services/webhooks';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { hookHeaders, hookPayloadBody, webhookCreateBody, webhookUpdateBody } from './webhooks-input';

/**
 * The webhooks' operations (api/orchestration/webhooks-routes.ts) and their public call
 * (POST /hook/{token}, api/hook-routes.ts) as the OpenAPI document describes them (docs/webhooks.md).
 */
const tags = ['Webhooks'];
const webhookPath = z.object({ id: idParam });
const retryAfter = { 'Retry-After': { description: 'Segundos até poder tentar de novo', schema: z.string() } };

const agentId = '9a1d3c5e-7b2f-4e8a-b6c4-0d2e4f6a8b1c';
const executionId = 'c2b7e0d4-1a9f-4e63-8d25-7f0a3b6c9e18';
const token = '3b9f0c6a1d4e7f2a5b8c0d3e6f9a2b5c8d1e4f7a0b3c6d9e';
const example = {
  id: '6d8f0a2c-4e6a-4c8e-a0b2-9d1f3b5d7f90',
  name: 'Do GitHub',
  targetType: 'agent',
  targetId: agentId,
  token,
  active: true,
  hasSecret: false,
  lastTriggeredAt: null,
  triggerCount: 0,
  created_at: '2026-11-25T12:00:00.000Z',
  updated_at: '2026-11-25T12:00:00.000Z',
};
const notFound = errorAnswer('Webhook não encontrado');
const invalid = errorAnswer(
  'Entrada inválida: `name, targetType e targetId são obrigatórios`, `targetType deve ser "agent" ou "pipeline"`, um limite excedido, ou um alvo que não existe',
);
const secretUnavailable = errorAnswer('AGENT_SECRETS_KEY não está definida (para gravar um segredo), ou uma dependência está indisponível');

export const webhooksOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/webhooks',
    operationId: 'listWebhooks',
    summary: 'Lista os webhooks, os mais antigos primeiro',
    tags,
    responses: { 200: jsonAnswer('Os webhooks (com o token; o segredo nunca)', z.array(webhookViewSchema), [example]) },
  },
  {
    method: 'post',
    path: '/api/webhooks',
    operationId: 'createWebhook',
    summary: 'Cria um webhook ativo, com um token novo',
    description: 'O alvo (agente ou pipeline) deve existir. Outras chaves do corpo são aceitas e ignoradas.',
    tags,
    body: { schema: webhookCreateBody, example: { name: 'Do GitHub', targetType: 'agent', targetId: agentId } },
    responses: {
      201: {
        ...jsonAnswer('O webhook criado', webhookViewSchema, example),
        headers: { Location: { description: '/api/webhooks/{id}', schema: z.string() } },
      },
      400: invalid,
      409: errorAnswer('Já há 1000 webhooks: exclua um antes'),
      503: secretUnavailable,
    },
  },
  {
    method: 'put',
    path: '/api/webhooks/{id}',
    operationId: 'updateWebhook',
    summary: 'Altera nome, alvo, estado ou segredo de um webhook (o token nunca muda)',
    description:
      'Só `name`, `targetType`, `targetId`, `active` e `secret` são aplicados; outras chaves são ignoradas. Um alvo alterado deve existir.',
    tags,
    pathParams: webhookPath,
    body: { schema: webhookUpdateBody, example: { active: false } },
    responses: {
      200: jsonAnswer('O webhook alterado', webhookViewSchema, { ...example, active: false }),
      400: invalid,
      404: notFound,
      503: secretUnavailable,
    },
  },
  {
    method: 'delete',
    path: '/api/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Exclui um webhook (e as suas entregas)',
    tags,
    pathParams: webhookPath,
    responses: { 204: { description: 'Excluído' }, 404: notFound },
  },
  {
    method: 'post',
    path: '/api/webhooks/{id}/test',
    operationId: 'testWebhook',
    summary: 'Executa o alvo do webhook agora, com a tarefa "Teste de webhook"',
    description:
      'Source `webhook-test`, a saída ao vivo vai a todos os clientes. Um webhook inativo pode ser testado; o teste não conta como disparo. ' +
      'Um alvo pipeline responde também `pipelineId`.',
    tags,
    pathParams: webhookPath,
    responses: {
      202: jsonAnswer('O alvo foi iniciado', testedWebhookSchema, { success: true, message: 'Webhook disparado com sucesso', executionId }),
      400: errorAnswer('O agente ou o pipeline alvo (ou o agente de um passo) está inativo'),
      404: errorAnswer('Webhook não encontrado, ou o seu alvo não existe mais'),
      409: errorAnswer('O orçamento diário do agente alvo (ou o global) está esgotado'),
    },
  },
  {
    method: 'post',
    path: '/hook/{token}',
    operationId: 'callWebhook',
    summary: 'Chamada pública de um webhook: inicia o seu agente ou pipeline',
    description:
      'Fora de /api, sem o token da API: o token do caminho é a credencial. O corpo é lido como JSON qualquer que seja o Content-Type (vazio: `{}`). ' +
      'Agente: tarefa de `task`, `message` ou `input` e `instructions`; pipeline: entrada de `input`, `task` ou `message` e `workingDirectory`. ' +
      'Um id de entrega (X-GitHub-Delivery ou X-Webhook-Delivery) já recebido responde `duplicate`, com a execução da primeira chamada, e não inicia nada. ' +
      'Um alvo pipeline responde também `pipelineId`.',
    tags,
    public: true,
    pathParams: z.object({
      token: z.string().meta({ description: 'O token do webhook (48 caracteres hexadecimais minúsculos; outra forma: 404)' }),
    }),
    headers: hookHeaders,
    body: { schema: hookPayloadBody, required: false, example: { task: 'Revise o pull request #42', instructions: 'Seja breve' } },
    responses: {
      202: jsonAnswer('O alvo foi iniciado (`started`), ou a entrega já foi recebida (`duplicate`)', hookAnswerSchema, {
        executionId,
        status: 'started',
        webhook: 'Do GitHub',
      }),
      400: errorAnswer(
        'Corpo que não é JSON ou não é um objeto, campo longo demais, id de entrega com mais de 200 caracteres, diretório fora das raízes, ou agente ou pipeline (ou agente de um passo) inativo',
      ),
      401: errorAnswer('Assinatura ausente ou inválida (X-Hub-Signature-256), quando um segredo se aplica'),
      403: errorAnswer(
        'Webhook desativado (verificado depois da assinatura), ou Host não permitido (ALLOWED_HOSTS), ou chamada vinda da página de outro site',
      ),
      404: errorAnswer('Webhook não encontrado (token desconhecido), ou o seu alvo não existe mais'),
      409: errorAnswer('O orçamento diário do agente alvo (ou o global) está esgotado: a chamada é registrada como recusada, não contada'),
      413: errorAnswer('O corpo é maior que 1 MB'),
      429: {
        ...errorAnswer(
          'Muitas chamadas deste endereço (HOOK_RATE_LIMIT_REQUESTS por HOOK_RATE_LIMIT_WINDOW_SECONDS; um limite próprio, separado do de /api)',
        ),
        headers: retryAfter,
      },
      503: {
        ...errorAnswer(
          'Esta entrega ainda está sendo iniciada por uma chamada anterior (Retry-After: 10), ou uma dependência (MariaDB, Temporal) está indisponível, ou AGENT_SECRETS_KEY falta para abrir o segredo do webhook',
        ),
        headers: {
          'Retry-After': {
            description: 'Segundos até poder enviar a entrega de novo (só para uma entrega em andamento)',
            schema: z.string(),
          },
        },
      },
    },
  },
];
