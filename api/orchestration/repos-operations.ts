import { z } from 'zod';
import { repositoryViewSchema } from '../../services/repos';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';

/** The repositories' operations (api/orchestration/repos-routes.ts) as the OpenAPI document describes them. */
const tags = ['Repositórios'];

export const reposOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/repos',
    operationId: 'listRepositories',
    summary: 'Lista os repositórios configurados (GIT_REPOS_DIR e GIT_REMOTES), por nome',
    description: 'No máximo 200; um repositório que o git não consegue ler aparece vazio (`empty`, `defaultBranch` null).',
    tags,
    responses: {
      200: jsonAnswer('Os repositórios', z.array(repositoryViewSchema), [
        {
          name: 'api',
          fullName: 'api',
          description: 'The public API',
          defaultBranch: 'main',
          updatedAt: null,
          htmlUrl: null,
          cloneUrl: '/srv/git/api.git',
          empty: false,
        },
      ]),
    },
  },
  {
    method: 'get',
    path: '/api/repos/{name}/branches',
    operationId: 'listRepositoryBranches',
    summary: 'Lista os branches de um repositório, por nome',
    tags,
    pathParams: z.object({ name: idParam.meta({ description: 'O nome de um repositório configurado' }) }),
    responses: {
      200: jsonAnswer('Os nomes dos branches (vazio para um repositório vazio)', z.array(z.string()), [
        'feature/login',
        'main',
        'release-1.0',
      ]),
      404: errorAnswer('Repositório não encontrado (um nome que não é de um repositório configurado)'),
      503: errorAnswer('O git não conseguiu ler o repositório, ou uma dependência está indisponível'),
    },
  },
];
