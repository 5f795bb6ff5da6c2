/**
 * The failures a use case reports to its caller (docs/application-layer.md). They say what went wrong in
 * the caller's terms, never in HTTP's: the routes map them to statuses (api/use-case-errors.ts), an
 * activity to a Temporal failure. Their messages are meant for the client and are sent as they are.
 */
export type UseCaseErrorKind = 'not_found' | 'conflict' | 'invalid' | 'unavailable';

export abstract class UseCaseError extends Error {
  abstract readonly kind: UseCaseErrorKind;
}

/** What the call names does not exist (an agent, an execution, a session). */
export class NotFoundError extends UseCaseError {
  override name = 'NotFoundError';
  readonly kind = 'not_found';
}

/** The call is valid but the state forbids it now (an execution still active, already finished). */
export class ConflictError extends UseCaseError {
  override name = 'ConflictError';
  readonly kind = 'conflict';
}

/** The input itself is refused (a working directory outside the roots, an unsupported option). */
export class InvalidInputError extends UseCaseError {
  override name = 'InvalidInputError';
  readonly kind = 'invalid';
}

/** A dependency the use case needs is down (the workflow engine); trying again later may work. */
export class UnavailableError extends UseCaseError {
  override name = 'UnavailableError';
  readonly kind = 'unavailable';
}

/** The one text of an agent that does not exist, wherever a use case looks one up. */
export const agentNotFound = (id: string): NotFoundError => new NotFoundError(`Agente não encontrado: ${id}`);

/** The one text of an execution record that does not exist. */
export const executionNotFound = (id: string): NotFoundError => new NotFoundError(`Execução não encontrada: ${id}`);

/**
 * lib/secret-box.ts's SecretsKeyMissingError in the client's words (the catalogue's, pt-BR,
 * docs/errors.md): its own message stays in the logs; a run's record ends with the catalogue's too.
 */
export { SECRETS_KEY_MISSING_MESSAGE } from '../domain/run-messages';
