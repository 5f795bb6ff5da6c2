import { openaiStandInEnv } from './openai-responses';
import { STAND_IN_API_KEY, standInEnv, type StandInModel } from './server';

/**
 * The secrets that point an agent's CLI at the stand-in, with the CLI's own retries off: each CLI reads
 * its own variables (docs/claude-code-cli.md, docs/codex-cli.md, docs/gemini-cli.md); `cli` is the
 * agent's `config.cli`, Claude Code when it is neither `codex` nor `gemini`. Shared by the
 * suites (real-agents.ts) and the benchmarks (scripts/bench/live-streams.ts).
 */
export function standInSecretsFor(cli: unknown, model: Pick<StandInModel, 'url'>): Record<string, string> {
  switch (cli) {
    case 'codex':
      return { ...openaiStandInEnv(model), CODEX_MAX_RETRIES: '0' };
    case 'gemini':
      return { GEMINI_API_KEY: STAND_IN_API_KEY, GOOGLE_GEMINI_BASE_URL: model.url };
    default:
      return { ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' };
  }
}
