import { z } from 'zod';

/**
 * One HTTP operation as the OpenAPI documents describe it (docs/openapi.md): the zod schemas its
 * route validates the request with, and the schemas of its answers. The documents are built from
 * these at start (api/openapi/document.ts), so a description cannot drift from the validation; a
 * test walks the routers to keep every route described and every description routed.
 */
export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** An answer: JSON by default; `schema` absent for a body-less answer. */
export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** `application/json` unless said otherwise (`text/csv`, `application/pdf`, `text/html`...). */
  contentType?: string;
  /** Headers the answer carries, by name. */
  headers?: Record<string, { description: string; schema: z.ZodType }>;
  example?: unknown;
}

export interface BodySpec {
  schema: z.ZodType;
  /** `application/json` unless said otherwise (`multipart/form-data`). */
  contentType?: string;
  /** False when the route takes a request without a body (the panel sends some POSTs body-less). */
  required?: boolean;
  example?: unknown;
}

export interface OperationSpec {
  method: HttpMethod;
  /** The full path, OpenAPI style: `/api/agents/{id}/execute`. */
  path: string;
  /** Stable: clients generated from the document name their functions after it. */
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  /** The route reads an empty query value (`?status=`) as the parameter's absence (withoutEmptyValues): `allowEmptyValue`. */
  emptyQueryValuesIgnored?: boolean;
  headers?: z.ZodObject;
  body?: BodySpec;
  /** By status code. The edge's answers every operation of the service can give (401, 429, ...) are added by the document. */
  responses: Record<number, ResponseSpec>;
  /** True: no token asked (the public webhook call). */
  public?: boolean;
  /** Answered before the edge (the probes): no Host check, token or rate limit, so none of their answers is added. */
  beforeEdge?: boolean;
  /** A WebSocket's handshake: served by the WebSocket handler, not a router (`x-websocket` in the document; not fuzzed). */
  webSocket?: boolean;
}

/** The `{error}` envelope of the orchestration API (and of /hook, /sign-in): pt-BR text for a person. */
export const errorEnvelope = z.object({ error: z.string() }).meta({ id: 'Error' });
/** The `{detail}` envelope of the ranking API. */
export const detailEnvelope = z.object({ detail: z.string() }).meta({ id: 'Detail' });

/** An `{error}` answer with this description. */
export function errorAnswer(description: string): ResponseSpec {
  return { description, schema: errorEnvelope };
}

/** A `{detail}` answer with this description. */
export function detailAnswer(description: string): ResponseSpec {
  return { description, schema: detailEnvelope };
}

/** A JSON answer. */
export function jsonAnswer(description: string, schema: z.ZodType, example?: unknown): ResponseSpec {
  return example === undefined ? { description, schema } : { description, schema, example };
}

/** A path parameter that is any non-empty text (ids are checked by the use case: 404 when unknown). */
export const idParam = z.string().min(1);
