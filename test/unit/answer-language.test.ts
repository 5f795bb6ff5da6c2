import { lookOverAnswer, takeEnglishAnswers } from '../support/answer-language';

/**
 * The look over the texts the suites see (test/support/answer-language.ts, docs/errors.md): what it
 * flags in an answer, and what it leaves to the sender's words.
 */
function flagged(body: unknown): string[] {
  lookOverAnswer('POST /api/x → 400', body);
  return takeEnglishAnswers();
}

describe('the answers a person reads, looked over for English', () => {
  afterEach(() => takeEnglishAnswers());

  it("flags a library's English under an envelope, a record, or a validation item", () => {
    expect(flagged({ error: 'Corpo JSON inválido: invalid JSON, only supports object and array' })).toEqual([
      'POST /api/x → 400: error "Corpo JSON inválido: invalid JSON, only supports object and array" holds English (invalid, only, and)',
    ]);
    expect(flagged({ detail: 'request entity too large' })).toHaveLength(1);
    expect(flagged([{ id: 'r1', error: 'the execution failed' }])).toHaveLength(1);
    expect(flagged({ detail: [{ loc: ['query'], msg: 'must not be empty' }] })).toHaveLength(1);
  });

  it("leaves out what the service passes on as it came, quoted values, field paths, ids and the API's own names", () => {
    expect(flagged({ error: 'claude-code terminou com o código 1: Invalid API key · Fix external API key' })).toEqual([]);
    expect(flagged({ error: 'o envio para o repositório "app" foi recusado: remote rejected by the hook' })).toEqual([]);
    expect(
      flagged({ error: "Corpo JSON inválido; o analisador diz: Expected ',' or '}' after property value in JSON at position 19" }),
    ).toEqual([]);
    expect(flagged({ error: 'body.steps.0.agentId: agentId é obrigatório; name é obrigatório' })).toEqual([]);
    expect(flagged({ error: 'Só é possível reexecutar execuções que terminaram com erro (status atual: running)' })).toEqual([]);
    expect(flagged({ error: 'O agente 4f1c-9a2e não tem a sessão no-such-session' })).toEqual([]);
    expect(flagged({ detail: 'Erro ao sugerir consultores: Error: connect ECONNREFUSED 127.0.0.1:33533' })).toEqual([]);
    // A dependency's client's own message, where the system status gives it.
    const redis = 'Reached the max retries per request limit (which is 2). Refer to "maxRetriesPerRequest" option for details.';
    expect(flagged({ status: 'degraded', dependencies: { redis: { status: 'down', error: redis } } })).toEqual([]);
    expect(flagged({ detail: redis })).toHaveLength(1);
  });

  it("does not read a notification's message: an agent's name and its task, a person's words", () => {
    expect(flagged({ message: 'Reviewer 1a2b3c4d: Review the open pull requests' })).toEqual([]);
  });
});
