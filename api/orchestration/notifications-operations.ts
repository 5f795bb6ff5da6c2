import { z } from 'zod';
import { notificationListSchema } from '../../services/notifications';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';
import { notificationsQuery } from './notifications-input';

/** The notifications' operations (api/orchestration/notifications-routes.ts) as the OpenAPI document describes them. */
const tags = ['Notificações'];
const count = z.number().int();

const listExample = {
  notifications: [
    {
      id: '5f0b6a3e-8c1d-4e2f-9a7b-1c2d3e4f5a6b',
      type: 'error',
      kind: 'execution.error',
      title: 'Execução falhou',
      message: 'Revisor: exit 1',
      executionId: '0f1e2d3c-4b5a-4968-8776-655443322110',
      read: false,
      createdAt: '2026-01-02T00:00:00.000Z',
    },
    {
      id: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
      type: 'success',
      kind: 'execution.completed',
      title: 'Execução concluída',
      message: 'Revisor: Revise o pull request aberto',
      executionId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d',
      read: true,
      createdAt: '2026-01-01T00:00:00.000Z',
    },
  ],
  unreadCount: 1,
  total: 2,
  page: 1,
  pageSize: 50,
  totalPages: 1,
};

export const notificationsOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/notifications',
    operationId: 'listNotifications',
    emptyQueryValuesIgnored: true,
    summary: 'Lista as notificações, as mais novas primeiro, com o total de não lidas',
    tags,
    query: notificationsQuery,
    responses: { 200: jsonAnswer('Uma página de notificações', notificationListSchema, listExample) },
  },
  {
    method: 'post',
    path: '/api/notifications/read-all',
    operationId: 'markAllNotificationsRead',
    summary: 'Marca todas as notificações como lidas',
    tags,
    responses: {
      200: jsonAnswer(
        'Marcadas',
        z.object({ success: z.literal(true), updated: count.meta({ description: 'Quantas estavam não lidas' }) }),
        { success: true, updated: 3 },
      ),
    },
  },
  {
    method: 'post',
    path: '/api/notifications/{id}/read',
    operationId: 'markNotificationRead',
    summary: 'Marca uma notificação como lida (de novo não é erro)',
    tags,
    pathParams: z.object({ id: idParam }),
    responses: {
      200: jsonAnswer('Marcada', z.object({ success: z.literal(true) }), { success: true }),
      404: errorAnswer('Notificação não encontrada'),
    },
  },
  {
    method: 'delete',
    path: '/api/notifications',
    operationId: 'clearNotifications',
    summary: 'Exclui todas as notificações, lidas ou não',
    tags,
    responses: {
      200: jsonAnswer(
        'Excluídas',
        z.object({ success: z.literal(true), deleted: count.meta({ description: 'Quantas foram excluídas' }) }),
        { success: true, deleted: 3 },
      ),
    },
  },
];
