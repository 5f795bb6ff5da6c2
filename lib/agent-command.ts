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

/** Codex CLI's native binary in its platform package (the npm package's `codex` is a Node wrapper that execs it). */
const CODEX_TARGETS: Record<string, string> = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };

/** The pinned Codex CLI's native binary when its platform package is installed, else `codex` (found on PATH). */
export function defaultCodexCommand(root: string = repoRoot): string {
  const target = CODEX_TARGETS[process.arch];
  const binary = path.join(
    root,
    'node_modules',
    '@openai',
    `codex-${process.platform}-${process.arch}`,
    'vendor',
    target ?? '',
    'bin',
    'codex',
  );
  return target !== undefined && fs.existsSync(binary) ? binary : 'codex';
}

/**
 * The pinned Gemini CLI's script (`bundle/gemini.js`, its npm `bin`), else `gemini` (found on PATH). It
 * starts with `#!/usr/bin/env node`: the agents' PATH is the service's, whose first Node is the pinned one.
 */
export function defaultGeminiCommand(root: string = repoRoot): string {
  const script = path.join(root, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
  return fs.existsSync(script) ? script : 'gemini';
}
