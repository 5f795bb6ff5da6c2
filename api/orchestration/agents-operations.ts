import { z } from 'zod';
import {
  agentExportSchema,
  agentVersionViewSchema,
  agentViewSchema,
  secretCreatedSchema,
  secretUpdatedSchema,
  secretViewSchema,
} from '../../services/agents';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { agentCreateBody, agentImportBody, agentUpdateBody, legacyExportBody, secretBody, versionParam } from './agent-input';

/** The agents' operations (api/orchestration/agents-routes.ts; docs/agents.md) as the OpenAPI document describes them. */
const tags = ['Agentes'];
const agentPath = z.object({ id: idParam });
const versionPath = z.object({ id: idParam, version: versionParam.meta({ description: 'O número da versão (1, 2, ...)' }) });
const secretPath = z.object({
  id: idParam,
  name: idParam.meta({ description: 'O nome do segredo, codificado na URL (`MY%20KEY` é "MY KEY")' }),
});

// The data of test/integration/agents-api.test.ts (panelBody, expectedView).
const ID = '5f0c2a4e-8b1d-4c3e-9f6a-2d7e1b0c9a84';
const config = {
  cli: 'claude-code',
  systemPrompt: 'Você é um revisor.\nSeja breve.',
  model: 'claude-sonnet-4-6',
  workingDirectory: '/home/projetos',
  allowedTools: 'Bash,Read',
  maxTurns: 0,
  permissionMode: '',
  retryOnFailure: false,
  maxRetries: 3,
  delegateTo: '',
};
// The panel's form sends no `cli` (Claude Code, the default).
const { cli: _cli, ...panelConfig } = config;
const panelBody = {
  agent_name: 'Revisor',
  description: 'Revisa pull requests',
  tags: ['review', 'lider'],
  status: 'active',
  config: { ...panelConfig, workingDirectory: '/home/projetos/' },
};
const exported = { agent_name: 'Revisor', description: 'Revisa pull requests', tags: ['review', 'lider'], config, status: 'active' };
const example = { id: ID, ...exported, version: 1, created_at: '2026-11-25T11:00:00.000Z', updated_at: '2026-11-25T11:00:00.000Z' };
const updated = {
  ...example,
  config: { ...config, systemPrompt: 'Novo prompt', model: 'claude-opus-4-6' },
  version: 2,
  updated_at: '2026-11-25T11:05:00.000Z',
};
const versionsExample = [
  {
    version: 2,
    changedAt: '2026-11-25T11:05:00.000Z',
    changelog: 'Atualizado: model, systemPrompt',
    changedFields: ['model', 'systemPrompt'],
    config: { model: 'claude-opus-4-6', systemPrompt: 'Novo prompt' },
    snapshot: updated,
  },
  { version: 1, changedAt: '2026-11-25T11:00:00.000Z', changelog: 'Criado', changedFields: [], config: {}, snapshot: example },
];

const notFound = errorAnswer('Agente não encontrado');
const location = { Location: { description: '/api/agents/{id} do agente criado', schema: z.string() } };
const created = (description: string, value: unknown) => ({ ...jsonAnswer(description, agentViewSchema, value), headers: location });
const LIMIT = 'AGENTS_MAX agentes (padrão 500): exclua um antes de criar outro';
const copyConflict = errorAnswer(`Já há ${LIMIT}; ou nenhum nome livre entre as 100 variações tentadas`);

export const agentsOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/agents',
    operationId: 'listAgents',
    summary: 'Lista os agentes, ordenados por nome',
    tags,
    responses: { 200: jsonAnswer('Os agentes (um array simples)', z.array(agentViewSchema), [example]) },
  },
  {
    method: 'post',
    path: '/api/agents',
    operationId: 'createAgent',
    summary: 'Cria um agente',
    description:
      'O corpo que o painel monta (AgentsUI.save()): só `agent_name` é obrigatório, os demais campos tomam os padrões. Chaves desconhecidas são recusadas (400); `id`, `tasks`, `assigned_host`, `executions`, `version`, `created_at`, `updated_at`, `createdAt`, `updatedAt` são aceitas e ignoradas. O diretório de trabalho deve estar sob AGENT_WORKDIR_ROOTS (400). `config.cli` escolhe o CLI (`claude-code`, o padrão, `codex` ou `gemini`); o que ele não atende responde 400 (docs/agents.md).',
    tags,
    body: { schema: agentCreateBody, example: panelBody },
    responses: {
      201: created('O agente criado (versão 1)', example),
      409: errorAnswer(`Já existe um agente com esse nome (sem distinguir maiúsculas nem acentos), ou já há ${LIMIT}`),
    },
  },
  {
    method: 'post',
    path: '/api/agents/import',
    operationId: 'importAgent',
    summary: 'Importa um agente exportado',
    description:
      'O que GET /api/agents/{id}/export responde (validado como na criação, com `config.timeout` fora de 1 s..24 h trazido para esse intervalo), ou o antigo arquivo de exportação deste serviço (`{format: "agent-export", version: 1, agent}`). O nome é mantido se livre, senão "<nome> (importado)", "<nome> (importado 2)"...; um `config.delegateTo` que não é um agente daqui é descartado.',
    tags,
    body: { schema: z.union([agentImportBody, legacyExportBody]), example: exported },
    responses: {
      201: created('O agente importado (novo id, versão 1)', { ...example, agent_name: 'Revisor (importado)' }),
      409: copyConflict,
    },
  },
  {
    method: 'get',
    path: '/api/agents/{id}',
    operationId: 'getAgent',
    summary: 'Lê um agente',
    tags,
    pathParams: agentPath,
    responses: { 200: jsonAnswer('O agente', agentViewSchema, example), 404: notFound },
  },
  {
    method: 'put',
    path: '/api/agents/{id}',
    operationId: 'updateAgent',
    summary: 'Altera os campos dados de um agente (uma nova versão)',
    description:
      'Parcial: as chaves dadas substituem as guardadas, `config` é mesclado sobre o config guardado chave a chave; ao menos um de `agent_name`, `description`, `tags`, `status`, `config`. Toda alteração aceita grava a versão seguinte, mesmo sem mudança. Sem `config.cli` (o formulário do painel) o CLI guardado é mantido e, num agente de outro CLI que o Claude Code, um modelo do Claude e um `permissionMode` "" que o formulário não sabe mostrar não são gravados (os guardados ficam). O que o CLI do agente não atende (`maxTurns` > 0, `allowedTools`, um `permissionMode` de outro CLI, um modelo do Claude) responde 400.',
    tags,
    pathParams: agentPath,
    body: { schema: agentUpdateBody, example: { config: { systemPrompt: 'Novo prompt', model: 'claude-opus-4-6' } } },
    responses: {
      200: jsonAnswer('O agente alterado', agentViewSchema, updated),
      404: notFound,
      409: errorAnswer('Já existe outro agente com esse nome'),
    },
  },
  {
    method: 'delete',
    path: '/api/agents/{id}',
    operationId: 'deleteAgent',
    summary: 'Exclui um agente, com seus agendamentos, versões e segredos',
    description:
      'Os agentes que delegavam a ele passam a não delegar. Com o Temporal indisponível, os agendamentos não podem ser removidos: 503 e o agente fica.',
    tags,
    pathParams: agentPath,
    responses: { 204: { description: 'Excluído' }, 404: notFound },
  },
  {
    method: 'get',
    path: '/api/agents/{id}/export',
    operationId: 'exportAgent',
    summary: 'Exporta um agente (o que POST /api/agents/import lê de volta)',
    description: 'Sem segredos nem versões.',
    tags,
    pathParams: agentPath,
    responses: {
      200: {
        ...jsonAnswer('Os dados do agente', agentExportSchema, exported),
        headers: { 'Content-Disposition': { description: 'attachment; filename="agent-<nome>.json"', schema: z.string() } },
      },
      404: notFound,
    },
  },
  {
    method: 'post',
    path: '/api/agents/{id}/duplicate',
    operationId: 'duplicateAgent',
    summary: 'Duplica um agente',
    description:
      'Sem corpo. A cópia: novo id, versão 1, `status: "active"`, nome "<nome> (cópia)", depois "(cópia 2)"...; os segredos não são copiados.',
    tags,
    pathParams: agentPath,
    responses: {
      201: created('A cópia', { ...example, id: 'a3e1c7b2-6d4f-4e8a-b9c0-1f2d3e4a5b6c', agent_name: 'Revisor (cópia)' }),
      404: notFound,
      409: copyConflict,
    },
  },
  {
    method: 'get',
    path: '/api/agents/{id}/versions',
    operationId: 'listAgentVersions',
    summary: 'Lista as versões de um agente, a mais nova primeiro',
    description:
      'O item 0 é o estado atual (seu `snapshot` é igual a GET /api/agents/{id}); são mantidas as AGENT_VERSIONS_KEPT (padrão 50) mais novas.',
    tags,
    pathParams: agentPath,
    responses: { 200: jsonAnswer('As versões (um array simples)', z.array(agentVersionViewSchema), versionsExample), 404: notFound },
  },
  {
    method: 'post',
    path: '/api/agents/{id}/versions/{version}/restore',
    operationId: 'restoreAgentVersion',
    summary: 'Restaura uma versão de um agente como uma nova versão',
    description:
      'Sem corpo. Os dados da versão pedida voltam como a versão seguinte (changelog "Restaurado para versão <n>"); um delegado que não existe mais não volta.',
    tags,
    pathParams: versionPath,
    responses: {
      200: jsonAnswer('O agente restaurado', agentViewSchema, { ...example, version: 3, updated_at: '2026-11-25T11:10:00.000Z' }),
      404: errorAnswer('Agente não encontrado, ou o agente não tem essa versão (desconhecida ou já descartada)'),
      409: errorAnswer('O nome da versão foi tomado por outro agente desde então'),
    },
  },
  {
    method: 'get',
    path: '/api/agents/{id}/secrets',
    operationId: 'listAgentSecrets',
    summary: 'Lista os segredos de um agente (só os nomes, ordenados)',
    tags,
    pathParams: agentPath,
    responses: {
      200: jsonAnswer('Os segredos, sem os valores', z.array(secretViewSchema), [
        { name: 'API_TOKEN', created_at: '2026-11-25T11:00:00.000Z' },
      ]),
      404: notFound,
    },
  },
  {
    method: 'post',
    path: '/api/agents/{id}/secrets',
    operationId: 'setAgentSecret',
    summary: 'Cria ou substitui um segredo de um agente, pelo nome',
    description: 'O segredo vira uma variável de ambiente do processo do agente; o valor é cifrado e nunca é respondido.',
    tags,
    pathParams: agentPath,
    body: { schema: secretBody, example: { name: 'API_TOKEN', value: 'ghp_exemplo' } },
    responses: {
      200: jsonAnswer('O valor de um segredo existente foi substituído', secretUpdatedSchema, { name: 'API_TOKEN', updated: true }),
      201: jsonAnswer('Segredo criado', secretCreatedSchema, { name: 'API_TOKEN', created: true }),
      404: notFound,
      503: errorAnswer('AGENT_SECRETS_KEY não está definida (os segredos não podem ser gravados), ou uma dependência está indisponível'),
    },
  },
  {
    method: 'delete',
    path: '/api/agents/{id}/secrets/{name}',
    operationId: 'deleteAgentSecret',
    summary: 'Exclui um segredo de um agente',
    tags,
    pathParams: secretPath,
    responses: {
      204: { description: 'Excluído' },
      404: errorAnswer('Agente não encontrado, ou o agente não tem um segredo com esse nome'),
    },
  },
];
