import fs from 'node:fs';
import path from 'node:path';
import type { AgentHostEntry } from '../../domain/agent-hosts';
import * as catalogue from '../../domain/run-messages';
import { englishWordsOf as englishWordsIn } from '../support/english-words';

/**
 * The catalogue of the texts a person reads about runs (domain/run-messages.ts; docs/errors.md,
 * "Language of the messages"): pt-BR, every one of them, and the English texts it replaced gone from
 * the code that wrote them.
 */

/** Sample values: interpolated as they are, so taken out before the words are looked at. */
const SAMPLES = ['guarded-7f3a', 'exit 128: rejected by policy', '0a1b2c3d4e5f', '9f8e7d6c5b4a', 'host-a', 'host-b', 'agent-42', 'pipe-9'];
const hosts: AgentHostEntry[] = [
  { name: 'host-a', roots: ['/srv/projetos'], live: true, draining: false, running: 0 },
  { name: 'host-b', roots: ['/srv/outros'], live: true, draining: true, running: 1 },
  { name: 'host-a', roots: ['/srv/velhos'], live: false, draining: false, running: 0 },
];

/** Each function of the catalogue, called with sample values (every path of the function the texts take). */
const CALLS: Record<string, () => Array<string | null>> = {
  hostDownError: () => [catalogue.hostDownError('host-a', 5)],
  pushRefusedError: () => [catalogue.pushRefusedError('guarded-7f3a', 'exit 128: rejected by policy')],
  bundleMismatchError: () => [catalogue.bundleMismatchError('0a1b2c3d4e5f', '9f8e7d6c5b4a')],
  commitKeptError: () => [catalogue.commitKeptError(catalogue.pushRefusedError('guarded-7f3a', 'x'), '0a1b2c3d4e5f', '/srv/projetos/app')],
  gitCannotRunError: () => [catalogue.gitCannotRunError('exit 128: rejected by policy')],
  noLiveHostError: () => [catalogue.noLiveHostError('/srv/projetos/app', hosts), catalogue.noLiveHostError('/srv/projetos/app', [])],
  agentGoneError: () => [catalogue.agentGoneError('agent-42')],
  recordWithoutAgentError: () => [catalogue.recordWithoutAgentError('agent-42')],
  pipelineGoneError: () => [catalogue.pipelineGoneError('pipe-9'), catalogue.pipelineGoneError(null)],
  stepGoneError: () => [catalogue.stepGoneError(2, 'pipe-9')],
  stepRecordGoneError: () => [catalogue.stepRecordGoneError(2)],
  stepAgentGoneError: () => [catalogue.stepAgentGoneError('agent-42', 2)],
  stepAgentInactiveError: () => [catalogue.stepAgentInactiveError('agent-42', 2)],
  stepEndedError: () => ['error', 'canceled', 'rejected', 'queued'].map((status) => catalogue.stepEndedError(2, status)),
  finalErrorOf: () => [catalogue.finalErrorOf('canceled', null), catalogue.finalErrorOf('error', null)],
  credentialsHint: () => [catalogue.credentialsHint('GEMINI_API_KEY', 'docs/gemini-cli.md')],
};

/** Every text of the catalogue: its constants, its handshake refusals, and its functions' texts. */
function catalogueTexts(): Array<[string, string]> {
  const texts: Array<[string, string]> = [];
  for (const [name, value] of Object.entries(catalogue)) {
    if (typeof value === 'string') texts.push([name, value]);
    else if (typeof value === 'function') {
      for (const text of CALLS[name]?.() ?? []) if (text !== null) texts.push([name, text]);
    } else for (const [key, text] of Object.entries(value)) texts.push([`${name}.${key}`, text]);
  }
  return texts;
}

/** The English words of a text, the sample values aside (test/support/english-words.ts). */
const englishWordsOf = (text: string): string[] => englishWordsIn(text, SAMPLES);

describe('the run messages catalogue (domain/run-messages.ts)', () => {
  it('calls every function it has with sample values', () => {
    const functions = Object.entries(catalogue)
      .filter(([, value]) => typeof value === 'function')
      .map(([name]) => name);
    expect(functions.sort()).toEqual(Object.keys(CALLS).sort());
  });

  it('holds no English word in any text', () => {
    const texts = catalogueTexts();
    expect(texts.length).toBeGreaterThan(25);
    const flagged = texts.map(([name, text]) => ({ name, words: englishWordsOf(text) })).filter(({ words }) => words.length > 0);
    expect(flagged).toEqual([]);
  });

  it('flags the English it is there to catch (the words the catalogue replaced)', () => {
    expect(englishWordsOf('push to "guarded-7f3a" refused: exit 128: rejected by policy')).toEqual(['push', 'to', 'refused']);
    expect(englishWordsOf('agent "agent-42" of step 2 is inactive')).toEqual(['agent', 'of', 'step', 'is', 'inactive']);
    expect(englishWordsOf('the execution failed')).toEqual(['the', 'execution', 'failed']);
    expect(englishWordsOf('Host não permitido (ALLOWED_HOSTS)')).toEqual([]);
  });

  it('keeps the values stored records and failure classifications compare (domain/execution-errors.ts)', () => {
    expect(catalogue.CANCELLED_ERROR).toBe('cancelada a pedido do usuário');
    expect(catalogue.WORKER_STOPPED_ERROR).toBe('o worker que executava esta execução foi desligado');
  });

  it('words a step that ended without an error of its own, and a final message without one', () => {
    expect(catalogue.stepEndedError(3, 'error')).toBe('o passo 3 terminou com erro');
    expect(catalogue.stepEndedError(3, 'queued')).toBe('o passo 3 terminou com o status queued');
    expect(catalogue.finalErrorOf('completed', null)).toBeNull();
    expect(catalogue.finalErrorOf('error', 'o agente falhou')).toBe('o agente falhou');
    expect(catalogue.finalErrorOf('canceled', null)).toBe('a execução foi cancelada');
    expect(catalogue.finalErrorOf('error', null)).toBe('a execução falhou');
  });
});

describe('the English texts the catalogue replaced', () => {
  const root = path.join(__dirname, '..', '..');
  const replaced: Record<string, string[]> = {
    'activities/repos/working-copy.ts': ['" refused: ', 'the bundle carried', 'stays in the working copy ${dir}'],
    'activities/repos/run-push.ts': ['git cannot run here'],
    'activities/agents/agent-hosts.ts': ['no live agents host', 'no agents host is registered', 'not seen for over a minute'],
    'activities/agents/execution-activities.ts': ['no longer exists', 'no live agents host', 'has no agent'],
    'activities/agents/run-failures.ts': ['message: error.message, type: FAILURE_TYPES.secretsKeyMissing'],
    'activities/pipelines/steps.ts': ['no longer exists', 'is inactive', 'ended ${'],
    'lib/live-output.ts': ["'canceled' }", 'the execution failed'],
    'services/pipelines/runs.ts': ["error: 'canceled'"],
    'api/websocket.ts': [
      'token query parameter',
      'invalid token',
      'session expired',
      'cannot be checked now',
      'origin not allowed',
      'host not allowed',
      'too many open sockets',
      'no WebSocket at this path',
      'internal error',
    ],
  };
  it.each(Object.entries(replaced))('are gone from %s', (file, olds) => {
    const source = fs.readFileSync(path.join(root, file), 'utf8');
    expect(olds.filter((old) => source.includes(old))).toEqual([]);
  });
});
