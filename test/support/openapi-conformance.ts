import { gunzipSync } from 'node:zlib';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { Middleware } from 'koa';
import { openApiDocuments } from '../../api/openapi/catalog';
import type { OpenApiDocument } from '../../api/openapi/document';

/**
 * Every answer the test servers give is checked against the operation's description in the OpenAPI
 * documents (docs/openapi.md): its status must be described, its content type too, and a JSON body
 * must match the response schema (ajv's draft 2020-12 build, OpenAPI 3.1's dialect). A mismatch is
 * recorded here and fails the test that produced it (test/openapi-setup.ts), so an answer that drifts
 * from its description fails the suite that saw it.
 */

interface Template {
  method: string;
  regex: RegExp;
  params: number;
  path: string;
  document: 'orchestration' | 'ranking';
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const violations: string[] = [];

/** The violations recorded since the last call, cleared. */
export function takeConformanceViolations(): string[] {
  return violations.splice(0, violations.length);
}

let checker: { templates: Template[]; ajv: Ajv2020; documents: Record<string, OpenApiDocument> } | null = null;

function checkerOf() {
  if (checker !== null) return checker;
  const documents = openApiDocuments();
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const templates: Template[] = [];
  for (const [name, document] of Object.entries(documents) as Array<['orchestration' | 'ranking', OpenApiDocument]>) {
    ajv.addSchema({ ...document, $id: `${name}.json` });
    for (const [path, item] of Object.entries(document.paths)) {
      const pattern = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+');
      for (const method of Object.keys(item).filter((key) => METHODS.includes(key))) {
        templates.push({ method, regex: new RegExp(`^${pattern}/?$`), params: (path.match(/\{/g) ?? []).length, path, document: name });
      }
    }
  }
  // A literal segment wins over a parameter (`/api/executions/active` before `/api/executions/{id}`).
  templates.sort((a, b) => a.params - b.params);
  checker = { templates, ajv, documents };
  return checker;
}

const validators = new Map<string, ValidateFunction>();

/**
 * The validator of the schema at `parts` (JSON Pointer segments, unescaped) in `service`'s document,
 * compiled once: `schemaValidator('orchestration', 'paths', '/api/tasks', 'get', ...)`.
 */
export function schemaValidator(service: 'orchestration' | 'ranking', ...parts: string[]): ValidateFunction {
  const ref = `${service}.json#/${parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
  let validate = validators.get(ref);
  if (validate === undefined) {
    validate = checkerOf().ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

/** The body as JSON, whatever form the route wrote it in; undefined when it cannot be read here (a stream). */
function jsonBody(body: unknown, encoding: string | undefined): { value: unknown } | undefined {
  if (body === null || body === undefined) return { value: undefined };
  if (Buffer.isBuffer(body)) {
    const bytes = encoding === 'gzip' ? gunzipSync(body) : body;
    return { value: JSON.parse(bytes.toString('utf8')) };
  }
  if (typeof body === 'string') return { value: JSON.parse(body) };
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return undefined;
  return { value: JSON.parse(JSON.stringify(body)) };
}

/** Koa middleware, first in the chain, so it sees the answer the client gets (error envelopes included). */
export function openApiConformance(): Middleware {
  return async (ctx, next) => {
    await next();
    const method = ctx.method.toLowerCase();
    if (!METHODS.includes(method)) return;
    const { templates, documents } = checkerOf();
    const template = templates.find((candidate) => candidate.method === method && candidate.regex.test(ctx.path));
    // Not an operation (the panel's files, /sites, an unknown path, a method a path does not take): nothing described to check.
    if (template === undefined || (ctx.status === 404 && ctx.body == null)) return;
    const where = `${ctx.method} ${ctx.path} → ${ctx.status}`;
    const operation = documents[template.document]!.paths[template.path]![method]!;
    const status = String(ctx.status);
    const response = (operation.responses[status] ?? operation.responses.default) as
      { content?: Record<string, { schema?: unknown }> } | undefined;
    if (response === undefined) {
      violations.push(`${where}: status ${status} is not described for ${operation.operationId}`);
      return;
    }
    const contentType = (ctx.response.type || '').toLowerCase();
    const hasBody = ctx.body !== null && ctx.body !== undefined && ctx.status !== 204;
    if (!hasBody) {
      if (response.content !== undefined && ctx.method !== 'HEAD')
        violations.push(`${where}: no body, but ${operation.operationId} describes one`);
      return;
    }
    if (response.content === undefined) {
      violations.push(`${where}: a body of ${contentType}, but ${operation.operationId} describes none`);
      return;
    }
    const media = Object.keys(response.content).find((type) => contentType === type.toLowerCase());
    if (media === undefined) {
      violations.push(
        `${where}: content type ${contentType} is not among ${Object.keys(response.content).join(', ')} of ${operation.operationId}`,
      );
      return;
    }
    if (media !== 'application/json') return;
    let parsed: { value: unknown } | undefined;
    try {
      parsed = jsonBody(ctx.body, ctx.response.get('Content-Encoding') || undefined);
    } catch (error) {
      violations.push(`${where}: the JSON body cannot be read: ${(error as Error).message}`);
      return;
    }
    if (parsed === undefined) return;
    const validate = schemaValidator(
      template.document,
      'paths',
      template.path,
      method,
      'responses',
      response === operation.responses[status] ? status : 'default',
      'content',
      media,
      'schema',
    );
    if (!validate(parsed.value)) {
      const problems = (validate.errors ?? [])
        .slice(0, 5)
        .map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`);
      violations.push(`${where}: the body does not match ${operation.operationId}'s ${status} schema: ${problems.join('; ')}`);
    }
  };
}
