import type { Middleware } from 'koa';
import type Router from '@koa/router';
import type { ApiResources } from './resources';
import {
  DELIVERY_TAKEOVER_AFTER_MS,
  DeliveryInProgressError,
  SIGNATURE_HEADER,
  triggerWebhook,
  WebhookInactiveError,
  WebhookSignatureError,
} from '../services/webhooks';
import { HttpError, RequestValidationError } from './errors';
import { canonicalPath } from './orchestration/security/paths';
import { orchestrationRouter } from './orchestration/router';
import { httpErrorOf } from './use-case-errors';
import { webhookDepsOf } from './use-case-deps';

/**
 * The public call of a webhook, POST /hook/:token (contract "External trigger"; docs/webhooks.md):
 * outside /api, so without the API token (the token in the path is the credential), behind the same
 * Host and cross-site checks and its own rate limit (api/app.ts). It runs before the JSON body parser:
 * the signature signs the body's bytes as sent, so they are read here.
 */

/** Largest body read (the API's JSON limit). */
export const HOOK_BODY_LIMIT_BYTES = 1024 * 1024;
const TOKEN = /^[0-9a-f]{48}$/;
const DELIVERY_ID_MAX = 200;
const DELIVERY_HEADERS = ['x-github-delivery', 'x-webhook-delivery'];

/** Whether a path is under /hook, however spelled (the rate limit decides on the canonical form, as the API's does). */
export function isHookPath(rawPath: string): boolean {
  const canonical = canonicalPath(rawPath);
  return canonical === '/hook' || canonical.startsWith('/hook/');
}

export function onHookPaths(middleware: Middleware): Middleware {
  return (ctx, next) => (isHookPath(ctx.path) ? middleware(ctx, next) : next());
}

/** The body's bytes, at most `limit` of them (413 beyond, before reading when Content-Length says so). */
async function rawBodyOf(
  request: NodeJS.ReadableStream & { headers: Record<string, string | string[] | undefined> },
  limit: number,
): Promise<Buffer> {
  const tooLarge = () => new HttpError(413, `O corpo é maior que ${limit} bytes`);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    if (size > limit) throw tooLarge();
    chunks.push(bytes);
  }
  return Buffer.concat(chunks);
}

function deliveryIdOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  for (const name of DELIVERY_HEADERS) {
    const value = headers[name];
    if (typeof value !== 'string' || value.trim() === '') continue;
    if (value.length > DELIVERY_ID_MAX) throw new RequestValidationError(`${name}: No máximo ${DELIVERY_ID_MAX} caracteres`);
    return value.trim();
  }
  return undefined;
}

/** The webhook failures as HTTP errors: signature 401, switched off 403, a delivery in progress 503 with Retry-After, the use cases' as everywhere. */
const hookErrors: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (error instanceof WebhookSignatureError) throw new HttpError(401, error.message);
    if (error instanceof WebhookInactiveError) throw new HttpError(403, error.message);
    if (error instanceof DeliveryInProgressError) ctx.set('Retry-After', String(DELIVERY_TAKEOVER_AFTER_MS / 1000));
    throw httpErrorOf(error);
  }
};

export function hookRoutes(resources: ApiResources): Router {
  const deps = webhookDepsOf(resources);
  const router = orchestrationRouter('/hook');
  router.use(hookErrors);

  /** 202 `{executionId, status: 'started', webhook}`; a delivery id seen before: 202 `{executionId of the first, status: 'duplicate', webhook}`. */
  router.post('/:token', async (ctx) => {
    const token = ctx.params.token ?? '';
    // Not a token's form: unknown, without reading anything.
    if (!TOKEN.test(token)) throw new HttpError(404, 'Webhook não encontrado');
    const rawBody = await rawBodyOf(ctx.req, HOOK_BODY_LIMIT_BYTES);
    const signature = ctx.get(SIGNATURE_HEADER) || undefined;
    const answer = await triggerWebhook(deps, {
      token,
      rawBody,
      signature,
      deliveryId: deliveryIdOf(ctx.headers),
      caller: ctx.ip.slice(0, 100),
    });
    ctx.status = 202;
    ctx.body = answer;
  });

  return router;
}
