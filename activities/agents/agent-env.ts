import type { AgentCli } from './agent-cli';
import { defaultAgentCli } from './agent-clis';
import { tmpDirOf } from './agent-sessions';
import { AGENT_MODEL_SECRETS } from '../../lib/secret-files';

/**
 * The environment an agent process starts from, before its secrets are added. Not the service's
 * whole environment: the agent runs tools without asking (bypassPermissions), and the service's own
 * credentials (database password, AUTH_TOKEN, AGENT_SECRETS_KEY) must not be readable by it. Kept:
 * what a shell and the agent CLI need to work (path, home, locale, proxies, certificates) and the
 * CLI's own settings (its adapter's `envPrefixes`: ANTHROPIC_*, CLAUDE_* for Claude Code). Anything
 * else an agent needs is given as a secret.
 */
const KEPT_NAMES = new Set([
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'TERM',
  'TZ',
  'TMPDIR',
  'LANG',
  'LANGUAGE',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
]);
const KEPT_PREFIXES = ['LC_', 'XDG_'];

/** `ANTHROPIC_API_KEY_FILE` and the like: a path the agent cannot read (the service read it: `modelSecrets`). */
const SECRET_FILE_NAMES = new Set(AGENT_MODEL_SECRETS.map((name) => `${name}_FILE`));

/**
 * The base environment for the CLI `cli` (the default adapter's when absent, agent-clis.ts), with the
 * model credentials the service read from files (`<NAME>_FILE`, lib/secret-files.ts) as values.
 */
export function agentBaseEnv(
  source: NodeJS.ProcessEnv,
  cli: Pick<AgentCli, 'envPrefixes'> = defaultAgentCli,
  modelSecrets: Record<string, string> = {},
): Record<string, string> {
  const prefixes = [...KEPT_PREFIXES, ...cli.envPrefixes];
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value === undefined || SECRET_FILE_NAMES.has(name)) continue;
    if (KEPT_NAMES.has(name) || prefixes.some((prefix) => name.startsWith(prefix))) kept[name] = value;
  }
  for (const [name, value] of Object.entries(modelSecrets))
    if (cli.envPrefixes.some((prefix) => name.startsWith(prefix))) kept[name] = value;
  return kept;
}

/**
 * The environment of an agent run as a pool user (lib/agent-isolation.ts): that user's HOME (where
 * the CLI keeps its sessions and settings), USER and LOGNAME, and its private temporary directory
 * in that HOME as TMPDIR, TMP and TEMP (the service's is shared by every run); XDG_* locations are
 * dropped, as they name the service user's directories.
 */
export function agentUserEnv(base: Record<string, string>, user: { name: string; home: string }): Record<string, string> {
  const env = Object.fromEntries(Object.entries(base).filter(([name]) => !name.startsWith('XDG_')));
  const tmp = tmpDirOf(user.home);
  return { ...env, HOME: user.home, USER: user.name, LOGNAME: user.name, TMPDIR: tmp, TMP: tmp, TEMP: tmp };
}
