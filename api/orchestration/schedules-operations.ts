import { z } from 'zod';
import { executionViewSchema } from '../../services/executions';
import { scheduleViewSchema } from '../../services/schedules';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { scheduleCreateBody, scheduleHistoryQuery, scheduleUpdateBody } from './schedules-input';

/** The agent schedules' operations (api/orchestration/schedules-routes.ts; docs/tasks-schedules.md) as the OpenAPI document describes them. */
const tags = ['Agendamentos'];
const schedulePath = z.object({ id: idParam });
const agentId = '9a1d3c5e-7b2f-4e8a-b6c4-0d2e4f6a8b1c';
const example = {
  id: '0c4e8a2d-6b1f-4d3a-9e5c-7a2b4d6f8e10',
  taskId: null,
  agentId,
  agentName: 'agendado',
  taskDescription: 'Revise os PRs abertos',
  cronExpression: '0 9 * * 1',
  cronExpr: '0 9 * * 1',
  active: true,
  nextRun: '2026-11-30T12:00:00.000Z',
  createdAt: '2026-11-27T08:00:00.000Z',
  updatedAt: '2026-11-27T08:00:00.000Z',
  created_at: '2026-11-27T08:00:00.000Z',
  updated_at: '2026-11-27T08:00:00.000Z',
};
const notFound = errorAnswer('Agendamento não encontrado');
const invalid = errorAnswer(
  'Entrada inválida (cada campo recusado é nomeado), expressão cron inválida ou que dispara a menos de 5 minutos, ou `taskId` de uma tarefa que não existe',
);
const unavailable = errorAnswer('O mecanismo de workflows (Temporal) está indisponível: nada foi gravado');

export const schedulesOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/schedules',
    operationId: 'listSchedules',
    summary: 'Lista os agendamentos, os mais novos primeiro, com o próximo disparo',
    tags,
    responses: { 200: jsonAnswer('Os agendamentos (no máximo 200)', z.array(scheduleViewSchema), [example]) },
  },
  {
    method: 'get',
    path: '/api/schedules/history',
    operationId: 'listScheduleHistory',
    emptyQueryValuesIgnored: true,
    summary: 'Lista as execuções iniciadas por agendamentos, as mais novas primeiro',
    tags,
    query: scheduleHistoryQuery,
    responses: { 200: jsonAnswer('As execuções com source `schedule` (`scheduleId` nomeia o agendamento)', z.array(executionViewSchema)) },
  },
  {
    method: 'post',
    path: '/api/schedules',
    operationId: 'createSchedule',
    summary: 'Cria um agendamento e o seu Schedule no Temporal',
    tags,
    body: { schema: scheduleCreateBody, example: { agentId, taskDescription: 'Revise os PRs abertos', cronExpression: '0 9 * * 1' } },
    responses: {
      201: {
        ...jsonAnswer('O agendamento criado', scheduleViewSchema, example),
        headers: { Location: { description: '/api/schedules/{id}', schema: z.string() } },
      },
      400: invalid,
      404: errorAnswer('Agente não encontrado'),
      409: errorAnswer('Já há 200 agendamentos: exclua um antes de criar outro'),
      503: unavailable,
    },
  },
  {
    method: 'put',
    path: '/api/schedules/{id}',
    operationId: 'updateSchedule',
    summary: 'Altera os campos dados de um agendamento',
    description: 'Um campo ausente mantém o seu valor; `active: false` pausa o agendamento.',
    tags,
    pathParams: schedulePath,
    body: { schema: scheduleUpdateBody, example: { cronExpression: '0 9 * * *' } },
    responses: {
      200: jsonAnswer('O agendamento alterado', scheduleViewSchema, {
        ...example,
        cronExpression: '0 9 * * *',
        cronExpr: '0 9 * * *',
        nextRun: '2026-11-28T12:00:00.000Z',
      }),
      400: invalid,
      404: errorAnswer('Agendamento ou agente não encontrado'),
      503: errorAnswer('O mecanismo de workflows (Temporal) está indisponível: o agendamento manteve os valores anteriores'),
    },
  },
  {
    method: 'delete',
    path: '/api/schedules/{id}',
    operationId: 'deleteSchedule',
    summary: 'Exclui um agendamento e o seu Schedule no Temporal (uma execução já iniciada continua)',
    tags,
    pathParams: schedulePath,
    responses: {
      204: { description: 'Excluído' },
      404: notFound,
      503: errorAnswer('O mecanismo de workflows (Temporal) está indisponível: nada foi excluído'),
    },
  },
];
