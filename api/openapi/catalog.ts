import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../lib/paths';
import { agentsOperations } from '../orchestration/agents-operations';
import { executionControlOperations } from '../orchestration/execution-control-operations';
import { executionsOperations } from '../orchestration/executions-operations';
import { filesOperations } from '../orchestration/files-operations';
import { healthOperations } from '../orchestration/health-operations';
import { notificationsOperations } from '../orchestration/notifications-operations';
import { pipelinesOperations } from '../orchestration/pipelines-operations';
import { reportsOperations } from '../orchestration/reports-operations';
import { reposOperations } from '../orchestration/repos-operations';
import { schedulesOperations } from '../orchestration/schedules-operations';
import { settingsOperations } from '../orchestration/settings-operations';
import { statsOperations } from '../orchestration/stats-operations';
import { systemOperations } from '../orchestration/system-operations';
import { tasksOperations } from '../orchestration/tasks-operations';
import { uploadsOperations } from '../orchestration/uploads-operations';
import { webhooksOperations } from '../orchestration/webhooks-operations';
import { consultantOperations } from '../ranking/consultant-operations';
import { rankingHealthOperations } from '../ranking/health-operations';
import { rankingJobOperations } from '../ranking/job-operations';
import { pdfOperations } from '../ranking/pdf-operations';
import { rankingReadOperations } from '../ranking/ranking-operations';
import { suggestionOperations } from '../ranking/suggestion-operations';
import { webSocketOperations } from '../websocket-operations';
import { probeOperations } from '../probe-operations';
import { openApiDocument, type OpenApiDocument } from './document';
import { documentOperations } from './routes';
import type { OperationSpec } from './operation';

/** Every operation of each service, by the routes that serve them; the documents are built from these lists. */
export const ORCHESTRATION_OPERATIONS: readonly OperationSpec[] = [
  ...healthOperations,
  ...probeOperations,
  ...systemOperations,
  ...agentsOperations,
  ...executionControlOperations,
  ...executionsOperations,
  ...reportsOperations,
  ...notificationsOperations,
  ...settingsOperations,
  ...pipelinesOperations,
  ...tasksOperations,
  ...schedulesOperations,
  ...webhooksOperations,
  ...statsOperations,
  ...filesOperations,
  ...reposOperations,
  ...uploadsOperations,
  ...webSocketOperations,
  ...documentOperations('orchestration'),
];

export const RANKING_OPERATIONS: readonly OperationSpec[] = [
  ...rankingHealthOperations,
  ...rankingReadOperations,
  ...rankingJobOperations,
  ...consultantOperations,
  ...suggestionOperations,
  ...pdfOperations,
  ...documentOperations('ranking'),
];

/** The service's version, as package.json says it (`info.version`). */
const VERSION = (JSON.parse(fs.readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

let documents: { orchestration: OpenApiDocument; ranking: OpenApiDocument } | null = null;

/** Both documents, built once per process (at start: a schema that cannot be described stops the start). */
export function openApiDocuments(): { orchestration: OpenApiDocument; ranking: OpenApiDocument } {
  documents ??= {
    orchestration: openApiDocument(
      'orchestration',
      {
        title: 'Orquestração de agentes',
        version: VERSION,
        description:
          'The agent orchestration service: agents, runs, pipelines, schedules, webhooks, reports, settings (docs/openapi.md). ' +
          'Paths are full: /api/... and the public POST /hook/{token}. Live output is a WebSocket at / or /ws (docs/websocket.md).',
      },
      ORCHESTRATION_OPERATIONS,
    ),
    ranking: openApiDocument(
      'ranking',
      {
        title: 'Ranking de consultores',
        version: VERSION,
        description: 'The consultant ranking service under /api/v1 (docs/ranking-api.md, docs/openapi.md). Errors answer {"detail"}.',
      },
      RANKING_OPERATIONS,
    ),
  };
  return documents;
}
