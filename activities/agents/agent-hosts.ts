import { ApplicationFailure } from '@temporalio/activity';
import { FAILURE_TYPES } from '../../domain/failure-types';

/** What the activities say about agents hosts (docs/multi-host.md). */

/**
 * A disk-bound activity on a host other than the one its record is pinned to: it would work in a
 * directory that is not there (or not the same). Never retried here: the workflow sends it to its host.
 */
export function refuseOtherHost(pinned: string | null, here: string, what: string): void {
  if (pinned !== null && pinned !== here) {
    throw ApplicationFailure.nonRetryable(`${what} is pinned to the agents host ${pinned}, not ${here}`, FAILURE_TYPES.wrongAgentHost);
  }
}
