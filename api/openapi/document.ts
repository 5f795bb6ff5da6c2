import { z } from 'zod';
import { SESSION_COOKIE } from '../orchestration/security/session';
import { detailEnvelope, errorEnvelope, type OperationSpec, type ResponseSpec } from './operation';

/**
 * The OpenAPI 3.1 document of a service, built from its operations' zod schemas (zod's own JSON
 * Schema output, draft 2020-12, which is OpenAPI 3.1's dialect): requests as the routes read them
 * (`io: 'input'`), answers as they are written (`io: 'output'`). The edge's answers that any
 * operation can give (token, rate limit, a dependency down) are added here, once. docs/openapi.md.
 */
export type ServiceName = 'ranking' | 'orchestration';

export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
}

type JsonSchema = Record<string, unknown>;
export type OpenApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, OperationObject>> };
interface OperationObject {
  operationId: string;
  responses: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * The JSON Schemas of one document. Schemas with an id (`.meta({ id })`) become
 * `components/schemas` entries, referred to wherever they appear, so a generated client names them;
 * a request's form of a schema that reads otherwise than its answer's (defaults make fields optional)
 * gets the suffix `Input`.
 */
class SchemaCollector {
  readonly components: Record<string, JsonSchema> = {};

  of(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const {
      $schema: _dialect,
      $defs,
      ...rest
    } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as JsonSchema & {
      $defs?: Record<string, JsonSchema>;
    };
    const names = new Map<string, string>();
    for (const [id, definition] of Object.entries($defs ?? {})) names.set(id, this.place(id, definition, io));
    const rewritten = rewriteRefs(rest, names) as JsonSchema;
    for (const id of names.keys()) {
      const name = names.get(id)!;
      this.components[name] = rewriteRefs(this.components[name], names) as JsonSchema;
    }
    return rewritten;
  }

  /** The component's name for the definition `id`: its id, or `<id>Input` for a request's form that differs. */
  private place(id: string, definition: JsonSchema, io: 'input' | 'output'): string {
    const candidates = io === 'output' ? [id, `${id}Output`] : [id, `${id}Input`];
    for (const name of candidates) {
      const existing = this.components[name];
      if (existing === undefined) {
        this.components[name] = definition;
        return name;
      }
      if (
        JSON.stringify(existing) === JSON.stringify(definition) ||
        JSON.stringify(rewriteRefs(definition, new Map([[id, name]]))) === JSON.stringify(existing)
      )
        return name;
    }
    throw new Error(`schema id ${id} names two different schemas`);
  }
}

/** `#/$defs/<id>` references as `#/components/schemas/<name>`. */
function rewriteRefs(value: unknown, names: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, names));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/$defs/')) {
        const id = item.slice('#/$defs/'.length);
        return [key, `#/components/schemas/${names.get(id) ?? id}`];
      }
      return [key, rewriteRefs(item, names)];
    }),
  );
}

const TOKEN_SECURITY = [{ bearerToken: [] }, { panelSession: [] }];

/** The answers of the edge, by service: every operation may give them whatever its route does. */
function edgeResponses(service: ServiceName, operation: OperationSpec): Record<number, ResponseSpec> {
  if (operation.beforeEdge) return {};
  const envelope = service === 'ranking' ? detailEnvelope : errorEnvelope;
  const answer = (description: string): ResponseSpec => ({ description, schema: envelope });
  const hasInput = operation.pathParams !== undefined || operation.query !== undefined || operation.body !== undefined;
  const responses: Record<number, ResponseSpec> = {
    // ALLOWED_HOSTS, and a write from another site's page (docs/orchestration-security.md).
    403: answer('Host não permitido (ALLOWED_HOSTS), ou escrita vinda de outro site'),
    503: answer('Uma dependência (MariaDB, Redis, Temporal, Elasticsearch) está indisponível'),
  };
  if (service === 'orchestration') {
    if (hasInput) responses[400] = answer('Entrada inválida: cada campo recusado é nomeado');
    if (!operation.public) {
      responses[401] = answer('Token ausente ou inválido (quando AUTH_TOKEN está definido)');
      responses[429] = { ...answer('Muitas requisições (RATE_LIMIT_REQUESTS por RATE_LIMIT_WINDOW_SECONDS)'), headers: RETRY_AFTER };
    }
  } else {
    if (hasInput) responses[422] = answer('Invalid input: each refused field is named');
    // The body parser's refusal, before the route's validation (docs/errors.md).
    if (operation.body !== undefined) responses[400] = answer('Invalid JSON body (not JSON, or not an object or array)');
  }
  if (operation.body !== undefined && (operation.body.contentType ?? 'application/json') === 'application/json') {
    responses[413] = answer('O corpo JSON é maior que 1 MB');
    if (service === 'orchestration') responses[400] = answer('Entrada inválida (JSON malformado, ou um campo recusado)');
  }
  return responses;
}

const RETRY_AFTER = { 'Retry-After': { description: 'Segundos até poder tentar de novo', schema: z.string() } };

function responseObject(schemas: SchemaCollector, response: ResponseSpec): Record<string, unknown> {
  const object: Record<string, unknown> = { description: response.description };
  if (response.headers) {
    object.headers = Object.fromEntries(
      Object.entries(response.headers).map(([name, header]) => [
        name,
        { description: header.description, schema: schemas.of(header.schema, 'output') },
      ]),
    );
  }
  if (response.schema !== undefined || response.contentType !== undefined) {
    const media: Record<string, unknown> = {
      schema: response.schema === undefined ? { type: 'string' } : schemas.of(response.schema, 'output'),
    };
    if (response.example !== undefined) media.example = response.example;
    object.content = { [response.contentType ?? 'application/json']: media };
  }
  return object;
}

function parametersOf(schemas: SchemaCollector, operation: OperationSpec): JsonSchema[] {
  const parameters: JsonSchema[] = [];
  const add = (where: 'path' | 'query' | 'header', object: z.ZodObject | undefined) => {
    if (object === undefined) return;
    const schema = schemas.of(object, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    const emptyIgnored = where === 'query' && operation.emptyQueryValuesIgnored === true;
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      const { description, ...rest } = property as JsonSchema & { description?: string };
      const required = where === 'path' || (schema.required ?? []).includes(name);
      parameters.push({
        name,
        in: where,
        required,
        ...(description ? { description } : {}),
        ...(emptyIgnored && !required ? { allowEmptyValue: true } : {}),
        schema: rest,
      });
    }
  };
  add('path', operation.pathParams);
  add('query', operation.query);
  add('header', operation.headers);
  return parameters;
}

function operationObject(schemas: SchemaCollector, service: ServiceName, operation: OperationSpec): OperationObject {
  const responses = { ...edgeResponses(service, operation), ...operation.responses };
  const object: OperationObject = {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: operation.tags,
    responses: Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, responseObject(schemas, response)])),
  };
  const parameters = parametersOf(schemas, operation);
  if (parameters.length > 0) object.parameters = parameters;
  if (operation.body !== undefined) {
    const media: Record<string, unknown> = { schema: schemas.of(operation.body.schema, 'input') };
    if (operation.body.example !== undefined) media.example = operation.body.example;
    object.requestBody = {
      required: operation.body.required ?? true,
      content: { [operation.body.contentType ?? 'application/json']: media },
    };
  }
  // Said on every operation, so linters and generated clients know: the orchestration's token or panel
  // session, but for its public operations; none for the ranking service, whose operations are public by
  // decision (docs/openapi.md). `security: []` is "no security", an absent one would be "not said".
  object.security = service === 'orchestration' && !operation.public ? TOKEN_SECURITY : [];
  if (operation.webSocket) object['x-websocket'] = true;
  return object;
}

/** The document of `service` with these operations; paths are full (`servers` is `/`). */
export function openApiDocument(service: ServiceName, info: DocumentInfo, operations: readonly OperationSpec[]): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const schemas = new SchemaCollector();
  const seen = new Set<string>();
  for (const operation of operations) {
    if (seen.has(operation.operationId)) throw new Error(`operationId ${operation.operationId} described twice`);
    seen.add(operation.operationId);
    const item = (paths[operation.path] ??= {});
    if (item[operation.method] !== undefined) throw new Error(`${operation.method.toUpperCase()} ${operation.path} described twice`);
    item[operation.method] = operationObject(schemas, service, operation);
  }
  const document: OpenApiDocument = {
    openapi: '3.1.1',
    info,
    servers: [{ url: '/' }],
    paths,
  };
  const components: Record<string, unknown> = { schemas: schemas.components };
  if (service === 'orchestration') {
    components.securitySchemes = {
      bearerToken: { type: 'http', scheme: 'bearer', description: 'AUTH_TOKEN, when it is set (docs/orchestration-security.md)' },
      panelSession: {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description: "The admin panel's sign-in session (POST /sign-in), when AUTH_TOKEN and the panel are set",
      },
    };
  }
  document.components = components;
  return document;
}
