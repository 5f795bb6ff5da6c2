import { AgentDelegateInvalidError, AgentLimitReachedError, AgentNameTakenError, AgentVersionNotFoundError } from '../../db/agents-store';
import { SecretsKeyMissingError } from '../../lib/secret-box';
import { ConflictError, InvalidInputError, NotFoundError, SECRETS_KEY_MISSING_MESSAGE, UnavailableError } from '../errors';

/**
 * The store's refusals as use-case errors: name taken or agents at their bound conflict, no such
 * version is not found, a delegate that is no other agent is invalid input, no key is unavailable.
 */
export async function storeErrorsTranslated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AgentNameTakenError || error instanceof AgentLimitReachedError) throw new ConflictError(error.message);
    if (error instanceof AgentVersionNotFoundError) throw new NotFoundError(error.message);
    if (error instanceof AgentDelegateInvalidError) throw new InvalidInputError(error.message);
    if (error instanceof SecretsKeyMissingError) throw new UnavailableError(SECRETS_KEY_MISSING_MESSAGE);
    throw error;
  }
}
