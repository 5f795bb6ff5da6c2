import { panelSettingsSchema, settingsUpdate } from '../../services/settings';
import { jsonAnswer, type OperationSpec } from '../openapi/operation';

/** The settings' operations (api/orchestration/settings-routes.ts) as the OpenAPI document describes them. */
const tags = ['Configurações'];
const example = { defaultModel: 'claude-sonnet-4-6', defaultWorkdir: '/home/projetos/agents', maxConcurrent: 4, dailyBudgetUsd: null };

export const settingsOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/settings',
    operationId: 'getSettings',
    summary: 'Lê as configurações da orquestração',
    tags,
    responses: { 200: jsonAnswer('As configurações (os valores gravados sobre os padrões)', panelSettingsSchema, example) },
  },
  {
    method: 'put',
    path: '/api/settings',
    operationId: 'updateSettings',
    summary: 'Altera as configurações dadas (ao menos uma)',
    description:
      'Os campos dados substituem os gravados; os outros ficam. `defaultWorkdir` vazio é o padrão (a primeira raiz de AGENT_WORKDIR_ROOTS); ' +
      'fora das raízes é 400. `workingDirectory` e `maxConcurrentExecutions` (os nomes gravados) ainda são aceitos, mas não junto do nome do painel. ' +
      'Um corpo recusado não altera nada.',
    tags,
    body: {
      schema: settingsUpdate,
      example: { defaultModel: 'claude-sonnet-4-6', defaultWorkdir: '/home/projetos/agents/', maxConcurrent: 4 },
    },
    responses: { 200: jsonAnswer('As configurações inteiras, já alteradas', panelSettingsSchema, example) },
  },
];
