import { AGENT_CLI_NAMES } from '../../domain/agent-clis';
import { z } from 'zod';
import type { agentIsolationSummary } from '../../lib/agent-isolation';
import { isoDateTime } from '../../services/view-schema';
import { systemCountersSchema } from '../../services/system';
import type { DependencyStatus } from '../dependency-status';
import { jsonAnswer, type OperationSpec } from '../openapi/operation';

/** The system's operations (api/orchestration/system.ts) as the OpenAPI document describes them; the answers are written by the routes. */
const tags = ['Sistema'];

const dependencyStatusSchema = z.object({
  status: z.enum(['up', 'down']),
  latencyMs: z.number().meta({ description: 'Ida e volta da verificação, em ms (duas casas)' }),
  error: z.string().optional().meta({ description: 'Por que falhou; só quando `down`' }),
}) satisfies z.ZodType<DependencyStatus>;

/** GET /api/system/status: the dependencies, then the counters (left out while MySQL is down, or when counting failed). */
const systemStatusSchema = z
  .object({
    status: z.enum(['ok', 'degraded']).meta({ description: '`ok` quando todas as dependências estão de pé' }),
    checkedAt: isoDateTime,
    dependencies: z.object({
      mysql: dependencyStatusSchema,
      redis: dependencyStatusSchema,
      elasticsearch: dependencyStatusSchema,
      temporal: dependencyStatusSchema,
    }),
    ...systemCountersSchema.partial().shape,
  })
  .meta({
    id: 'SystemStatus',
    description: 'Os contadores (agents ... costs) ficam de fora enquanto o MySQL está fora do ar, ou se a contagem falhar',
  });

const AGENT_ISOLATION_MODES = ['user-pool', 'service-user', 'refused'] as const;
const agentIsolationSchema = z.object({
  mode: z
    .enum(AGENT_ISOLATION_MODES)
    .meta({ description: 'user-pool: cada execução usa um usuário do pool; service-user: o do serviço; refused: nenhum agente roda' }),
  reason: z.string(),
}) satisfies z.ZodType<ReturnType<typeof agentIsolationSummary>>;

const mib = z.number().meta({ description: 'MiB, uma casa' });
const systemInfoSchema = z
  .object({
    serverVersion: z.string().meta({ description: 'A versão do serviço (package.json)' }),
    nodeVersion: z.string(),
    claudeVersion: z.string().meta({ description: "A primeira linha de `<AGENT_COMMAND> --version` do CLI instalado, ou 'N/A'" }),
    uptime: z.number().int().meta({ description: 'Segundos inteiros desde o início do processo' }),
    service: z.object({ name: z.string(), version: z.string() }),
    node: z.string(),
    platform: z.string().meta({ description: '`<plataforma> <arquitetura>`' }),
    pid: z.number().int(),
    uptimeSeconds: z.number().int(),
    memoryMiB: z.object({ rss: mib, heapUsed: mib, heapTotal: mib, external: mib }).meta({ description: 'A memória deste processo' }),
    activeExecutions: z.number().int().meta({ description: 'Registros em fila ou em execução (todos os processos)' }),
    agentIsolation: agentIsolationSchema.meta({ description: 'Como os agentes rodam nesta máquina (docs/agent-process.md)' }),
    agentClis: z
      .array(
        z.object({
          cli: z.enum(AGENT_CLI_NAMES),
          label: z.string(),
          command: z.string(),
          version: z.string().meta({ description: "A primeira linha de `<comando> --version`, ou 'N/A'" }),
        }),
      )
      .meta({ description: 'Cada CLI que um agente pode rodar (config.cli; docs/agent-clis.md)' }),
  })
  .meta({ id: 'SystemInfo' });

const budgets = { day: '2026-11-21', resetsAt: '2026-11-22T00:00:00.000Z', global: null, agents: [] };
const statusExample = {
  status: 'degraded',
  checkedAt: '2026-11-21T12:00:00.000Z',
  dependencies: {
    mysql: { status: 'up', latencyMs: 0.61 },
    redis: { status: 'up', latencyMs: 0.32 },
    elasticsearch: { status: 'up', latencyMs: 1.87 },
    temporal: { status: 'down', latencyMs: 2001.4, error: 'temporal timed out after 2000 ms' },
  },
  agents: { total: 4, active: 4, inactive: 0 },
  executions: { active: 1, today: 12 },
  schedules: { total: 2, active: 1 },
  pipelines: { total: 1, active: 1, running: 0 },
  webhooks: { total: 1, active: 1 },
  costs: { today: 0.1235, budgets },
};
const infoExample = {
  serverVersion: '0.1.0',
  nodeVersion: 'v20.19.0',
  claudeVersion: '2.1.331 (Claude Code)',
  uptime: 3600,
  service: { name: 'consultores-agentes', version: '0.1.0' },
  node: 'v20.19.0',
  platform: 'linux x64',
  pid: 4242,
  uptimeSeconds: 3600,
  memoryMiB: { rss: 180.2, heapUsed: 60.1, heapTotal: 80, external: 4.3 },
  activeExecutions: 3,
  agentIsolation: {
    mode: 'user-pool',
    reason: 'cada execução reserva um dos 5 usuários sem privilégios agentrunN (grupo agents), um por execução simultânea',
  },
  agentClis: [
    {
      cli: 'claude-code',
      label: 'Claude Code',
      command: '/app/node_modules/@anthropic-ai/claude-code-linux-x64/claude',
      version: '2.1.331 (Claude Code)',
    },
    {
      cli: 'codex',
      label: 'OpenAI Codex CLI',
      command: '/app/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex',
      version: 'codex-cli 0.169.0',
    },
    { cli: 'gemini', label: 'Google Gemini CLI', command: '/app/node_modules/@google/gemini-cli/bundle/gemini.js', version: '0.61.0' },
  ],
};

export const systemOperations: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/system/status',
    operationId: 'getSystemStatus',
    summary: 'Cada dependência (de pé ou não, com a latência) e os contadores do painel',
    description:
      'Sempre 200 enquanto o processo responde: `status` é `degraded` quando alguma dependência está fora do ar (docs/system-status.md).',
    tags,
    responses: { 200: jsonAnswer('O estado do sistema', systemStatusSchema, statusExample) },
  },
  {
    method: 'get',
    path: '/api/system/info',
    operationId: 'getSystemInfo',
    summary: 'Versões, tempo no ar, memória, execuções ativas e como os agentes rodam',
    tags,
    responses: { 200: jsonAnswer('As informações do sistema', systemInfoSchema, infoExample) },
  },
];
