import fs from 'node:fs/promises';
import { agentIsolation, AGENT_GROUP, type AgentIsolation } from '../../lib/agent-isolation';
import { reportsDirectory } from '../../db/reports-store';
import type { Config } from '../../lib/config';
import type { Logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { refusedRootReason } from '../../lib/workdir-roots';

/**
 * What the agents worker makes sure of when it starts (docs/agent-process.md): it says who the
 * agents will run as; the service's data area is closed to everyone else (0700); each allowed
 * root of working directories exists, and with the pool it belongs to root and the pool's group
 * with mode 2770 (setgid: what the agents create there stays in the group, so the next run's user
 * can work on it; no access for anybody else). A data area that belongs to another user than this
 * root worker (the image: the API's uid 10001 owns the data volume, docs/image.md) has its reports
 * directory given to that user, so the API can delete the reports the worker writes there. The
 * external reports directory (AGENT_REPORTS_DIR), apart from the data area, exists too.
 */

export const ROOT_MODE = 0o2770;
export const DATA_DIR_MODE = 0o700;

export async function prepareAgentHost(
  config: Pick<Config, 'orchestration'>,
  logger: Logger,
  isolation: AgentIsolation = agentIsolation(),
): Promise<AgentIsolation> {
  const { mode, reason } = isolation;
  if (mode === 'user-pool') logger.info({ agentIsolation: { mode, reason } }, 'agents run as unprivileged users');
  else if (mode === 'service-user')
    logger.warn({ agentIsolation: { mode, reason } }, 'agents run as the service user: they are not isolated from it');
  else logger.error({ agentIsolation: { mode, reason } }, 'agents cannot run: every execution will fail');

  const { dataDir, reportsDir, workdirRoots } = config.orchestration;
  await fs.mkdir(dataDir, { recursive: true, mode: DATA_DIR_MODE });
  await fs.chmod(dataDir, DATA_DIR_MODE);
  await giveReportsToDataOwner(dataDir);
  await prepareExternalReports(reportsDir, dataDir);

  for (const root of workdirRoots) {
    if (isolation.mode !== 'user-pool') {
      // Not root: the root may be out of this user's reach; runs under it then fail with the reason.
      await fs
        .mkdir(root, { recursive: true })
        .catch((error: unknown) => logger.warn({ err: error, root }, 'working-directory root not created'));
      continue;
    }
    await fs.mkdir(root, { recursive: true });
    // The configuration refused system directories as written; a root that is a symlink is judged where it leads.
    const real = await fs.realpath(root);
    const refused = refusedRootReason(real, [repoRoot]);
    if (refused !== null) throw new Error(`AGENT_WORKDIR_ROOTS: ${root} leads to ${refused}`);
    await fs.chown(real, 0, isolation.gid);
    await fs.chmod(real, ROOT_MODE);
    logger.debug({ root, group: AGENT_GROUP }, 'working-directory root ready');
  }
  return isolation;
}

/**
 * Root writes the reports (close-execution.ts) and the API removes them (DELETE /api/reports/{name}),
 * which needs write access to the directory, not to the file: with a data area owned by the API's user
 * the directory is that user's. Nothing changes where root owns the data area (one machine, npm start).
 */
async function giveReportsToDataOwner(dataDir: string): Promise<void> {
  if (process.getuid?.() !== 0) return;
  const owner = await fs.stat(dataDir);
  if (owner.uid === 0) return;
  const reports = reportsDirectory(dataDir);
  await fs.mkdir(reports, { recursive: true, mode: 0o755 });
  await fs.chown(reports, owner.uid, owner.gid);
}

/**
 * The external reports directory (AGENT_REPORTS_DIR): made at start, so a report's first copy does not
 * wait for the first run's end and a path the worker cannot write stops it now. Made closed as the data
 * area is (0700): a report holds a run's task and output, which the agents' users must not read. Made by
 * root where the data area is another user's (the image), it is given to that user, as the data area's
 * `reports/` is. One that exists is the operator's (a directory another system reads): left as it is.
 */
async function prepareExternalReports(reportsDir: string, dataDir: string): Promise<void> {
  const made = await fs.mkdir(reportsDir, { recursive: true, mode: DATA_DIR_MODE });
  if (made === undefined) return;
  if (process.getuid?.() !== 0) return;
  const owner = await fs.stat(dataDir);
  if (owner.uid === 0) return;
  await fs.chown(reportsDir, owner.uid, owner.gid);
}
