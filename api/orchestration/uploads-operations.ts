import { z } from 'zod';
import { receivedUploadsSchema } from '../../services/uploads';
import { errorAnswer, jsonAnswer, type OperationSpec } from '../openapi/operation';

/**
 * POST /api/uploads (api/orchestration/uploads-routes.ts) as the OpenAPI document describes it. The
 * route parses the body as it streams (uploads-input.ts, busboy): this form schema only describes it.
 */
const uploadForm = z
  .object({
    files: z
      .array(z.string().meta({ format: 'binary' }))
      .min(1)
      .meta({ description: 'Cada arquivo, uma parte chamada `files` (no máximo AGENT_UPLOAD_MAX_FILES, 20 por padrão)' }),
  })
  .meta({ description: 'Somente partes de arquivo chamadas `files`: qualquer outra parte ou campo é recusado' });

export const uploadsOperations: OperationSpec[] = [
  {
    method: 'post',
    path: '/api/uploads',
    operationId: 'uploadFiles',
    summary: 'Envia os arquivos de contexto de uma execução',
    description:
      'Os arquivos vão ao disco enquanto chegam; a resposta `files` é o `contextFiles` de POST /api/agents/{id}/execute ou /api/pipelines/{id}/execute. ' +
      'Recusado (400: nenhum arquivo, arquivos demais, outra parte ou um campo, corpo que não é multipart/form-data ou malformado; 413), ' +
      'nada fica guardado.',
    tags: ['Uploads'],
    headers: z.object({ 'X-Client-Id': z.string().optional().meta({ description: 'O cliente do painel, gravado com os arquivos' }) }),
    body: { schema: uploadForm, contentType: 'multipart/form-data' },
    responses: {
      200: jsonAnswer('Os arquivos guardados', receivedUploadsSchema, {
        sessionId: '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
        files: [
          {
            originalName: 'notas.txt',
            path: '/srv/agents/.uploads/6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b/1764244800000-notas.txt',
            size: 15,
          },
          {
            originalName: '.hidden name?.md',
            path: '/srv/agents/.uploads/6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b/1764244800001-hidden_name_.md',
            size: 10,
          },
        ],
      }),
      413: errorAnswer('Um arquivo é maior que AGENT_UPLOAD_MAX_FILE_BYTES (10 MB por padrão)'),
    },
  },
];
