import { z } from 'zod';
import { reportListSchema, reportSchema } from '../../services/reports';
import { errorAnswer, idParam, jsonAnswer, type OperationSpec } from '../openapi/operation';

/** The operations of api/orchestration/reports-routes.ts as the OpenAPI document describes them (docs/reports-notifications-settings.md). */
const tags = ['Relatórios'];
const reportPath = z.object({
  filename: idParam.meta({
    description: 'The report file name, AAAA-MM-DD_HHMMSS_<slug-do-agente>_<8 hex>.md; anything else is refused (400)',
  }),
});
const filename = '2026-03-04_050607_revisor-de-codigo_0f1e2d3c.md';
const notFound = errorAnswer('Relatório não encontrado');

export const reportsOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/reports',
    operationId: 'listReports',
    summary: 'Lista os nomes dos relatórios, os mais novos primeiro (no máximo 100)',
    tags,
    responses: { 200: jsonAnswer('Os nomes dos arquivos', reportListSchema, ['2026-03-05_000000_doc-writer_99999999.md', filename]) },
  },
  {
    method: 'get',
    path: '/api/reports/{filename}',
    operationId: 'getReport',
    summary: 'Lê um relatório em Markdown',
    tags,
    pathParams: reportPath,
    responses: {
      200: jsonAnswer('O relatório', reportSchema, {
        filename,
        content: '# Execução de agente: Revisor de Código\n\n| Status | completed |\n',
      }),
      404: notFound,
    },
  },
  {
    method: 'delete',
    path: '/api/reports/{filename}',
    operationId: 'deleteReport',
    summary: 'Exclui um relatório da área de dados',
    description: 'A cópia no diretório externo de relatórios (AGENT_REPORTS_DIR) fica.',
    tags,
    pathParams: reportPath,
    responses: {
      200: jsonAnswer('Excluído', z.object({ success: z.literal(true) }), { success: true }),
      404: notFound,
    },
  },
];
