import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths';

/**
 * The version the installed agent CLI reports (`<AGENT_COMMAND> --version`, e.g. "2.1.331 (Claude
 * Code)"), for GET /api/system/info. Asked once per command, lazily, with a bound; an answer is cached for the
 * life of the process (the CLI is pinned in package.json, so it changes only with a redeploy).
 * 'N/A' when it cannot be run or prints nothing: what the panel shows as "Indisponível".
 */

export const VERSION_UNAVAILABLE = 'N/A';
const TIMEOUT_MS = 15_000;
const cache = new Map<string, Promise<string>>();

/** A bare command name prefers the project's own pinned copy in node_modules/.bin over PATH. */
function resolveCommand(command: string): string {
  if (command.includes('/')) return command;
  const local = path.join(repoRoot, 'node_modules', '.bin', command);
  return fs.existsSync(local) ? local : command;
}

function ask(command: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(resolveCommand(command), ['--version'], { timeout: TIMEOUT_MS, maxBuffer: 64 * 1024 }, (error, stdout) => {
      const firstLine =
        String(stdout ?? '')
          .split('\n')[0]
          ?.trim() ?? '';
      resolve(error || firstLine === '' ? VERSION_UNAVAILABLE : firstLine);
    });
  });
}

export function agentCliVersion(command: string): Promise<string> {
  let version = cache.get(command);
  if (!version) {
    version = ask(command).then((answer) => {
      // A failure (e.g. a timeout under load) is not kept: the next call asks again.
      if (answer === VERSION_UNAVAILABLE) cache.delete(command);
      return answer;
    });
    cache.set(command, version);
  }
  return version;
}
