import path from 'node:path';

/**
 * What may not be a root of working directories (AGENT_WORKDIR_ROOTS). The agents worker makes
 * every root `root:agents` 2770 at its start (activities/agents/agent-host.ts), opening it to every
 * agent: given `/etc` the agents could rewrite the system's configuration, given `/home` every
 * user's home would be theirs. A root must be a directory of its own below these, e.g.
 * `/home/projetos` or `/srv/projects` (docs/agent-process.md, "Working directory").
 */

/** Neither these nor anything below them: programs, libraries, configuration, kernel interfaces, root's home, runtime state, the pool's HOMEs. */
const SYSTEM_TREES = ['/bin', '/boot', '/dev', '/etc', '/proc', '/root', '/run', '/sbin', '/sys', '/usr', '/var/lib/agent-users'];
/** `/lib`, `/lib32`, `/lib64`, `/libx32` and whatever else a distribution names so. */
const LIB_TREE = /^\/lib[^/]*(\/|$)/;
/** Not these themselves; a directory below them is fine. */
const SYSTEM_DIRS = new Set([
  '/',
  '/home',
  '/media',
  '/mnt',
  '/opt',
  '/srv',
  '/tmp',
  '/var',
  '/var/backups',
  '/var/cache',
  '/var/lib',
  '/var/local',
  '/var/log',
  '/var/mail',
  '/var/opt',
  '/var/spool',
  '/var/tmp',
  '/var/www',
]);

const within = (dir: string, tree: string): boolean => dir === tree || dir.startsWith(`${tree}/`);

/**
 * Why `root` (absolute, normalised) cannot be a root, or null when it can. `serviceDirs` are the
 * service's own directories (its repository): a root may lie below them, never be one or hold one.
 */
export function refusedRootReason(root: string, serviceDirs: readonly string[] = []): string | null {
  const tree =
    SYSTEM_TREES.find((system) => within(root, system)) ?? (LIB_TREE.test(root) ? root.split('/').slice(0, 2).join('/') : undefined);
  if (tree !== undefined)
    return `"${root}" is ${root === tree ? 'a system directory' : `inside the system directory ${tree}`}: the agents' group would be given it`;
  if (SYSTEM_DIRS.has(root))
    return `"${root}" is a system directory: the agents' group would be given it; use a directory below it (e.g. /home/projetos, /srv/projects)`;
  const held = serviceDirs.map((dir) => path.resolve(dir)).find((dir) => within(dir, root));
  if (held !== undefined)
    return `"${root}" holds the service's own files (${held}): the agents' group would be given them; use a directory of its own`;
  return null;
}
