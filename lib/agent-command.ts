import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths';

/**
 * The default agent command: the native binary of the pinned `@anthropic-ai/claude-code`, taken from
 * its per-platform package (`@anthropic-ai/claude-code-linux-x64/claude`, ...). The wrapper package's
 * `bin/claude.exe` is only a placeholder until its install script copies the binary over it, and npm
 * may skip install scripts; the platform package holds the binary either way. Nothing is downloaded.
 */
export function platformPackageName(platform: NodeJS.Platform = process.platform, arch: string = process.arch, musl = isMusl()): string {
  const base = `@anthropic-ai/claude-code-${platform}-${arch}`;
  return platform === 'linux' && musl ? `${base}-musl` : base;
}

/** glibc or musl: Node reports the glibc version it runs on; musl has none. */
function isMusl(): boolean {
  if (process.platform !== 'linux') return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime === undefined;
}

/** The binary's path when the platform package is installed, else `claude` (found on PATH). */
export function defaultAgentCommand(root: string = repoRoot): string {
  const binary = path.join(root, 'node_modules', platformPackageName(), process.platform === 'win32' ? 'claude.exe' : 'claude');
  return fs.existsSync(binary) ? binary : 'claude';
}
