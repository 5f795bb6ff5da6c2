import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import { z } from 'zod';
import type { Middleware } from 'koa';
import { repoRoot } from '../../lib/paths';
import type { ServiceName } from './document';
import type { OperationSpec } from './operation';

/**
 * Each service's OpenAPI document and reference page, under the service's own prefix, so they ask
 * for what the routes they describe ask for (docs/openapi.md): the token under /api, nothing under
 * /api/v1. The page's assets (Swagger UI, served from node_modules) are public, at /docs-assets/.
 */
const PREFIX: Record<ServiceName, string> = { orchestration: '/api', ranking: '/api/v1' };
const TITLE: Record<ServiceName, string> = { orchestration: 'Orquestração de agentes: API', ranking: 'Ranking de consultores: API' };

/** The routes of `service`'s document and page, on a router mounted at its prefix. */
export function documentRoutes(router: Router, service: ServiceName, document: () => unknown): void {
  router.get('/openapi.json', (ctx) => {
    ctx.body = document();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = referencePage(service);
  });
}

/** What documentRoutes serves, described in the document itself. */
export function documentOperations(service: ServiceName): OperationSpec[] {
  const prefix = PREFIX[service];
  const tags = ['Documentação'];
  return [
    {
      method: 'get',
      path: `${prefix}/openapi.json`,
      operationId: service === 'ranking' ? 'getRankingOpenApi' : 'getOrchestrationOpenApi',
      summary: 'Este documento OpenAPI 3.1',
      tags,
      responses: { 200: { description: 'O documento', schema: z.record(z.string(), z.unknown()) } },
    },
    {
      method: 'get',
      path: `${prefix}/docs`,
      operationId: service === 'ranking' ? 'getRankingReference' : 'getOrchestrationReference',
      summary: 'A página de referência deste documento (Swagger UI)',
      tags,
      responses: { 200: { description: 'A página', contentType: 'text/html' } },
    },
  ];
}

function referencePage(service: ServiceName): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<title>${TITLE[service]}</title>
<link rel="icon" type="image/png" href="/docs-assets/favicon-32x32.png">
<link rel="stylesheet" href="/docs-assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-url="${PREFIX[service]}/openapi.json"></div>
<script src="/docs-assets/swagger-ui-bundle.js"></script>
<script src="/docs-assets/openapi-page.js"></script>
</body>
</html>
`;
}

const SWAGGER_UI = path.join(repoRoot, 'node_modules', 'swagger-ui-dist');
/** The only files /docs-assets/ serves, by name. */
const ASSETS: Record<string, { file: string; type: string }> = {
  'favicon-32x32.png': { file: path.join(SWAGGER_UI, 'favicon-32x32.png'), type: 'image/png' },
  'swagger-ui.css': { file: path.join(SWAGGER_UI, 'swagger-ui.css'), type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: path.join(SWAGGER_UI, 'swagger-ui-bundle.js'), type: 'application/javascript; charset=utf-8' },
  'openapi-page.js': {
    file: path.join(repoRoot, 'api', 'openapi', 'page', 'openapi-page.js'),
    type: 'application/javascript; charset=utf-8',
  },
};
const ASSETS_PREFIX = '/docs-assets/';

/** GET /docs-assets/<name> for the reference pages' files; any other name falls through (404). */
export function referenceAssets(): Middleware {
  return async (ctx, next) => {
    if (!ctx.path.startsWith(ASSETS_PREFIX) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const asset = Object.hasOwn(ASSETS, ctx.path.slice(ASSETS_PREFIX.length)) ? ASSETS[ctx.path.slice(ASSETS_PREFIX.length)] : undefined;
    if (asset === undefined) return next();
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = fs.createReadStream(asset.file);
  };
}
