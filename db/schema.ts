import { sql } from 'drizzle-orm';
import {
  boolean,
  date,
  datetime,
  double,
  index,
  int,
  longtext,
  mediumtext,
  mysqlTable,
  primaryKey,
  text,
  timestamp,
  tinyint,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/mysql-core';
import type { StoredComplements } from '../domain/ranking-row';
import { NAME_WORD_MAX } from '../domain/text';
import type { AgentData } from './agent-data';
import { bytes, caseSensitiveVarchar } from './binary-columns';
import { jsonText } from './columns';
import type { ExecutionKind, ExecutionSource, ExecutionStatus } from '../domain/execution-status';
import type { AgentCliName } from '../domain/agent-clis';

/** Service-wide settings, one row per named setting (the orchestration settings build on it). */
export const settings = mysqlTable('settings', {
  name: varchar('name', { length: 64 }).primaryKey(),
  value: jsonText<unknown>('value').notNull(),
  updatedAt: timestamp('updated_at', { mode: 'date' }).notNull().defaultNow().onUpdateNow(),
});

/**
 * One row per ranked person, upserted by the ranking job (keyed by id_pessoa, so a retried batch
 * never duplicates). Narrow on purpose: positions, statistics and the name search scan or look up
 * many rows; the bulky details live in ranking_entry_details (docs/ranking-storage.md).
 */
export const rankingEntries = mysqlTable(
  'ranking_entries',
  {
    idPessoa: int('id_pessoa').primaryKey(),
    nome: varchar('nome', { length: 300 }).notNull(),
    /** The name without accents, lower case: what the FULLTEXT name search matches. */
    nomeBusca: varchar('nome_busca', { length: 300 }).notNull(),
    posicao: int('posicao'),
    pontuacaoTotal: double('pontuacao_total').notNull(),
    blocoA: double('bloco_a').notNull(),
    blocoB: double('bloco_b').notNull(),
    blocoC: double('bloco_c').notNull(),
    blocoD: double('bloco_d').notNull(),
    blocoE: double('bloco_e').notNull(),
    ativo: boolean('ativo').notNull(),
    anosAtuacao: double('anos_atuacao').notNull(),
    coordenadorPpg: boolean('coordenador_ppg').notNull().default(false),
    tiposAtuacao: jsonText<string[]>('tipos_atuacao').notNull(),
    selos: jsonText<string[]>('selos').notNull(),
    /** The job run that last wrote the row (not indexed: nothing reads by it). */
    runId: varchar('run_id', { length: 64 }).notNull(),
    /**
     * What the row was built from (domain/ranking-fingerprint.ts): a run that computes the same
     * fingerprint leaves the row as it is. Null: always rewritten.
     */
    impressao: bytes('impressao', 'varbinary(16)'),
    /** The document version the row was built from (domain/ranking-fingerprint.ts#documentKey). */
    chaveDocumento: bytes('chave_documento', 'varbinary(16)'),
    /** The reference date the row was last written or found unchanged at: a run of that day need not read the document again. */
    verificadaEm: varchar('verificada_em', { length: 10 }),
    /** The row was written or moved since the stored pages were rendered: its page is rendered again. */
    paginaPendente: boolean('pagina_pendente').notNull().default(true),
  },
  (table) => [
    index('ranking_entries_posicao').on(table.posicao),
    index('ranking_entries_pagina_pendente').on(table.paginaPendente),
    // The filtered lists' indexes, in the ranking's order (ativo, then each block, DESC columns):
    // hand-written in migrations 0002 and 0025, as drizzle cannot express a descending column.
    index('ranking_entries_nome').on(table.nome),
    index('ranking_entries_total').on(table.pontuacaoTotal),
  ],
);

/**
 * The details of an entry, read only for the rows of a page: `detalhes` is the pass-through JSON
 * (several KB, spliced into responses unparsed), `complementos` the languages, degrees and
 * curriculum id that rules 3 and 4 may complete from the index (`{}` when complete),
 * `complementos_prontos` the complete ones in response form (spliced too; `id_cv` builds its url),
 * `revisao_documento` the
 * revision of the index document they were built from (docs/ranking-storage.md).
 */
export const rankingEntryDetails = mysqlTable('ranking_entry_details', {
  idPessoa: int('id_pessoa').primaryKey(),
  detalhes: jsonText<Record<string, unknown>>('detalhes').notNull(),
  complementos: jsonText<StoredComplements>('complementos')
    .notNull()
    .default(sql`'{}'`),
  complementosProntos: longtext('complementos_prontos'),
  idCv: text('id_cv'),
  revisaoDocumento: varchar('revisao_documento', { length: 48 }),
});

/** Seal codes per person (upper case), so a seal filter is an index lookup. */
export const rankingEntrySeals = mysqlTable(
  'ranking_entry_seals',
  {
    selo: varchar('selo', { length: 40 }).notNull(),
    idPessoa: int('id_pessoa').notNull(),
  },
  (table) => [primaryKey({ columns: [table.selo, table.idPessoa] }), index('ranking_entry_seals_pessoa').on(table.idPessoa)],
);

/**
 * The words of each entry's `nome_busca` (domain/text.ts#nameWords), so the name search finds words
 * the FULLTEXT index leaves out (under innodb_ft_min_token_size, 3 by default: `Li Wu`) by a prefix
 * range on `palavra` (docs/ranking-storage.md, "Name words"). Written with the entry, by the job.
 */
export const rankingNameWords = mysqlTable(
  'ranking_name_words',
  {
    idPessoa: int('id_pessoa').notNull(),
    palavra: varchar('palavra', { length: NAME_WORD_MAX }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.idPessoa, table.palavra] }), index('ranking_name_words_palavra').on(table.palavra)],
);

/**
 * The persons the run in progress has read from the index (only one runs at a time): at its end,
 * the entries of persons it did not read are gone from the index and are deleted.
 */
export const rankingRunPersons = mysqlTable('ranking_run_persons', {
  idPessoa: int('id_pessoa').primaryKey(),
});

/** One row per job run: the status record when no run is in progress, and the run history. */
export const rankingJobRuns = mysqlTable(
  'ranking_job_runs',
  {
    runId: varchar('run_id', { length: 64 }).primaryKey(),
    origem: varchar('origem', { length: 16 }).notNull(),
    limparAntes: boolean('limpar_antes').notNull(),
    estado: varchar('estado', { length: 16 }).notNull(),
    fase: varchar('fase', { length: 16 }).notNull(),
    processados: int('processados').notNull().default(0),
    total: int('total').notNull().default(0),
    iniciadoEm: datetime('iniciado_em', { fsp: 3, mode: 'date' }).notNull(),
    finalizadoEm: datetime('finalizado_em', { fsp: 3, mode: 'date' }),
    ultimoErro: text('ultimo_erro'),
  },
  (table) => [index('ranking_job_runs_started').on(table.iniciadoEm), index('ranking_job_runs_state').on(table.estado, table.finalizadoEm)],
);

/**
 * The unfiltered pages of the default size, rendered once per run after positions
 * (db/ranking-pages.ts): `respostaGzip` is the page's whole response, gzip-compressed, for a ranking
 * of `total` entries; `incompletos` where in the uncompressed response the entries that rules 3 and 4
 * may change at read time are (docs/ranking-storage.md).
 */
export const rankingPages = mysqlTable('ranking_pages', {
  pagina: int('pagina').primaryKey(),
  runId: varchar('run_id', { length: 64 }).notNull(),
  total: int('total').notNull(),
  cvBase: text('cv_base').notNull(),
  /** The reference date printed in the page's score breakdowns: pages of another date are all rendered again. */
  dataReferencia: varchar('data_referencia', { length: 10 }).notNull().default(''),
  respostaGzip: bytes('resposta_gzip', 'longblob').notNull(),
  incompletos: jsonText<unknown[]>('incompletos').notNull(),
});

/** The statistics record, computed once per run after positions, so requests never scan the ranking. */
export const rankingStatistics = mysqlTable('ranking_statistics', {
  id: tinyint('id').primaryKey(),
  runId: varchar('run_id', { length: 64 }).notNull(),
  calculadoEm: datetime('calculado_em', { fsp: 3, mode: 'date' }).notNull(),
  /** The run's reference date (`YYYY-MM-DD`): the reads put it in the stored score breakdowns (domain/ranking-row.ts#withReferenceDate). */
  dataReferencia: varchar('data_referencia', { length: 10 }),
  dados: jsonText<Record<string, unknown>>('dados').notNull(),
});

/**
 * Agent definitions (docs/agents.md). Ids are UUID v4 strings; names are unique in the database's
 * case-insensitive collation; `version` is the number of the newest row in agent_versions.
 * `model` and `working_directory` are null when the agent uses the service settings' defaults.
 */
export const agents = mysqlTable(
  'agents',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    name: varchar('name', { length: 100 }).notNull(),
    description: text('description').notNull(),
    model: varchar('model', { length: 100 }),
    instructions: mediumtext('instructions').notNull(),
    workingDirectory: varchar('working_directory', { length: 1000 }),
    permissionMode: varchar('permission_mode', { length: 32 }).notNull().default('bypassPermissions'),
    /** 0: no turn limit (no `--max-turns`). */
    maxTurns: int('max_turns').notNull(),
    /** The panel's labels: strings of 1-50 characters, at most 20 (docs/agents.md). */
    tags: jsonText<string[]>('tags')
      .notNull()
      .default(sql`('[]')`),
    /** `active` or `inactive`: an inactive agent is not executed. */
    status: varchar('status', { length: 16 }).$type<'active' | 'inactive'>().notNull().default('active'),
    /** Claude Code's `--allowedTools`, comma-separated as the panel edits it; '' allows the mode's default. */
    allowedTools: varchar('allowed_tools', { length: 2000 }).notNull().default(''),
    /** A failed run is tried again, at most `max_retries` more times (workflows/agents/execution.ts). */
    retryOnFailure: boolean('retry_on_failure').notNull().default(false),
    maxRetries: int('max_retries').notNull().default(3),
    /** The agent a completed run's result is handed to; null: none. */
    delegateTo: varchar('delegate_to', { length: 36 }),
    /** The panel's `config.timeout`: how long one run may take, in ms (1 s..24 h); null: AGENT_RUN_TIMEOUT_SECONDS. */
    timeoutMs: int('timeout_ms'),
    /** The panel's `config.dailyBudgetUsd`: what this agent's runs may cost per UTC day (docs/budgets.md); null: no budget of its own. */
    dailyBudgetUsd: double('daily_budget_usd'),
    /** The coding-agent CLI it runs (domain/agent-clis.ts); agents stored before the choice ran Claude Code. */
    cli: varchar('cli', { length: 16 }).$type<AgentCliName>().notNull().default('claude-code'),
    version: int('version').notNull().default(1),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
    updatedAt: datetime('updated_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [uniqueIndex('agents_name').on(table.name)],
);

/** Every version of an agent's data, 1..n; written with the change that made it (docs/agents.md). */
export const agentVersions = mysqlTable(
  'agent_versions',
  {
    agentId: varchar('agent_id', { length: 36 })
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    version: int('version').notNull(),
    data: jsonText<AgentData>('data').notNull(),
    /** What the change was, for the versions list ("Criado", "Atualizado: model, tags", "Restaurado para versão 3": domain/agent-changelog.ts). */
    changelog: varchar('changelog', { length: 500 }).notNull().default(''),
    /** The agent fields this version changed (the data's keys). */
    changedFields: jsonText<string[]>('changed_fields')
      .notNull()
      .default(sql`('[]')`),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.agentId, table.version] })],
);

/**
 * Secrets of an agent, AES-256-GCM encrypted (lib/secret-box.ts): the value never stored in clear.
 * Names are case-sensitive, as the environment variables they become.
 */
export const agentSecrets = mysqlTable(
  'agent_secrets',
  {
    agentId: varchar('agent_id', { length: 36 })
      .notNull()
      .references(() => agents.id, { onDelete: 'cascade' }),
    name: caseSensitiveVarchar('name', 128).notNull(),
    ciphertext: bytes('ciphertext', 'mediumblob').notNull(),
    iv: bytes('iv', 'varbinary(16)').notNull(),
    authTag: bytes('auth_tag', 'varbinary(16)').notNull(),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.agentId, table.name] })],
);

/**
 * One row per agent or pipeline execution (docs/executions.md). No foreign key to agents: the
 * record outlives its agent, so `agent_name` is a snapshot taken at start. `output` is bounded by
 * the writer (db/executions-store.ts, OUTPUT_MAX_CHARS); `output_truncated` says the cap was hit.
 */
export const executions = mysqlTable(
  'executions',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    kind: varchar('kind', { length: 16 }).$type<ExecutionKind>().notNull(),
    agentId: varchar('agent_id', { length: 36 }),
    agentName: varchar('agent_name', { length: 100 }).notNull(),
    pipelineId: varchar('pipeline_id', { length: 36 }),
    status: varchar('status', { length: 24 }).$type<ExecutionStatus>().notNull(),
    source: varchar('source', { length: 16 }).$type<ExecutionSource>().notNull(),
    scheduleId: varchar('schedule_id', { length: 36 }),
    clientId: varchar('client_id', { length: 128 }),
    task: mediumtext('task').notNull(),
    instructions: mediumtext('instructions').notNull(),
    workingDirectory: varchar('working_directory', { length: 1000 }).notNull(),
    model: varchar('model', { length: 100 }).notNull(),
    /** An agent run's CLI, the agent's `cli` when the record was created (a continue or retry: its parent's); null for a pipeline run. */
    cli: varchar('cli', { length: 16 }).$type<AgentCliName>().default('claude-code'),
    sessionId: varchar('session_id', { length: 128 }),
    parentExecutionId: varchar('parent_execution_id', { length: 36 }),
    /** The session a `continue` execution resumed. */
    parentSessionId: varchar('parent_session_id', { length: 128 }),
    /** The execution whose result this one was delegated from (config.delegateTo), and how deep the chain is (0: not delegated). */
    delegatedFrom: varchar('delegated_from', { length: 36 }),
    delegationDepth: int('delegation_depth').notNull().default(0),
    /** The answer: the CLI's `result` event text (else the assistant's text); null until completed. */
    result: mediumtext('result'),
    /** The agent process's exit code, when it exited. */
    exitCode: int('exit_code'),
    /** Runs of this record so far (1 + retries on failure, config.retryOnFailure). */
    attempt: int('attempt').notNull().default(1),
    /** A pipeline step's agent execution: the pipeline run it belongs to and its 0-based step (docs/pipelines.md). */
    pipelineExecutionId: varchar('pipeline_execution_id', { length: 36 }),
    stepIndex: int('step_index'),
    /** A pipeline run that failed: the 0-based step, and the input that step was given (resume starts there). */
    failedAtStep: int('failed_at_step'),
    lastStepInput: mediumtext('last_step_input'),
    /** A resumed pipeline run: the run it resumes and the step it starts at. */
    resumedFrom: varchar('resumed_from', { length: 36 }),
    resumedAtStep: int('resumed_at_step'),
    /** The webhook whose call started it (source `webhook` or `webhook-test`). */
    webhookId: varchar('webhook_id', { length: 36 }),
    /** A run in a repository (docs/repositories.md): its name, the branch checked out, the commit pushed at the end. */
    repoName: varchar('repo_name', { length: 100 }),
    repoBranch: varchar('repo_branch', { length: 255 }),
    repoCommit: varchar('repo_commit', { length: 64 }),
    /** The uploaded files named in the prompt (docs/uploads.md): ids of `uploads` rows, as sent back by POST /uploads. */
    contextFiles: jsonText<StoredContextFile[] | null>('context_files'),
    /** The agents host the run is pinned to (`agent_hosts.name`), set when it takes its slot (docs/multi-host.md). */
    host: varchar('host', { length: 128 }),
    /** Tokens as the CLI's `result` event reports them; null when it did not. */
    inputTokens: int('input_tokens'),
    outputTokens: int('output_tokens'),
    cacheReadTokens: int('cache_read_tokens'),
    cacheCreationTokens: int('cache_creation_tokens'),
    costUsd: double('cost_usd'),
    durationMs: int('duration_ms'),
    turns: int('turns'),
    output: mediumtext('output').notNull().default(''),
    outputTruncated: boolean('output_truncated').notNull().default(false),
    /** The `seq` of the last live output chunk contained in `output` (docs/websocket.md, "Catching up"). */
    outputSeq: int('output_seq').notNull().default(0),
    /** When the waiter of a queued record last looked for a slot (db/execution-slots.ts); null before it starts. */
    waitingHeartbeatAt: datetime('waiting_heartbeat_at', { fsp: 3, mode: 'date' }),
    /**
     * The attempt whose agent process was started, set just before the start: a delivery of the run
     * that finds its attempt here knows the agent already ran, and starts no second one.
     */
    agentStartedAttempt: int('agent_started_attempt'),
    error: text('error'),
    reportFile: varchar('report_file', { length: 255 }),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
    startedAt: datetime('started_at', { fsp: 3, mode: 'date' }),
    finishedAt: datetime('finished_at', { fsp: 3, mode: 'date' }),
  },
  (table) => [
    // History pages are newest first, alone or under one equality filter: each filter leads an
    // index that continues in the page order, so a page reads its rows and stops.
    index('executions_created').on(table.createdAt, table.id),
    index('executions_status_created').on(table.status, table.createdAt),
    index('executions_agent_created').on(table.agentId, table.createdAt),
    index('executions_pipeline_created').on(table.pipelineId, table.createdAt),
    index('executions_source_created').on(table.source, table.createdAt),
    index('executions_schedule_created').on(table.scheduleId, table.createdAt),
    index('executions_pipeline_run_step').on(table.pipelineExecutionId, table.stepIndex),
    // A finished run with config.delegateTo looks up whether it delegated already (delegatedExecutionOf).
    index('executions_delegated_from').on(table.delegatedFrom),
    // The statistics (db/stats-queries.ts) read a window of created_at and group it: with every column
    // they read in the index, a window is one range of it, never a lookup of each row's clustered key
    // (random UUIDs: 0.5 s for 30 days of 100 000 records; docs/benchmarks.md, bench:files).
    index('executions_stats').on(
      table.createdAt,
      table.kind,
      table.status,
      table.pipelineExecutionId,
      table.agentId,
      table.pipelineId,
      table.agentName,
      table.costUsd,
      table.inputTokens,
      table.outputTokens,
      table.cacheReadTokens,
      table.cacheCreationTokens,
    ),
  ],
);

/**
 * The attempts of an agent record that ran more than once (`retryOnFailure`; docs/executions.md,
 * "Attempts"), one row each, written as they end: what each cost, so the record's `cost_usd` (their
 * sum) and the day's counters count every attempt, and the detail lists them. A record run once has a
 * row only when its failed attempt reported a cost; its detail's one attempt is the record itself.
 */
export const executionAttempts = mysqlTable(
  'execution_attempts',
  {
    executionId: varchar('execution_id', { length: 36 })
      .notNull()
      .references(() => executions.id, { onDelete: 'cascade' }),
    /** 1 for the first run. */
    attempt: int('attempt').notNull(),
    /** How the attempt ended (`error` for one retried); null while only its cost is known (the run activity wrote it). */
    status: varchar('status', { length: 24 }).$type<ExecutionStatus>(),
    error: text('error'),
    /** What the attempt cost (the CLI's report, or its tokens priced); null: nothing reported. */
    costUsd: double('cost_usd'),
    /** The cost is in `agent_daily_costs` already: added once, by whichever step recorded the attempt's end first. */
    counted: boolean('counted').notNull().default(false),
    startedAt: datetime('started_at', { fsp: 3, mode: 'date' }),
    endedAt: datetime('ended_at', { fsp: 3, mode: 'date' }),
  },
  (table) => [primaryKey({ columns: [table.executionId, table.attempt] })],
);

/** Notifications polled by the panel (docs/reports-notifications-settings.md); newest first. */
export const notifications = mysqlTable(
  'notifications',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    kind: varchar('kind', { length: 32 }).notNull(),
    title: varchar('title', { length: 200 }).notNull(),
    message: text('message').notNull(),
    executionId: varchar('execution_id', { length: 36 }),
    read: boolean('read').notNull().default(false),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [index('notifications_created').on(table.createdAt, table.id), index('notifications_read').on(table.read)],
);

/** Saved task templates (contract 3.4; docs/tasks-schedules.md). */
export const tasks = mysqlTable(
  'tasks',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    name: varchar('name', { length: 200 }).notNull(),
    category: varchar('category', { length: 32 }).notNull().default(''),
    description: text('description').notNull(),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
    updatedAt: datetime('updated_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [index('tasks_created').on(table.createdAt)],
);

/**
 * Cron schedules of an agent's task (contract 3.5; docs/tasks-schedules.md): each one is a Temporal
 * Schedule whose id is derived from this row's id; the row is the source of truth, reconciled with
 * Temporal when the agents worker starts.
 */
export const schedules = mysqlTable(
  'schedules',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    agentId: varchar('agent_id', { length: 36 }).notNull(),
    taskId: varchar('task_id', { length: 36 }),
    taskDescription: mediumtext('task_description').notNull(),
    cronExpression: varchar('cron_expression', { length: 100 }).notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
    updatedAt: datetime('updated_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [index('schedules_agent').on(table.agentId)],
);

/** A pipeline's step as stored (contract 5.4). */
export interface StoredPipelineStep {
  id: string;
  agentId: string;
  order: number;
  inputTemplate: string | null;
  description: string;
  requiresApproval: boolean;
  /** How long an approval of this step is awaited before the run ends `rejected`; absent: the default (docs/pipelines.md). */
  approvalTimeoutSeconds?: number | null;
}

/** Pipelines of agent steps (contract 3.6; docs/pipelines.md); the steps are small and read whole, so they live in the row. */
export const pipelines = mysqlTable(
  'pipelines',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    name: varchar('name', { length: 200 }).notNull(),
    description: text('description').notNull(),
    workingDirectory: varchar('working_directory', { length: 1000 }),
    status: varchar('status', { length: 16 }).notNull().default('active'),
    steps: jsonText<StoredPipelineStep[]>('steps').notNull(),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
    updatedAt: datetime('updated_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [index('pipelines_created').on(table.createdAt)],
);

/** Webhooks (contract 3.7; docs/webhooks.md): a public token that starts an agent or a pipeline. */
export const webhooks = mysqlTable(
  'webhooks',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    name: varchar('name', { length: 200 }).notNull(),
    targetType: varchar('target_type', { length: 16 }).$type<'agent' | 'pipeline'>().notNull(),
    targetId: varchar('target_id', { length: 36 }).notNull(),
    token: varchar('token', { length: 64 }).notNull(),
    active: boolean('active').notNull().default(true),
    /** Optional per-webhook signing secret, AES-256-GCM encrypted like the agents' secrets. */
    secretCiphertext: bytes('secret_ciphertext', 'mediumblob'),
    secretIv: bytes('secret_iv', 'varbinary(16)'),
    secretAuthTag: bytes('secret_auth_tag', 'varbinary(16)'),
    lastTriggeredAt: datetime('last_triggered_at', { fsp: 3, mode: 'date' }),
    triggerCount: int('trigger_count').notNull().default(0),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
    updatedAt: datetime('updated_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [uniqueIndex('webhooks_token').on(table.token)],
);

/** A context file as an execution record keeps it (the upload answer's shape, contract 3.13). */
export interface StoredContextFile {
  originalName: string;
  path: string;
  size: number;
}

/**
 * Files received by POST /uploads (docs/uploads.md): an execute accepts as `contextFiles` only paths
 * stored here; removed after the retention period with their files.
 */
export const uploads = mysqlTable(
  'uploads',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    /** One POST's files share it (the answer's `sessionId`). */
    batchId: varchar('batch_id', { length: 36 }).notNull(),
    path: varchar('path', { length: 1000 }).notNull(),
    originalName: varchar('original_name', { length: 255 }).notNull(),
    size: int('size').notNull(),
    clientId: varchar('client_id', { length: 128 }),
    createdAt: datetime('created_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [index('uploads_created').on(table.createdAt), index('uploads_batch').on(table.batchId)],
);

/**
 * The agents hosts (docs/multi-host.md): each agents worker registers its host name and the roots of
 * working directories it holds, and marks itself alive every few seconds. A run is pinned to a live
 * host whose roots hold its working directory; its disk-bound activities go to that host's queue.
 */
export const agentHosts = mysqlTable('agent_hosts', {
  name: varchar('name', { length: 128 }).primaryKey(),
  roots: jsonText<string[]>('roots').notNull(),
  startedAt: datetime('started_at', { fsp: 3, mode: 'date' }).notNull(),
  seenAt: datetime('seen_at', { fsp: 3, mode: 'date' }).notNull(),
  /** Its worker drains after SIGTERM: alive for its running runs, chosen for a new run only when no other live host holds its directory. */
  draining: boolean('draining').notNull().default(false),
});

/** Each call of a webhook: who, when, which run; a delivery id is accepted once (replay protection). */
export const webhookDeliveries = mysqlTable(
  'webhook_deliveries',
  {
    id: varchar('id', { length: 36 }).primaryKey(),
    webhookId: varchar('webhook_id', { length: 36 })
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    /** The caller's delivery id (X-GitHub-Delivery or X-Webhook-Delivery); null when none was sent. */
    deliveryId: varchar('delivery_id', { length: 200 }),
    caller: varchar('caller', { length: 100 }).notNull(),
    /** The run this call starts: its id is chosen when the call is recorded, before the run exists (docs/webhooks.md "Deliveries"). */
    executionId: varchar('execution_id', { length: 36 }),
    /**
     * Why the call started nothing: `budget` (a daily budget was exhausted: 409; docs/budgets.md) or
     * `not_started` (the start failed: 503); null: it started, or is starting, its run.
     */
    refused: varchar('refused', { length: 20 }),
    /** Counted in the webhook's `triggerCount`: once per delivery, whatever number of calls it took. */
    counted: boolean('counted').notNull().default(false),
    receivedAt: datetime('received_at', { fsp: 3, mode: 'date' }).notNull(),
  },
  (table) => [
    uniqueIndex('webhook_deliveries_once').on(table.webhookId, table.deliveryId),
    index('webhook_deliveries_received').on(table.webhookId, table.receivedAt),
  ],
);

/**
 * What the agent records started on a UTC day cost, per agent (`''`: a record without one): the sum of
 * their `cost_usd`, each attempt's added on the day it started, in the transaction that records it
 * (db/executions-store.ts finishExecution, db/execution-attempts.ts), so the daily budgets' check at
 * each run start reads at most one row per agent instead of the day's records (docs/budgets.md).
 */
export const agentDailyCosts = mysqlTable(
  'agent_daily_costs',
  {
    day: date('day', { mode: 'string' }).notNull(),
    agentId: varchar('agent_id', { length: 36 }).notNull(),
    costUsd: double('cost_usd').notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.day, table.agentId] })],
);
