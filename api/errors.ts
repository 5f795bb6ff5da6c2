import type { Middleware } from 'koa';
import type { Logger } from '../lib/logger';
import { isRankingPath } from './orchestration/security/paths';

/** An error meant for the client: its message (pt-BR, in either envelope) is sent as is, with its status. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly expose = true;
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * How every router answers a method its path does not take: 405. A method no route of the router
 * takes at all (TRACE, CONNECT, a made-up one) is a 405 as well, not the router's default 501, which
 * reads as a server failure to a client (and to schemathesis's not_a_server_error).
 */
export const ALLOWED_METHODS = {
  throw: true,
  notImplemented: () => new HttpError(405, 'Método não permitido'),
} as const;

/**
 * Invalid query, path or body. Its status depends on the service answering:
 * the ranking API answers 422, the orchestration API 400 (see docs/errors.md).
 */
export class RequestValidationError extends Error {
  override name = 'RequestValidationError';
  readonly expose = true;
}

type Envelope = 'detail' | 'error';

/** The ranking service (/api/v1) answers `{"detail"}`; everything else `{"error"}`, judged as the edge judges paths. */
export function envelopeFor(path: string): Envelope {
  return isRankingPath(path) ? 'detail' : 'error';
}

const VALIDATION_STATUS: Record<Envelope, number> = { detail: 422, error: 400 };
const NOT_FOUND = 'Não encontrado';
const INTERNAL_ERROR = 'Erro interno do servidor';

/**
 * Both envelopes speak pt-BR (docs/errors.md): the panel shows `{"error"}` to a person, and the ranking
 * specification's own messages are Portuguese (`Consultor não encontrado`). The generic texts that
 * libraries raise (the router's 405, a parser's 413) are given in Portuguese.
 */
const GENERIC_PT_BR: Record<string, string> = {
  'Method Not Allowed': 'Método não permitido',
  'Not Found': NOT_FOUND,
  'Bad Request': 'Requisição inválida',
  Unauthorized: 'Não autorizado',
  Forbidden: 'Acesso negado',
  'Payload Too Large': 'Corpo da requisição grande demais',
  'Unsupported Media Type': 'Tipo de conteúdo não suportado',
  'Too Many Requests': 'Muitas requisições',
  // raw-body's, under koa-bodyparser (the sign-in form's 8 KiB, a form or text body cut short).
  'request entity too large': 'Corpo da requisição grande demais',
  'request aborted': 'Requisição interrompida pelo cliente',
  'request size did not match content length': 'O tamanho do corpo não confere com o Content-Length',
};

interface ErrorLike {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
}

function statusOf(error: ErrorLike, envelope: Envelope): number {
  if (error instanceof RequestValidationError) return VALIDATION_STATUS[envelope];
  const status = Number(error.status ?? error.statusCode);
  return Number.isInteger(status) && status >= 400 && status <= 599 ? status : 500;
}

/**
 * The first middleware: turns every failure and every unmatched route into the envelope of
 * the service that owns the path. Messages of unexpected errors stay in the log, never in the answer.
 */
export function errorEnvelope(logger: Logger): Middleware {
  return async (ctx, next) => {
    const envelope = envelopeFor(ctx.path);
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        ctx.status = 404;
        ctx.body = { [envelope]: NOT_FOUND };
      }
    } catch (caught) {
      const error = (typeof caught === 'object' && caught !== null ? caught : { message: String(caught) }) as ErrorLike;
      const status = statusOf(error, envelope);
      const exposed = status < 500 || error.expose === true;
      const message = exposed && typeof error.message === 'string' ? messageFor(caught, error.message) : INTERNAL_ERROR;
      if (status >= 500) logger.error({ err: caught, method: ctx.method, path: ctx.path }, 'request failed');
      ctx.status = status;
      ctx.body = { [envelope]: message };
    }
  };
}

/** The exposed message in pt-BR (see GENERIC_PT_BR); the code's own messages are sent as they are. */
function messageFor(caught: unknown, message: string): string {
  if (caught instanceof HttpError || caught instanceof RequestValidationError) return message;
  return GENERIC_PT_BR[message] ?? message;
}
