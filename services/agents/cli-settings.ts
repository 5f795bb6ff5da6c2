import type { AgentData } from '../../db/agent-data';
import { AGENT_CLIS, DEFAULT_AGENT_CLI, isClaudeModel } from '../../domain/agent-clis';
import { InvalidInputError } from '../errors';

/**
 * An agent's settings against what its CLI can honour (domain/agent-clis.ts; docs/agents.md, "Which
 * CLI an agent runs"): a setting the CLI cannot honour is refused when the agent is saved, never
 * ignored at run time. 0 turns, no allowed tools and '' as the permission mode mean "none" and
 * "the CLI's default": every CLI takes them.
 */

type CliSettings = Pick<AgentData, 'cli' | 'model' | 'instructions' | 'maxTurns' | 'allowedTools' | 'permissionMode'>;

/** What the agent asks that its CLI cannot honour: one pt-BR sentence per field, named as in the view. */
function refusalsOf(data: CliSettings): string[] {
  const cli = AGENT_CLIS[data.cli];
  const name = `o CLI ${data.cli} (${cli.label})`;
  const modes = cli.permissionModes.join(', ');
  const refusals: string[] = [];
  if (data.model !== null && !cli.claudeModels && isClaudeModel(data.model)) {
    refusals.push(
      `config.model: "${data.model}" é um modelo do Claude, que ${name} não usa: informe um modelo dele ou "" (o padrão do CLI)`,
    );
  }
  if (!cli.systemPrompt && data.instructions !== '') {
    refusals.push(`config.systemPrompt: ${name} não aceita prompt de sistema: deixe vazio`);
  }
  if (!cli.turnLimit && data.maxTurns > 0) {
    refusals.push(`config.maxTurns: ${name} não tem limite de turnos: use 0 (sem limite)`);
  }
  if (!cli.allowedTools && data.allowedTools !== '') {
    refusals.push(`config.allowedTools: ${name} não restringe ferramentas por nome: deixe vazio e escolha o permissionMode (${modes})`);
  }
  if (data.permissionMode !== '' && !cli.permissionModes.includes(data.permissionMode)) {
    refusals.push(
      `config.permissionMode: ${name} não tem o modo "${data.permissionMode}": use "" (o padrão, ${cli.defaultPermissionMode}) ou um de ${modes}`,
    );
  }
  return refusals;
}

/** InvalidInputError naming every setting the agent's CLI cannot honour (all at once, as a bad body's fields). */
export function refuseWhatItsCliCannotHonour(data: CliSettings): void {
  const refusals = refusalsOf(data);
  if (refusals.length > 0) throw new InvalidInputError(refusals.join('; '));
}

/** What the admin panel's permission select offers: Claude Code's words and '' ("Padrão"). */
const PANEL_PERMISSION_MODES = new Set(['', ...AGENT_CLIS[DEFAULT_AGENT_CLI].permissionModes]);

/**
 * An update that does not name the CLI is the admin panel's form (or a client that, like it, knows
 * only Claude Code): its model select lists Claude models only and falls back to one, and its
 * permission select shows '' for a word it does not list. For an agent of another CLI those values
 * are not the user's choice, so they are not stored: a Claude model keeps the stored model (a
 * Claude model would break the agent), and '' keeps a stored permission mode the form cannot show
 * (else a `read-only` Codex agent would silently get full access). Every other field is taken as
 * sent and checked. An update that names the CLI is taken as written.
 */
export function panelChangesFor(current: AgentData, changes: Partial<AgentData>): Partial<AgentData> {
  if (changes.cli !== undefined || current.cli === DEFAULT_AGENT_CLI) return changes;
  const kept: Partial<AgentData> = { ...changes };
  if (typeof kept.model === 'string' && !AGENT_CLIS[current.cli].claudeModels && isClaudeModel(kept.model)) delete kept.model;
  if (kept.permissionMode === '' && !PANEL_PERMISSION_MODES.has(current.permissionMode)) delete kept.permissionMode;
  return kept;
}
