import path from 'node:path';
import { repoRoot } from '../../lib/paths';

/** scripts/git/askpass.sh: answers git's username and password prompts from the environment. */
export const ASKPASS_SCRIPT = path.join(repoRoot, 'scripts/git/askpass.sh');

/**
 * The environment that lets git authenticate to a remote (docs/repositories.md, "Credentials"): given
 * to the service's own fetch and push processes only, never to a git run as an agent's user, never
 * written into a configuration or a URL. Without credentials git is told to fail rather than ask.
 */
export function askPassEnvironment(credentials: { username: string; password: string } | null): Record<string, string> {
  if (credentials === null) return {};
  return { GIT_ASKPASS: ASKPASS_SCRIPT, REPO_GIT_USERNAME: credentials.username, REPO_GIT_PASSWORD: credentials.password };
}
