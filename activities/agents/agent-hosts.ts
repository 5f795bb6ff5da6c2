import { ApplicationFailure } from '@temporalio/activity';
import type { AgentHostEntry } from '../../domain/agent-hosts';
import { FAILURE_TYPES } from '../../domain/failure-types';

/** What the activities say about agents hosts (docs/multi-host.md). */

/** Why a run has no host: what each registered host holds and whether it is alive. */
export function noHostMessage(workingDirectory: string, hosts: readonly AgentHostEntry[]): string {
  const known =
    hosts.length === 0
      ? 'no agents host is registered'
      : `agents hosts: ${hosts.map((host) => `${host.name} (${host.live ? (host.draining ? 'live, draining' : 'live') : 'not seen for over a minute'}: ${host.roots.join(', ')})`).join('; ')}`;
  return `no live agents host holds the working directory ${workingDirectory} (${known})`;
}

/**
 * A disk-bound activity on a host other than the one its record is pinned to: it would work in a
 * directory that is not there (or not the same). Never retried here: the workflow sends it to its host.
 */
export function refuseOtherHost(pinned: string | null, here: string, what: string): void {
  if (pinned !== null && pinned !== here) {
    throw ApplicationFailure.nonRetryable(`${what} is pinned to the agents host ${pinned}, not ${here}`, FAILURE_TYPES.wrongAgentHost);
  }
}
