import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { config } from './config';

/**
 * Who the coding agents run as (docs/agent-process.md, "Users"). A service running as root runs
 * each agent as one user of a pool of unprivileged users (scripts/stack/agent-users.sh creates
 * them; the names must match), one user per concurrent run. A service that is not root cannot
 * switch users: its agents run as itself, and it says so. Root without the pool runs no agent:
 * an agent never runs as root.
 */

export const AGENT_GROUP = 'agents';
export const AGENT_USER_PREFIX = 'agentrun';
/** util-linux's setpriv switches the user (and sets the parent-death signal): Debian marks util-linux Essential. */
export const SETPRIV = '/usr/bin/setpriv';

export interface AgentUser {
  name: string;
  uid: number;
  gid: number;
  home: string;
}

export type AgentIsolation =
  /** Each run leases a user of `users` (all of group `gid`). */
  | { mode: 'user-pool'; reason: string; users: AgentUser[]; gid: number }
  /** The service is not root: agents run as the service's own user. */
  | { mode: 'service-user'; reason: string }
  /** The service is root but has no pool (or no setpriv): agents are not run at all. */
  | { mode: 'refused'; reason: string };

/** passwd lines (name:x:uid:gid:gecos:home:shell) of the names that exist. */
function getent(database: 'passwd' | 'group', names: string[]): string[] {
  // Exit 2 when some key is missing; the lines of those found are printed all the same.
  const result = spawnSync('getent', [database, ...names], { encoding: 'utf8' });
  return (result.stdout ?? '').split('\n').filter((line) => line.trim() !== '');
}

/** Whether this process may execute `file` (setpriv's presence). */
export function executable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What this process would do with agents, looked up now: its uid, the group, the pool's users. */
export function detectAgentIsolation(poolSize: number, uid: number = process.getuid?.() ?? -1): AgentIsolation {
  if (uid !== 0) {
    return {
      mode: 'service-user',
      reason: `o serviço roda com o uid ${uid}, não como root, então não pode trocar de usuário: os agentes rodam como o próprio usuário do serviço e podem ler o que ele lê`,
    };
  }
  const setup = `execute scripts/stack/agent-users.sh (usuários ${AGENT_USER_PREFIX}1..${poolSize} do grupo ${AGENT_GROUP}); um agente nunca roda como root`;
  if (!executable(SETPRIV))
    return { mode: 'refused', reason: `${SETPRIV} não foi encontrado: os agentes não podem ser iniciados como outro usuário` };
  const group = getent('group', [AGENT_GROUP])[0];
  if (group === undefined) return { mode: 'refused', reason: `o grupo ${AGENT_GROUP} não existe: ${setup}` };
  const gid = Number(group.split(':')[2]);
  const names = Array.from({ length: poolSize }, (_, index) => `${AGENT_USER_PREFIX}${index + 1}`);
  const users = getent('passwd', names)
    .map((line) => line.split(':'))
    .map(([name, , userId, groupId, , home]) => ({ name: name ?? '', uid: Number(userId), gid: Number(groupId), home: home ?? '' }))
    // A user of another group, or with uid 0, is not one of ours.
    .filter((user) => user.gid === gid && user.uid > 0 && user.home.startsWith('/'));
  if (users.length === 0) return { mode: 'refused', reason: `não existe nenhum usuário de agentes: ${setup}` };
  const missing = users.length < poolSize ? `; só existem ${users.length} dos ${poolSize} usuários: ${setup}` : '';
  return {
    mode: 'user-pool',
    reason: `cada execução reserva um dos ${users.length} usuários sem privilégios ${AGENT_USER_PREFIX}N (grupo ${AGENT_GROUP}), um por execução simultânea${missing}`,
    users,
    gid,
  };
}

let membership: number | null | undefined;

/**
 * The pool's group id when this process is not root but is a member of that group, null otherwise:
 * the image's API (uid 10001, also in `agents`, docs/image.md) while the agents run as the pool's users
 * in another container. What it hands the agents (uploads) then goes to that group. Looked up once.
 */
export function agentGroupMembership(): number | null {
  if (membership === undefined) {
    const group = getent('group', [AGENT_GROUP])[0];
    const gid = group === undefined ? Number.NaN : Number(group.split(':')[2]);
    membership = process.getuid?.() !== 0 && (process.getgroups?.() ?? []).includes(gid) ? gid : null;
  }
  return membership;
}

let current: AgentIsolation | undefined;

/** The isolation of this process with the configured pool, looked up once (again while refused: the pool may be created meanwhile). */
export function agentIsolation(): AgentIsolation {
  if (current === undefined || current.mode === 'refused') current = detectAgentIsolation(config.orchestration.agentUsers);
  return current;
}

/** `{mode, reason}`, as GET /api/system/info shows it. */
export function agentIsolationSummary(isolation: AgentIsolation = agentIsolation()): { mode: AgentIsolation['mode']; reason: string } {
  return { mode: isolation.mode, reason: isolation.reason };
}
