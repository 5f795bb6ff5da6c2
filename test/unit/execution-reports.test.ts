import { isReportFileName, reportFileName, reportMarkdown, slugOf, type ReportRecord } from '../../db/reports-store';
import { boundOutput, containsPattern, OUTPUT_MAX_CHARS, OUTPUT_TRUNCATED_NOTE } from '../../db/executions-store';
import { csvRow, exportFileName } from '../../api/orchestration/executions-csv';

const record = (overrides: Partial<ReportRecord> = {}): ReportRecord => ({
  id: '0F1E2D3C-4b5a-4678-9abc-def012345678',
  kind: 'agent',
  agentName: 'Revisor de Código',
  status: 'error',
  source: 'schedule',
  model: 'sonnet',
  workingDirectory: '/srv/work',
  sessionId: 'sess-42',
  costUsd: 0.25,
  durationMs: 90_500,
  turns: 4,
  task: 'Review | the parser',
  instructions: '',
  output: 'line 1\n```js\nx\n```\nline 2',
  outputTruncated: true,
  error: 'agent exited with code 1',
  createdAt: new Date('2026-03-04T05:06:07.890Z'),
  startedAt: new Date('2026-03-04T05:06:08.000Z'),
  finishedAt: null,
  ...overrides,
});

describe('report file names', () => {
  it.each([
    ['Revisor de Código', 'revisor-de-codigo'],
    ['  ../../etc/passwd  ', 'etc-passwd'],
    ['C:\\Windows\\evil', 'c-windows-evil'],
    ['日本語', 'agent'],
    ['x'.repeat(60), 'x'.repeat(40)],
    ['a'.repeat(39) + ' b', 'a'.repeat(39)],
  ])('slug of %j is %j', (name, slug) => {
    expect(slugOf(name)).toBe(slug);
  });

  it('is the UTC start, the agent slug and the first 8 hex of the id, and passes its own check', () => {
    const name = reportFileName(record());
    expect(name).toBe('2026-03-04_050607_revisor-de-codigo_0f1e2d3c.md');
    expect(isReportFileName(name)).toBe(true);
  });

  it.each([
    '..',
    '../2026-03-04_050607_a_0f1e2d3c.md',
    '2026-03-04_050607_a_0f1e2d3c.md/',
    'a\\b.md',
    '2026-03-04_050607_a_0f1e2d3c.md\u0000',
    '2026-03-04_050607_a_0f1e2d3c.MD',
    '2026-03-04_050607__0f1e2d3c.md',
    '2026-03-04_050607_a_0f1e2d3.md',
    '',
  ])('refuses %j', (name) => {
    expect(isReportFileName(name)).toBe(false);
  });
});

describe('report Markdown', () => {
  it('shows every field and fences user text so it cannot break the layout', () => {
    expect(reportMarkdown(record())).toBe(
      [
        '# Execução de agente: Revisor de Código',
        '',
        '| Campo | Valor |',
        '|---|---|',
        '| Execução | 0F1E2D3C-4b5a-4678-9abc-def012345678 |',
        '| Agente | Revisor de Código |',
        '| Status | error |',
        '| Origem | schedule |',
        '| Modelo | sonnet |',
        '| Diretório de trabalho | /srv/work |',
        '| Criada | 2026-03-04T05:06:07.890Z |',
        '| Iniciada | 2026-03-04T05:06:08.000Z |',
        '| Finalizada | — |',
        '| Duração | 1 min 31 s |',
        '| Custo (USD) | 0.2500 |',
        '| Turnos | 4 |',
        '| Sessão | sess-42 |',
        '',
        '## Tarefa',
        '',
        '```text',
        'Review | the parser',
        '```',
        '',
        '## Instruções adicionais',
        '',
        '—',
        '',
        '## Saída (cortada)',
        '',
        '````text',
        'line 1\n```js\nx\n```\nline 2',
        '````',
        '',
        '## Erro',
        '',
        '```text',
        'agent exited with code 1',
        '```',
        '',
      ].join('\n'),
    );
  });

  it('titles a pipeline and leaves the error section out when there is none', () => {
    const markdown = reportMarkdown(
      record({ kind: 'pipeline', agentName: 'Release | train', error: null, durationMs: 1500, costUsd: null, sessionId: null }),
    );
    expect(markdown.startsWith('# Execução de pipeline: Release \\| train\n')).toBe(true);
    expect(markdown).toContain('| Pipeline | Release \\| train |');
    expect(markdown).toContain('| Duração | 1.5 s |');
    expect(markdown).toContain('| Custo (USD) | — |');
    expect(markdown).toContain('| Sessão | — |');
    expect(markdown).not.toContain('## Erro');
    expect(markdown).not.toContain('| Repositório |');
  });

  it('names the repository, branch and commit of a run in a repository', () => {
    const pushed = reportMarkdown(record({ repoName: 'loja', repoBranch: 'vitrine', repoCommit: '0e7704d1' }));
    expect(pushed).toContain('| Diretório de trabalho | /srv/work |\n| Repositório | loja (vitrine) |\n| Commit | 0e7704d1 |\n| Criada |');
    expect(reportMarkdown(record({ repoName: 'loja', repoBranch: 'main', repoCommit: null }))).toContain('| Commit | — (nada mudou) |');
  });

  it('names the agents host the run worked on, when it was pinned to one (docs/multi-host.md)', () => {
    expect(reportMarkdown(record({ host: 'maquina-2' }))).toContain(
      '| Diretório de trabalho | /srv/work |\n| Máquina | maquina-2 |\n| Criada |',
    );
    expect(reportMarkdown(record({ host: null }))).not.toContain('| Máquina |');
  });

  it("names an agent run's CLI before its model; the CLI's own default when the run had no model", () => {
    expect(reportMarkdown(record({ cli: 'claude-code' }))).toContain(
      '| Origem | schedule |\n| CLI | Claude Code (claude-code) |\n| Modelo | sonnet |\n',
    );
    expect(reportMarkdown(record({ cli: 'codex', model: 'gpt-5.5' }))).toContain(
      '| CLI | OpenAI Codex CLI (codex) |\n| Modelo | gpt-5.5 |\n',
    );
    expect(reportMarkdown(record({ cli: 'gemini', model: '' }))).toContain(
      '| CLI | Google Gemini CLI (gemini) |\n| Modelo | — (o padrão do CLI) |\n',
    );
    // A pipeline run's record has none: its steps' reports name theirs.
    expect(reportMarkdown(record({ kind: 'pipeline', cli: null }))).not.toContain('| CLI |');
  });
});

describe('execution store helpers', () => {
  it('bounds output at the cap with one note', () => {
    expect(boundOutput('short')).toEqual({ output: 'short', truncated: false });
    expect(boundOutput('z'.repeat(OUTPUT_MAX_CHARS))).toEqual({ output: 'z'.repeat(OUTPUT_MAX_CHARS), truncated: false });
    expect(boundOutput('z'.repeat(OUTPUT_MAX_CHARS + 1))).toEqual({
      output: 'z'.repeat(OUTPUT_MAX_CHARS) + OUTPUT_TRUNCATED_NOTE,
      truncated: true,
    });
  });

  it('escapes LIKE wildcards in the text filter', () => {
    expect(containsPattern('50%_off\\x')).toBe('%50\\%\\_off\\\\x%');
  });
});

describe('CSV helpers', () => {
  const stored = {
    id: 'e1',
    kind: 'agent' as const,
    agentId: null,
    agentName: 'A',
    pipelineId: null,
    status: 'completed' as const,
    source: 'manual' as const,
    scheduleId: null,
    task: 't',
    instructions: 'i',
    workingDirectory: '/w',
    model: 'm',
    cli: 'codex' as const,
    sessionId: null,
    parentExecutionId: null,
    parentSessionId: null,
    delegatedFrom: null,
    delegationDepth: 0,
    result: null,
    exitCode: null,
    attempt: 1,
    pipelineExecutionId: null,
    stepIndex: null,
    failedAtStep: null,
    lastStepInput: null,
    resumedFrom: null,
    resumedAtStep: null,
    webhookId: null,
    repoName: null,
    repoBranch: null,
    repoCommit: null,
    contextFiles: null,
    host: null,
    inputTokens: null,
    outputTokens: null,
    cacheReadTokens: null,
    cacheCreationTokens: null,
    costUsd: 0.5,
    durationMs: 10,
    turns: null,
    outputTruncated: false,
    outputSeq: 0,
    agentStartedAttempt: null,
    error: null,
    reportFile: null,
    createdAt: new Date('2026-01-01T00:00:00.000Z'),
    startedAt: null,
    finishedAt: null,
  };

  it('names the download by the UTC day and writes the contract columns: dates as ISO, numbers as numbers, nulls as null', () => {
    expect(exportFileName(new Date('2026-12-31T23:59:59.999Z'))).toBe('execucoes_2026-12-31.csv');
    // ID, Tipo, Nome, Status, Início (never ran: when it was queued), Fim, Duração (ms), Custo (USD), Turnos.
    // Numbers stay numbers, so the formula escaping (which applies to text cells) never prefixes them.
    expect(csvRow(stored)).toEqual(['e1', 'agent', 'A', 'completed', '2026-01-01T00:00:00.000Z', null, 10, 0.5, null]);
    const pipeline = csvRow({
      ...stored,
      kind: 'pipeline',
      agentName: 'Release',
      startedAt: new Date('2026-01-01T00:00:01.000Z'),
      finishedAt: new Date('2026-01-01T00:00:02.000Z'),
      turns: 3,
    });
    expect(pipeline).toEqual([
      'e1',
      'pipeline',
      'Release',
      'completed',
      '2026-01-01T00:00:01.000Z',
      '2026-01-01T00:00:02.000Z',
      10,
      0.5,
      3,
    ]);
  });
});
