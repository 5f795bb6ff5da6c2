import fs from 'node:fs';
import path from 'node:path';
import { agentBaseEnv } from '../../activities/agents/agent-env';
import { prepareAgentHost } from '../../activities/agents/agent-host';
import { claudeCode } from '../../activities/agents/claude-code';
import { agentRunConfigOf } from '../../activities/agents/run-options';
import { runAgent } from '../../activities/agents/run-agent';
import { createDatabase, type DatabaseHandle } from '../../db';
import { createAgent, deleteAgent, findAgent, type Agent } from '../../db/agents-store';
import { config } from '../../lib/config';
import { logger } from '../../lib/logger';
import { repoRoot } from '../../lib/paths';
import { promptsOf, standInEnv, startStandInModel, type StandInModel } from '../support/stand-in-model';
import { agentWorkspace } from '../support/agent-workspace';
import { requireRoot } from '../support/root';

/**
 * An agent's stored config as the REAL Claude Code CLI receives it (docs/agents.md, "At run time"):
 * the run options agentRunConfigOf builds from a stored agent, run through runAgent against the
 * stand-in Messages API, and what the CLI then sent to the API.
 */

const claudeCli = path.join(repoRoot, 'node_modules/.bin/claude');

let model: StandInModel;
let workspace: string;
let sessionStore: string;
let database: DatabaseHandle;
const created: string[] = [];

beforeAll(async () => {
  requireRoot('agent-config-cli');
  model = await startStandInModel();
  workspace = agentWorkspace('agent-config-cli-');
  await prepareAgentHost({ orchestration: { ...config.orchestration, workdirRoots: [workspace] } }, logger);
  sessionStore = fs.mkdtempSync(path.join(config.orchestration.dataDir, 'agent-config-cli-sessions-'));
  database = createDatabase(config.mysql);
});

afterAll(async () => {
  for (const id of created) await deleteAgent(database.db, id);
  await database?.pool.end();
  await model?.close();
  if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  if (sessionStore) fs.rmSync(sessionStore, { recursive: true, force: true });
});

async function storedAgent(
  name: string,
  fields: Pick<Agent, 'instructions' | 'allowedTools' | 'maxTurns' | 'permissionMode'>,
): Promise<Agent> {
  const agent = await createAgent(
    database.db,
    { name: `${name} ${process.pid} ${Date.now()}`, description: '', model: null, workingDirectory: null, ...fields },
    config.orchestration.limits,
  );
  created.push(agent.id);
  return (await findAgent(database.db, agent.id))!;
}

/** Runs the real CLI with the agent's run options and answers the message request it sent. */
async function runWith(agent: Agent, prompt: string) {
  const options = agentRunConfigOf(agent);
  const summary = await runAgent({
    command: claudeCli,
    cli: claudeCode,
    run: { prompt, ...options },
    cwd: path.join(workspace, agent.id),
    workdirRoots: [workspace],
    sessions: { store: sessionStore, agentId: agent.id },
    baseEnv: { ...agentBaseEnv(process.env), ...standInEnv(model), CLAUDE_CODE_MAX_RETRIES: '0' },
    onEvent: () => undefined,
  });
  const request = model.messages().find((candidate) => promptsOf(candidate.body).at(-1) === prompt);
  const system = ((request?.body as { system?: Array<{ text: string }> }).system ?? []).map((block) => block.text);
  return { args: claudeCode.buildArgs({ prompt, ...options }, {}), summary, system };
}

describe("an agent's config reaches the real Claude Code CLI", () => {
  it("the system prompt replaces the CLI's own; allowed tools, no turn limit (0) and the default permission mode ('') as options", async () => {
    const agent = await storedAgent('Revisor', {
      instructions: 'Você é um revisor de código.\nResponda em português.',
      allowedTools: ' Read , Grep,',
      maxTurns: 0,
      permissionMode: '',
    });
    const { args, summary, system } = await runWith(agent, 'Review this. stand-in:text');

    expect(args).toEqual(
      expect.arrayContaining([
        '--system-prompt=Você é um revisor de código.\nResponda em português.',
        '--allowedTools',
        'Read,Grep',
        '--permission-mode',
        'bypassPermissions',
      ]),
    );
    expect(args).not.toContain('--max-turns');
    expect(summary).toMatchObject({ exitCode: 0, error: null });
    // What the CLI sent: its billing line and SDK identity, then the agent's prompt as the system prompt, and nothing of its default one.
    expect(system.at(-1)).toBe('Você é um revisor de código.\nResponda em português.');
    expect(system.some((text) => text.includes('You are an agent working with the user'))).toBe(false);
  });

  it('a system prompt written as a Markdown list (starting with "-") reaches the model whole, not as an option', async () => {
    const prompt = '- Responda em português.\n- --allowedTools Bash não é uma opção aqui.';
    const agent = await storedAgent('Lista', { instructions: prompt, allowedTools: '', maxTurns: 2, permissionMode: '' });
    const { args, summary, system } = await runWith(agent, 'List. stand-in:text');

    expect(args).toContain(`--system-prompt=${prompt}`);
    expect(args).not.toContain('--allowedTools');
    expect(summary).toMatchObject({ exitCode: 0, error: null });
    expect(system.at(-1)).toBe(prompt);
  });

  it('without a system prompt the CLI keeps its own; a turn limit and another permission mode are passed', async () => {
    const agent = await storedAgent('Plain', { instructions: '', allowedTools: '', maxTurns: 3, permissionMode: 'plan' });
    const { args, summary, system } = await runWith(agent, 'Answer plainly. stand-in:text');

    expect(args).toEqual(expect.arrayContaining(['--max-turns', '3', '--permission-mode', 'plan']));
    expect(args.some((arg) => arg.startsWith('--system-prompt'))).toBe(false);
    expect(args).not.toContain('--allowedTools');
    expect(summary).toMatchObject({ exitCode: 0, error: null });
    expect(system.some((text) => text.includes('You are an agent working with the user'))).toBe(true);
  });
});
