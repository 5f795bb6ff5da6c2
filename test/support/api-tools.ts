import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../lib/paths';

let bin: string | null = null;

/**
 * The bin directory of the API description's tools (schemathesis, openapi-spec-validator), installed
 * from PyPI on first use by scripts/api-tools.sh; an install that fails fails the test that needs them.
 */
export function apiToolsBin(): string {
  bin ??= execFileSync('bash', [path.join(repoRoot, 'scripts', 'api-tools.sh')], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  }).trim();
  return bin;
}
