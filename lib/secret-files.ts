import fs from 'node:fs';
import path from 'node:path';

/**
 * The settings that hold a secret. Each may be given as `<NAME>_FILE` instead (the Kubernetes and
 * Docker habit): the path of a file holding the value, read once at start (a changed file takes
 * effect at the next start). Model keys are handed to the agents, not used by the service.
 */
export const SECRET_SETTINGS = [
  'AUTH_TOKEN',
  'WEBHOOK_SECRET',
  'MYSQL_PASSWORD',
  'REDIS_URL',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_PASSWORD',
  'ELASTICSEARCH_API_KEY',
  'ELASTICSEARCH_PASSWORD',
  'TEMPORAL_API_KEY',
  'GIT_PASSWORD',
  'AGENT_SECRETS_KEY',
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'GEMINI_API_KEY',
] as const;

export type SecretSetting = (typeof SECRET_SETTINGS)[number];

/**
 * The model credentials the agents receive; given as files, the service reads them and injects the
 * values, each only into the process of the CLI whose adapter keeps its prefix (agent-env.ts):
 * Claude Code ANTHROPIC_*, Codex CLI OPENAI_* and CODEX_*, Gemini CLI GEMINI_*.
 */
export const AGENT_MODEL_SECRETS: readonly SecretSetting[] = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'GEMINI_API_KEY',
];

export interface ProcessIdentity {
  uid: number;
  groups: number[];
}

export function currentIdentity(): ProcessIdentity {
  const uid = process.geteuid?.() ?? -1;
  const groups = [process.getegid?.() ?? -1, ...(process.getgroups?.() ?? [])];
  return { uid, groups };
}

/**
 * Why a secret file may not be used, or null. One rule everywhere: never open to others; open to its
 * group only when that group is one of this process's own (a Kubernetes Secret volume with
 * `fsGroup`: 0440, root-owned); owned by this process's user or by root (a file another user owns
 * could be changed by them). Symlinks are followed (a Secret volume's `..data/` layout).
 */
export function secretFileProblem(stat: fs.Stats, identity: ProcessIdentity): string | null {
  if (!stat.isFile()) return 'is not a regular file';
  const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
  if ((stat.mode & 0o007) !== 0) return `is open to other users (mode ${mode}): chmod 400 or 440 it`;
  if ((stat.mode & 0o070) !== 0 && !identity.groups.includes(stat.gid))
    return `is open to group ${stat.gid}, which this process is not in (mode ${mode}): chmod 400 it`;
  if (stat.uid !== identity.uid && stat.uid !== 0) return `belongs to user ${stat.uid}, neither this process's user nor root`;
  return null;
}

/** The content of a secret file: one trailing newline (CRLF too) dropped, nothing else. */
export function readSecretFile(file: string, identity: ProcessIdentity = currentIdentity()): string {
  if (!path.isAbsolute(file)) throw new Error(`an absolute path, got "${file}"`);
  let stat: fs.Stats;
  let text: string;
  try {
    stat = fs.statSync(file);
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { cause: error });
  }
  const problem = secretFileProblem(stat, identity);
  if (problem !== null) throw new Error(`${file} ${problem}`);
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new Error(`${file} is empty`);
  return value;
}

/**
 * The environment with every `<NAME>_FILE` of a secret setting replaced by `<NAME>` and the file's
 * content; the problems found, each naming its variable (both forms set, an unreadable or open file).
 */
export function resolveSecretFiles(
  env: Record<string, string>,
  identity: ProcessIdentity = currentIdentity(),
): { env: Record<string, string>; problems: string[]; fromFiles: SecretSetting[] } {
  const resolved = { ...env };
  const problems: string[] = [];
  const fromFiles: SecretSetting[] = [];
  for (const name of SECRET_SETTINGS) {
    const file = env[`${name}_FILE`];
    if (file === undefined) continue;
    delete resolved[`${name}_FILE`];
    if (env[name] !== undefined) {
      problems.push(`${name}_FILE: set ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      resolved[name] = readSecretFile(file, identity);
      fromFiles.push(name);
    } catch (error) {
      problems.push(`${name}_FILE: ${(error as Error).message}`);
    }
  }
  return { env: resolved, problems, fromFiles };
}
