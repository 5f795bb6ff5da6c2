import { z } from 'zod';
import { taskViewSchema } from '../../services/tasks';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { taskCreateBody, taskUpdateBody } from './tasks-input';

/** The task templates' operations (api/orchestration/tasks-routes.ts) as the OpenAPI document describes them. */
const tags = ['Tarefas'];
const taskPath = z.object({ id: idParam });
const example = {
  id: '7b0c5d7e-2f4e-4a35-9d8e-0c7f6a1e2b3c',
  name: 'Revisar PR',
  category: 'code-review',
  description: 'Revise o pull request aberto',
  createdAt: '2026-11-27T08:00:00.000Z',
  updatedAt: '2026-11-27T08:00:00.000Z',
  created_at: '2026-11-27T08:00:00.000Z',
  updated_at: '2026-11-27T08:00:00.000Z',
};
const notFound = errorAnswer('Tarefa não encontrada');

export const tasksOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/tasks',
    operationId: 'listTasks',
    summary: 'Lista as tarefas salvas, as mais novas primeiro',
    tags,
    responses: { 200: jsonAnswer('As tarefas (no máximo 1000)', z.array(taskViewSchema), [example]) },
  },
  {
    method: 'post',
    path: '/api/tasks',
    operationId: 'createTask',
    summary: 'Cria uma tarefa',
    tags,
    body: { schema: taskCreateBody, example: { name: 'Revisar PR', category: 'code-review', description: 'Revise o pull request aberto' } },
    responses: {
      201: {
        ...jsonAnswer('A tarefa criada', taskViewSchema, example),
        headers: { Location: { description: '/api/tasks/{id}', schema: z.string() } },
      },
      409: errorAnswer('Já há 1000 tarefas: exclua uma antes de criar outra'),
    },
  },
  {
    method: 'put',
    path: '/api/tasks/{id}',
    operationId: 'updateTask',
    summary: 'Altera os campos dados de uma tarefa',
    tags,
    pathParams: taskPath,
    body: { schema: taskUpdateBody, example: { name: 'Revisar PR #42' } },
    responses: { 200: jsonAnswer('A tarefa alterada', taskViewSchema, example), 404: notFound },
  },
  {
    method: 'delete',
    path: '/api/tasks/{id}',
    operationId: 'deleteTask',
    summary: 'Exclui uma tarefa',
    tags,
    pathParams: taskPath,
    responses: { 204: { description: 'Excluída' }, 404: notFound },
  },
];
