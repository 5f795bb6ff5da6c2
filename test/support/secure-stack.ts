import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../../lib/paths';

/**
 * The secured local stack (scripts/stack/secure-up.sh, docs/secure-stack.md) as the tests use it: its
 * settings files, processes started with exactly the environment given (nothing inherited from the
 * test process, whose plain-stack values would clash with the `_FILE` forms), and a fetch that presents
 * the service's token.
 */

export const SECURE_DIR = path.join(repoRoot, '.stack/secure');

/**
 * Starts the secured stack or reuses it (secure-up.sh is idempotent); rejects, with the script's output,
 * when it cannot start: a suite that needs the stack fails loudly, never skips.
 */
export function ensureSecureStack(): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      'bash',
      [path.join(repoRoot, 'scripts/stack/secure-up.sh')],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024, timeout: 240_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`the secured stack did not start (scripts/stack/secure-up.sh: ${error.message}):\n${stdout}${stderr}`));
        else resolve();
      },
    );
  });
}

/** A `NAME=value` file such as service.env and ports.env (comments and blank lines skipped; no quoting). */
export function readEnvFile(file: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const match = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (match) values[match[1]!] = match[2]!;
  }
  return values;
}

/** `.stack/secure/service.env`: every setting the service needs there, secrets as `_FILE` paths. */
export const secureServiceEnv = (): Record<string, string> => readEnvFile(path.join(SECURE_DIR, 'service.env'));

/** `.stack/secure/ports.env`: the SECURE_* addresses and the admin credentials' files. */
export const securePortsEnv = (): Record<string, string> => readEnvFile(path.join(SECURE_DIR, 'ports.env'));

/** What any child needs from the test process: where programs are, a home. Nothing of the service's settings. */
export function baseProcessEnv(): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/**
 * Makes every fetch to `baseUrl` present `Authorization: Bearer <token>` unless the request sets its own
 * (the helpers of json-api.ts and real-agents.ts call a service without AUTH_TOKEN); returns the undo.
 */
export function presentTokenTo(baseUrl: string, token: string): () => void {
  const original = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    if (!url.startsWith(baseUrl) || input instanceof Request) return original(input, init);
    const headers = new Headers(init?.headers);
    if (!headers.has('authorization')) headers.set('authorization', `Bearer ${token}`);
    return original(input, { ...init, headers });
  };
  return () => {
    globalThis.fetch = original;
  };
}
