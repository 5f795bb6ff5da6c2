import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { repoRoot } from './paths';
import { defaultAgentCommand, defaultCodexCommand, defaultGeminiCommand } from './agent-command';
import { refusedRootReason } from './workdir-roots';
import { normaliseWorkingDirectory, WorkingDirectoryError } from './working-directories';
import {
  elasticsearchSettings,
  MYSQL_SSL_MODES,
  mysqlTls,
  redisSettings,
  SettingProblem,
  temporalSettings,
  type ElasticsearchSettings,
  type MysqlTls,
  type RedisSettings,
  type TemporalSettings,
} from './connection-settings';
import { AGENT_MODEL_SECRETS, resolveSecretFiles, type SecretSetting } from './secret-files';
import { productionProblems, plainConnectionWarnings } from './production-rules';
import { parseTrustProxy, TrustProxyError, type TrustProxy } from './trust-proxy';

/**
 * The one place that reads the environment. Every variable is validated when the
 * module loads, so a bad setting stops the process at start with a message naming it.
 * Defaults match scripts/stack/env.sh (the local stack) and are documented in README.md.
 */

const port = z.coerce.number().int().min(1).max(65535);
const positiveInt = z.coerce.number().int().positive();
const flag = z.enum(['true', 'false', '1', '0']).transform((value) => value === 'true' || value === '1');
const filePath = z.string().min(1).max(4096);
const commaList = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** An agents host's name: it is part of a task-queue name. */
export const AGENT_HOST_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),

  HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  HTTP_PORT: port.default(3000),
  /**
   * Where a process without the `api` role serves `GET /metrics` (on HTTP_HOST): 9464, the port
   * Prometheus exporters commonly take; two worker processes on one host need one each (docs/observability.md).
   */
  METRICS_PORT: port.default(9464),
  /**
   * Off: no `/metrics`, no request timing, no live-output delay and no SDK exporter (the counters still
   * count, unread). For `npm run bench:metrics`, which measures what the metrics cost; on in production.
   */
  METRICS_ENABLED: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .transform((value) => value === 'true' || value === '1'),
  /** The bound on a shutdown once its drains are over (docs/probes-and-drains.md). */
  SHUTDOWN_TIMEOUT_MS: positiveInt.max(600_000).default(15_000),
  /**
   * The API's drain on SIGTERM: /readyz answers 503 at once and requests are served this long more,
   * while load balancers stop sending; then the server closes (docs/probes-and-drains.md).
   */
  DRAIN_DELAY_MS: z.coerce.number().int().min(0).max(300_000).default(5_000),
  /**
   * How long a stopping worker lets its running activities finish before the SDK cancels them
   * (Temporal's shutdownGraceTime): below SHUTDOWN_TIMEOUT_MS, which bounds it. Default: two thirds of it.
   */
  WORKER_SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).optional(),
  /** How long a stopping agents worker lets its running agent runs finish. Default: the run time limit (AGENT_RUN_TIMEOUT_SECONDS). */
  AGENT_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).max(86_400_000).optional(),

  MYSQL_HOST: z.string().min(1).default('127.0.0.1'),
  MYSQL_PORT: port.default(3307),
  MYSQL_USER: z.string().min(1).default('app'),
  MYSQL_PASSWORD: z.string().default('app'),
  MYSQL_DATABASE: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,64}$/, 'letters, digits and underscores only (at most 64)')
    .default('consultores'),
  MYSQL_POOL_SIZE: positiveInt.default(10),
  /** A Unix socket instead of host and port (a server on this machine, a Cloud SQL proxy). */
  MYSQL_SOCKET_PATH: filePath.optional(),
  /** The MySQL client's own words, any case (docs/connections.md). */
  MYSQL_SSL_MODE: z
    .string()
    .transform((value) => value.toUpperCase())
    .pipe(z.enum(MYSQL_SSL_MODES as [string, ...string[]]))
    .default('DISABLED'),
  MYSQL_SSL_CA_FILE: filePath.optional(),
  MYSQL_SSL_CERT_FILE: filePath.optional(),
  MYSQL_SSL_KEY_FILE: filePath.optional(),

  REDIS_HOST: z.string().min(1).default('127.0.0.1'),
  REDIS_PORT: port.default(6380),
  REDIS_KEY_PREFIX: z.string().default('app:'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/[^\s]+$/, 'a redis:// or rediss:// URL')
    .refine((value) => URL.canParse(value), 'a redis:// or rediss:// URL')
    .optional(),
  REDIS_USERNAME: z.string().min(1).max(256).optional(),
  REDIS_PASSWORD: z.string().min(1).max(4096).optional(),
  REDIS_DB: z.coerce.number().int().min(0).max(10_000).optional(),
  REDIS_TLS: flag.optional(),
  REDIS_TLS_CA_FILE: filePath.optional(),
  REDIS_TLS_SERVERNAME: z.string().min(1).max(253).optional(),
  /** Sentinels, `host:port,host:port`: the primary named REDIS_SENTINEL_NAME is asked of them. */
  REDIS_SENTINELS: z
    .string()
    .transform((value, context) => hostPorts(value, context))
    .optional(),
  REDIS_SENTINEL_NAME: z.string().min(1).max(256).optional(),
  REDIS_SENTINEL_PASSWORD: z.string().min(1).max(4096).optional(),

  ELASTICSEARCH_PORT: port.default(9201),
  /** One node or several, comma-separated. */
  ELASTICSEARCH_URL: z
    .string()
    .transform(commaList)
    .pipe(z.array(z.url({ protocol: /^https?$/ })).min(1))
    .optional(),
  ELASTICSEARCH_INDEX_PREFIX: z
    .string()
    .regex(/^[a-z0-9_-]*$/, 'lower-case letters, digits, "_" and "-" only')
    .default(''),
  ELASTICSEARCH_API_KEY: z.string().min(1).max(4096).optional(),
  ELASTICSEARCH_USERNAME: z.string().min(1).max(1024).optional(),
  ELASTICSEARCH_PASSWORD: z.string().min(1).max(4096).optional(),
  ELASTICSEARCH_CLOUD_ID: z
    .string()
    .regex(/^[^:\s]*:[A-Za-z0-9+/=]+$/, 'an Elastic Cloud ID (name:base64)')
    .optional(),
  ELASTICSEARCH_CA_FILE: filePath.optional(),
  ELASTICSEARCH_CA_FINGERPRINT: z
    .string()
    .regex(/^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$/, 'a SHA-256 fingerprint (64 hexadecimal digits, colons allowed)')
    .optional(),

  // Temporal's connection (address, namespace, TLS, API key) is read by @temporalio/envconfig (lib/connection-settings.ts).
  TEMPORAL_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_ADDRESS: z.string().min(1).max(1024).optional(),
  TEMPORAL_UI_URL: z.url().optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).max(1024).optional(),
  TEMPORAL_API_KEY: z.string().min(1).max(16_384).optional(),
  TEMPORAL_TLS: flag.optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: filePath.optional(),
  TEMPORAL_TLS_CLIENT_KEY_PATH: filePath.optional(),
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: filePath.optional(),
  TEMPORAL_TLS_SERVER_NAME: z.string().min(1).max(253).optional(),
  TEMPORAL_PROFILE: z.string().min(1).max(256).optional(),
  TEMPORAL_CONFIG_FILE: filePath.optional(),

  DEPENDENCY_TIMEOUT_MS: positiveInt.default(2_000),

  /** Base address of external curriculum pages: a cv url is `<CV_BASE_URL>/<id_cv>`. */
  CV_BASE_URL: z.url().default('https://cv.example.org/curriculo'),

  RANKING_SCHEDULE_TIMEZONE: z.string().refine(isTimeZone, 'an IANA time zone such as America/Sao_Paulo').default('America/Sao_Paulo'),

  /** How often the reconcilers (one long-lived workflow each, docs/observability.md) look for records whose workflow is gone (docs/agent-executions.md). */
  RECONCILE_INTERVAL_SECONDS: positiveInt.max(3_600).default(60),

  /** The Chromium that renders the PDF sheets (never downloaded: the system's browser). */
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /**
   * Chromium's own sandbox around the PDF renderer. `off` where the container is the boundary (the
   * image sets it, docs/image.md: Docker's default seccomp profile refuses the namespaces the sandbox
   * needs; the page is the service's own HTML, whose CSP forbids every fetch). Root never has it:
   * Chromium refuses to start as root with it.
   */
  CHROMIUM_SANDBOX: z.enum(['on', 'off']).default('on'),
  /** PDF documents rendered at once by the one browser of a process; the others wait. */
  PDF_CONCURRENCY: positiveInt.max(32).default(3),
  /** Documents a browser renders before it is replaced by a fresh one. */
  PDF_RESTART_AFTER: positiveInt.default(500),
  /** Bound of each step of a PDF render (browser start, page load, printing). */
  PDF_TIMEOUT_MS: positiveInt.default(30_000),
  /** Sheets that may wait for a place beyond those rendering; further requests answer 503 at once (docs/pdf.md). */
  PDF_QUEUE_LIMIT: z.coerce.number().int().min(0).default(30),
  /** PDF sheets per client address and window (Redis-backed, shared by all API processes). */
  PDF_RATE_LIMIT_REQUESTS: positiveInt.default(60),
  PDF_RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  /** POST /api/v1/ranking/processar per client address and window (Redis-backed). */
  RANKING_JOB_RATE_LIMIT_REQUESTS: positiveInt.default(10),
  RANKING_JOB_RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),

  /** When set, every /api request and the WebSocket must present it (docs/orchestration-security.md). */
  AUTH_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /** Origins allowed to call the API from a browser, comma-separated (`*`: any); empty: same origin only. */
  CORS_ORIGINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    ),
  /**
   * Which reverse proxies' X-Forwarded-* headers are believed (lib/trust-proxy.ts, docs/orchestration-security.md):
   * unset, a peer on loopback or a private range; `false`; `true` (every hop); a hop count (`2`); or
   * addresses and CIDR ranges, comma-separated (`10.0.0.0/8,fd00::/8`), the only form whose proxies'
   * X-Forwarded-Host is honoured.
   */
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, context) => {
      try {
        return parseTrustProxy(value);
      } catch (error) {
        if (!(error instanceof TrustProxyError)) throw error;
        context.addIssue({ code: 'custom', message: error.message });
        return z.NEVER;
      }
    }),
  /** Requests per client address and window on /api (Redis-backed, shared by all API processes). */
  RATE_LIMIT_REQUESTS: positiveInt.default(600),
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  /** Requests per client address and window on the public /hook/:token (the legacy server's 30 a minute; docs/webhooks.md). */
  HOOK_RATE_LIMIT_REQUESTS: positiveInt.default(30),
  HOOK_RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  /** When set, every /hook call must be signed with it (X-Hub-Signature-256), as in the legacy server. */
  WEBHOOK_SECRET: z.string().min(1).max(1_000).optional(),
  /** Host names the service answers to (DNS rebinding), comma-separated; `*`: any. Default: loopback names and HTTP_HOST. */
  ALLOWED_HOSTS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((host) => host.trim().toLowerCase())
        .filter(Boolean),
    ),
  /** Open WebSockets per client address; further handshakes are refused with 429. */
  WEBSOCKET_MAX_SOCKETS_PER_CLIENT: positiveInt.default(32),
  /** A socket is pinged this often and closed when it missed the previous ping's pong. */
  WEBSOCKET_PING_INTERVAL_SECONDS: positiveInt.default(30),
  /** AES-256-GCM key of the agents' secrets: 64 hexadecimal characters (32 bytes). */
  AGENT_SECRETS_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, '64 hexadecimal characters (32 bytes)')
    .optional(),
  /** Unprivileged users the agents run as when the service is root (scripts/stack/agent-users.sh). */
  AGENT_USERS: positiveInt.max(999).default(20),
  /** The coding-agent command line tool and its adapter (activities/agents); default: the pinned Claude Code's binary (lib/agent-command.ts). */
  AGENT_COMMAND: z.string().min(1).optional(),
  /** Codex CLI's command, for agents whose `cli` is `codex`; default: the pinned @openai/codex's native binary (lib/agent-command.ts). */
  CODEX_COMMAND: z.string().min(1).optional(),
  /** Gemini CLI's command, for agents whose `cli` is `gemini`; default: the pinned @google/gemini-cli's script, run by the pinned Node. */
  GEMINI_COMMAND: z.string().min(1).optional(),
  /**
   * The operator's model prices, a JSON file shaped as lib/model-prices.json (docs/agent-clis.md, "Cost"):
   * its entries over the shipped table, for the runs whose CLI reports no cost. Read once by the agents
   * worker at its start, which refuses to start on a bad file; relative to the repository.
   */
  MODEL_PRICES_FILE: filePath.optional(),
  /** The service's data area (execution reports, default working directories); relative to the repository. */
  AGENT_DATA_DIR: z.string().min(1).default('.data'),
  /**
   * The external reports directory, which also receives every execution's Markdown report; relative
   * to the repository. Apart from the data area, as the specification keeps them ("inside the service
   * data area and in an external reports directory"): beside it, not in it. The agents worker makes it
   * at start (activities/agents/agent-host.ts).
   */
  AGENT_REPORTS_DIR: z.string().min(1).default('.reports'),
  /**
   * Files received by POST /api/uploads (docs/uploads.md); relative to the repository. Not inside the
   * data area: that one is closed to the agents' users (0700), and agents must read these files.
   */
  AGENT_UPLOADS_DIR: z.string().min(1).default('.uploads'),
  /** Upload limits (the panel's own: 10 MB a file, 20 files a request) and how long uploads are kept. */
  AGENT_UPLOAD_MAX_FILE_BYTES: positiveInt.max(1024 * 1024 * 1024).default(10 * 1024 * 1024),
  AGENT_UPLOAD_MAX_FILES: positiveInt.max(100).default(20),
  AGENT_UPLOADS_RETENTION_HOURS: positiveInt.max(24 * 365).default(24),
  /** Bounds of what the orchestration service stores; the oldest beyond a "kept" bound are pruned. */
  AGENTS_MAX: positiveInt.default(500),
  AGENT_VERSIONS_KEPT: positiveInt.default(50),
  /**
   * How long one agent run may take unless its agent sets `config.timeout` (docs/agents.md, "Time
   * limit"): the specification's 30 minutes; 1 s to 24 h like `config.timeout` (domain/run-limits.ts).
   */
  AGENT_RUN_TIMEOUT_SECONDS: positiveInt.max(86_400).default(1_800),
  /** A failed run of an agent with retryOnFailure is tried again after attempt × this many seconds (the legacy server's 5). */
  AGENT_RETRY_DELAY_SECONDS: positiveInt.max(3_600).default(5),
  /** Longest chain of delegations (config.delegateTo) started from one run: A → B → A stops there. */
  AGENT_DELEGATION_DEPTH_MAX: z.coerce.number().int().min(0).max(10).default(3),
  /** How long a pipeline run waits for an approval before it ends `rejected`, unless its step sets its own (docs/pipelines.md). */
  PIPELINE_APPROVAL_TIMEOUT_SECONDS: positiveInt.max(30 * 86_400).default(86_400),
  /** The IANA time zone agent schedules' cron expressions are read in (docs/tasks-schedules.md). */
  AGENT_SCHEDULE_TIMEZONE: z.string().refine(isTimeZone, 'an IANA time zone such as America/Sao_Paulo').default('America/Sao_Paulo'),
  REPORTS_KEPT: positiveInt.default(1000),
  NOTIFICATIONS_KEPT: positiveInt.default(1000),
  /**
   * Repositories an execution may work in (docs/repositories.md): a directory whose bare repositories
   * (`<name>.git` or `<name>`) are offered by name, and named remotes `name=url,name=url`; the
   * credentials below are given to git only for fetching from and pushing to those remotes.
   */
  GIT_REPOS_DIR: z.string().min(1).optional(),
  GIT_REMOTES: z
    .string()
    .default('')
    .transform((value, context) => gitRemotes(value, context)),
  /** Publishing a project also pushes its snapshot to `<this dir>/<project>.git` (created when missing; docs/files.md); unset: no push. */
  GIT_PUBLISH_DIR: z.string().min(1).optional(),
  /** The service's own bare mirror of each repository; the agents' users read it (so not in the 0700 data area). */
  GIT_MIRRORS_DIR: z.string().min(1).default('.git-mirrors'),
  GIT_USERNAME: z.string().min(1).max(200).optional(),
  GIT_PASSWORD: z.string().min(1).max(4096).optional(),
  /** Where working directories may lie, comma-separated absolute paths; the first is the default (the panel prefills /home/projetos/). */
  AGENT_WORKDIR_ROOTS: z
    .string()
    .default('/home/projetos')
    .transform((value, context) => workdirRoots(value, context)),

  /**
   * This machine's name among the agents hosts (docs/multi-host.md): an agents worker registers it with
   * its AGENT_WORKDIR_ROOTS and serves the task queue `agents-host-<name>`. Default: the host name.
   */
  AGENT_HOST: z.string().regex(AGENT_HOST_NAME, 'letters, digits, . _ - (at most 100)').optional(),

  /** The admin panel's static files, served at the site root (docs/admin-panel.md); unset: no panel. Relative to the repository. */
  PANEL_DIR: z.string().min(1).optional(),

  /** What this process runs: any of api, ranking-worker, agents-worker (comma-separated). */
  PROCESS_ROLES: z
    .string()
    .default('api,ranking-worker,agents-worker')
    .transform((value) =>
      value
        .split(',')
        .map((role) => role.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(['api', 'ranking-worker', 'agents-worker'])).min(1)),
});

function hostPorts(value: string, context: z.RefinementCtx): { host: string; port: number }[] {
  const nodes: { host: string; port: number }[] = [];
  for (const entry of commaList(value)) {
    const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(entry);
    const number = match ? Number(match[2]) : 0;
    if (!match || number < 1 || number > 65_535) context.addIssue({ code: 'custom', message: `"${entry}" is not host:port` });
    else nodes.push({ host: match[1]!.replace(/^\[|\]$/g, ''), port: number });
  }
  if (commaList(value).length === 0) context.addIssue({ code: 'custom', message: 'at least one host:port' });
  return nodes;
}

/** A repository name: what the panel sends back as `repoName` and the working copy's folder name. */
export const REPOSITORY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

function gitRemotes(value: string, context: z.RefinementCtx): { name: string; url: string }[] {
  const remotes: { name: string; url: string }[] = [];
  for (const entry of value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)) {
    const at = entry.indexOf('=');
    const name = entry.slice(0, at).trim();
    const url = entry.slice(at + 1).trim();
    if (
      at <= 0 ||
      !REPOSITORY_NAME.test(name) ||
      name.endsWith('.git') ||
      !/^(https?:\/\/|file:\/\/|\/)/.test(url) ||
      /^https?:\/\/[^/]*@/.test(url)
    ) {
      context.addIssue({
        code: 'custom',
        message: `"${entry}" is not name=url (a name of letters, digits, . _ -; an http(s), file:// or absolute URL without credentials)`,
      });
      continue;
    }
    remotes.push({ name, url });
  }
  return remotes;
}

/** An http:// URL to another machine: credentials sent there cross the network unencrypted. */
function cleartextRemote(url: string): boolean {
  const match = /^http:\/\/([^/:]+|\[[^\]]+\])/i.exec(url);
  return match !== null && !['127.0.0.1', 'localhost', '[::1]'].includes(match[1]!.toLowerCase());
}

/** The machine's host name, cut to what a host name here may be (AGENT_HOST_NAME). */
function defaultHostName(): string {
  const name = os
    .hostname()
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  return name === '' ? 'localhost' : name;
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function workdirRoots(value: string, context: z.RefinementCtx): string[] {
  const listed = value
    .split(',')
    .map((root) => root.trim())
    .filter(Boolean);
  if (listed.length === 0) context.addIssue({ code: 'custom', message: 'at least one absolute path' });
  const roots: string[] = [];
  for (const root of listed) {
    try {
      const normalised = normaliseWorkingDirectory(root);
      // The worker gives each root to the agents' group (2770): never a system directory or the service's own.
      const refused = refusedRootReason(normalised, [repoRoot]);
      if (refused !== null) context.addIssue({ code: 'custom', message: refused });
      else roots.push(normalised);
    } catch (error) {
      if (!(error instanceof WorkingDirectoryError)) throw error;
      context.addIssue({ code: 'custom', message: `"${root}": ${error.message.replace(/^the working directory /, '')}` });
    }
  }
  return [...new Set(roots)];
}

/** The loopback names, always answered to, are added to the listed hosts; a wildcard bind address names no host. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
const WILDCARD_BIND = new Set(['0.0.0.0', '::', '[::]']);

function allowedHosts(listed: string[], httpHost: string): string[] {
  const bound = WILDCARD_BIND.has(httpHost) ? [] : [httpHost.includes(':') && !httpHost.startsWith('[') ? `[${httpHost}]` : httpHost];
  return [...new Set([...LOOPBACK_HOSTS, ...bound.map((host) => host.toLowerCase()), ...listed])];
}

/**
 * PANEL_DIR resolved (relative to the repository) to its real path, so the static middleware can tell
 * a symlink that leads out. It must be an existing directory, and never `/` or a directory holding
 * the repository: everything below it is served to anyone who reaches the port.
 */
function panelDir(dir: string | undefined): string | null {
  if (dir === undefined) return null;
  const problem = (message: string) => new ConfigError(`invalid environment: PANEL_DIR: ${message}`);
  let real: string;
  try {
    real = fs.realpathSync(path.resolve(repoRoot, dir));
  } catch (error) {
    throw problem(`cannot open ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
  if (!fs.statSync(real).isDirectory()) throw problem(`${real} is not a directory`);
  const repository = fs.realpathSync(repoRoot);
  if (real === path.parse(real).root || repository === real || repository.startsWith(`${real}${path.sep}`)) {
    throw problem(`${real} would serve the whole machine or the service's own repository: point it at the panel's public directory`);
  }
  return real;
}

export type Env = z.infer<typeof envSchema>;

export interface Config {
  env: Env['NODE_ENV'];
  logLevel: Env['LOG_LEVEL'];
  http: { host: string; port: number };
  /** What SIGTERM does, each role's drain then the bound on the rest (docs/probes-and-drains.md). */
  shutdown: {
    /** The bound on the shutdown after the drains (SHUTDOWN_TIMEOUT_MS). */
    timeoutMs: number;
    /** The API serves this long after SIGTERM, /readyz answering 503 (DRAIN_DELAY_MS). */
    drainDelayMs: number;
    /** A stopping worker's grace for its running activities (WORKER_SHUTDOWN_GRACE_MS), below timeoutMs. */
    workerGraceMs: number;
    /** A stopping agents worker's wait for its running agent runs (AGENT_DRAIN_TIMEOUT_MS). */
    agentDrainMs: number;
  };
  /** The metrics' own port, for a process that serves no API (its /metrics is then the only HTTP it serves). */
  metrics: { port: number; enabled: boolean };
  mysql: {
    host: string;
    port: number;
    /** A Unix socket instead of host and port; null: TCP. */
    socketPath: string | null;
    user: string;
    password: string;
    database: string;
    poolSize: number;
    /** null: plain (MYSQL_SSL_MODE=DISABLED). */
    tls: MysqlTls | null;
  };
  redis: RedisSettings;
  elasticsearch: ElasticsearchSettings;
  temporal: TemporalSettings;
  /** One line each, logged at start: plain connections to other machines in production (lib/production-rules.ts). */
  warnings: string[];
  dependencyTimeoutMs: number;
  roles: ProcessRole[];
  ranking: {
    scheduleTimezone: string;
    cvBaseUrl: string;
    /** Budget of POST /ranking/processar per client address. */
    jobRateLimit: { requests: number; windowSeconds: number };
  };
  /** The reconcilers of executions and ranking runs whose workflow is gone. */
  reconciler: { intervalSeconds: number };
  /** The admin panel served at the site root: the real path of PANEL_DIR, or null (no panel). */
  panel: { dir: string | null };
  pdf: {
    chromiumPath: string;
    /** Chromium's sandbox (CHROMIUM_SANDBOX); never for root, whatever this says. */
    chromiumSandbox: boolean;
    concurrency: number;
    restartAfter: number;
    timeoutMs: number;
    /** Sheets that may wait beyond the `concurrency` rendering. */
    queueLimit: number;
    /** Budget of the PDF routes per client address. */
    rateLimit: { requests: number; windowSeconds: number };
  };
  orchestration: {
    authToken: string | null;
    corsOrigins: string[];
    /** TRUST_PROXY: whose X-Forwarded-For, -Proto and -Host are believed. */
    trustProxy: TrustProxy;
    rateLimit: { requests: number; windowSeconds: number };
    /** Lower-case host names (no port) the service answers to; contains '*' for any. */
    allowedHosts: string[];
    websocket: { maxSocketsPerClient: number; pingIntervalMs: number };
    /** Most agents; versions, reports (per directory) and notifications kept, the oldest pruned. */
    limits: { agents: number; versionsPerAgent: number; reports: number; notifications: number };
    /** A run's time limit when its agent sets none (AGENT_RUN_TIMEOUT_SECONDS), in ms. */
    runTimeoutMs: number;
    /** Retry on failure: the delay unit (attempt × this). Delegation: the longest chain. */
    followUps: { retryDelayMs: number; delegationDepthMax: number };
    /** Pipeline runs: the default wait for an approval. */
    pipelines: { approvalTimeoutSeconds: number };
    /** The time zone of the agent schedules' cron expressions. */
    scheduleTimezone: string;
    secretsKey: string | null;
    /** Model credentials given as files (ANTHROPIC_API_KEY_FILE, ...): the agents receive the values. */
    agentModelSecrets: Record<string, string>;
    agentCommand: string;
    /** The commands of Codex CLI and Gemini CLI (CODEX_COMMAND, GEMINI_COMMAND); Claude Code's is `agentCommand`. */
    cliCommands: { codex: string; gemini: string };
    /** MODEL_PRICES_FILE (absolute) or null: the agents worker's prices over the shipped ones (activities/agents/run-cost.ts). */
    modelPricesFile: string | null;
    /** Absolute paths. */
    dataDir: string;
    reportsDir: string;
    /** POST /uploads: where files go, the limits, how long they are kept (docs/uploads.md). */
    uploads: { dir: string; maxFileBytes: number; maxFiles: number; retentionHours: number };
    /** Size of the pool of agent users (docs/agent-process.md). */
    agentUsers: number;
    /** Normalised absolute paths under which every working directory lies; the first is the default one. */
    workdirRoots: string[];
    /** This machine's name among the agents hosts (AGENT_HOST). */
    host: string;
    /** Repositories (docs/repositories.md); `mirrorsDir` holds the service's own bare mirror of each. */
    repositories: {
      dir: string | null;
      remotes: { name: string; url: string }[];
      credentials: { username: string; password: string } | null;
      mirrorsDir: string;
      /** GIT_PUBLISH_DIR (absolute) or null. */
      publishDir: string | null;
    };
    /** The public /hook/:token: its own budget, and the global signing secret (null: only per-webhook secrets). */
    webhooks: { rateLimit: { requests: number; windowSeconds: number }; secret: string | null };
  };
}

export type ProcessRole = Env['PROCESS_ROLES'][number];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Validates an environment and derives the typed configuration; throws ConfigError naming every bad variable. */
export function loadConfig(source: NodeJS.ProcessEnv): Config {
  // An empty variable means "not set": shells and .env files often leave them empty.
  const present = Object.fromEntries(
    Object.entries(source).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1] !== ''),
  );
  const secrets = resolveSecretFiles(present);
  if (secrets.problems.length > 0) throw new ConfigError(`invalid environment: ${secrets.problems.join('; ')}`);
  const parsed = envSchema.safeParse(secrets.env);
  if (!parsed.success) {
    // A value read from a file is named by the variable that gave the file; the value itself never appears.
    const named = (key: string) => (secrets.fromFiles.includes(key as SecretSetting) ? `${key}_FILE` : key);
    const problems = parsed.error.issues.map((issue) => `${named(issue.path.join('.'))}: ${issue.message}`);
    throw new ConfigError(`invalid environment: ${problems.join('; ')}`);
  }
  const env = parsed.data;
  const cleartext = env.GIT_USERNAME && env.GIT_PASSWORD ? env.GIT_REMOTES.filter((remote) => cleartextRemote(remote.url)) : [];
  if (cleartext.length > 0) {
    throw new ConfigError(
      `invalid environment: GIT_REMOTES: ${cleartext.map((remote) => remote.name).join(', ')} would receive GIT_USERNAME/GIT_PASSWORD in clear text (http:// to another machine): use https://`,
    );
  }
  // The workers' grace runs inside the shutdown's bound: at the bound the process exits, grace or not.
  if (env.WORKER_SHUTDOWN_GRACE_MS !== undefined && env.WORKER_SHUTDOWN_GRACE_MS >= env.SHUTDOWN_TIMEOUT_MS) {
    throw new ConfigError(
      `invalid environment: WORKER_SHUTDOWN_GRACE_MS: ${env.WORKER_SHUTDOWN_GRACE_MS} is not below SHUTDOWN_TIMEOUT_MS (${env.SHUTDOWN_TIMEOUT_MS}), which bounds it`,
    );
  }
  const production = productionProblems(env, secrets.fromFiles);
  if (production.length > 0) throw new ConfigError(`invalid environment: ${production.join('; ')}`);
  let connections: Pick<Config, 'mysql' | 'redis' | 'elasticsearch' | 'temporal'>;
  try {
    connections = connectionSettings(env, secrets.env);
  } catch (error) {
    if (error instanceof SettingProblem) throw new ConfigError(`invalid environment: ${error.message}`);
    throw error;
  }
  return buildConfig(env, connections, secrets.env);
}

function connectionSettings(env: Env, resolved: Record<string, string>): Pick<Config, 'mysql' | 'redis' | 'elasticsearch' | 'temporal'> {
  return {
    mysql: {
      host: env.MYSQL_HOST,
      port: env.MYSQL_PORT,
      socketPath: env.MYSQL_SOCKET_PATH ?? null,
      user: env.MYSQL_USER,
      password: env.MYSQL_PASSWORD,
      database: env.MYSQL_DATABASE,
      poolSize: env.MYSQL_POOL_SIZE,
      tls: mysqlTls({ ...env, MYSQL_SSL_MODE: env.MYSQL_SSL_MODE as MysqlTls['mode'] | 'DISABLED' }),
    },
    redis: redisSettings(env),
    elasticsearch: elasticsearchSettings(env),
    temporal: temporalSettings(resolved, {
      port: env.TEMPORAL_PORT,
      uiUrl: env.TEMPORAL_UI_URL ?? `http://127.0.0.1:${env.TEMPORAL_UI_PORT}`,
    }),
  };
}

function buildConfig(
  env: Env,
  connections: Pick<Config, 'mysql' | 'redis' | 'elasticsearch' | 'temporal'>,
  resolved: Record<string, string>,
): Config {
  return {
    env: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    http: { host: env.HTTP_HOST, port: env.HTTP_PORT },
    shutdown: {
      timeoutMs: env.SHUTDOWN_TIMEOUT_MS,
      drainDelayMs: env.DRAIN_DELAY_MS,
      workerGraceMs: env.WORKER_SHUTDOWN_GRACE_MS ?? Math.floor((env.SHUTDOWN_TIMEOUT_MS * 2) / 3),
      agentDrainMs: env.AGENT_DRAIN_TIMEOUT_MS ?? env.AGENT_RUN_TIMEOUT_SECONDS * 1000,
    },
    metrics: { port: env.METRICS_PORT, enabled: env.METRICS_ENABLED },
    ...connections,
    warnings: env.NODE_ENV === 'production' ? plainConnectionWarnings(connections) : [],
    dependencyTimeoutMs: env.DEPENDENCY_TIMEOUT_MS,
    roles: [...new Set(env.PROCESS_ROLES)],
    ranking: {
      scheduleTimezone: env.RANKING_SCHEDULE_TIMEZONE,
      cvBaseUrl: env.CV_BASE_URL,
      jobRateLimit: { requests: env.RANKING_JOB_RATE_LIMIT_REQUESTS, windowSeconds: env.RANKING_JOB_RATE_LIMIT_WINDOW_SECONDS },
    },
    reconciler: { intervalSeconds: env.RECONCILE_INTERVAL_SECONDS },
    panel: { dir: panelDir(env.PANEL_DIR) },
    pdf: {
      chromiumPath: env.CHROMIUM_PATH,
      chromiumSandbox: env.CHROMIUM_SANDBOX === 'on',
      concurrency: env.PDF_CONCURRENCY,
      restartAfter: env.PDF_RESTART_AFTER,
      timeoutMs: env.PDF_TIMEOUT_MS,
      queueLimit: env.PDF_QUEUE_LIMIT,
      rateLimit: { requests: env.PDF_RATE_LIMIT_REQUESTS, windowSeconds: env.PDF_RATE_LIMIT_WINDOW_SECONDS },
    },
    orchestration: {
      authToken: env.AUTH_TOKEN ?? null,
      corsOrigins: env.CORS_ORIGINS,
      trustProxy: env.TRUST_PROXY,
      rateLimit: { requests: env.RATE_LIMIT_REQUESTS, windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS },
      allowedHosts: allowedHosts(env.ALLOWED_HOSTS, env.HTTP_HOST),
      websocket: {
        maxSocketsPerClient: env.WEBSOCKET_MAX_SOCKETS_PER_CLIENT,
        pingIntervalMs: env.WEBSOCKET_PING_INTERVAL_SECONDS * 1000,
      },
      limits: {
        agents: env.AGENTS_MAX,
        versionsPerAgent: env.AGENT_VERSIONS_KEPT,
        reports: env.REPORTS_KEPT,
        notifications: env.NOTIFICATIONS_KEPT,
      },
      runTimeoutMs: env.AGENT_RUN_TIMEOUT_SECONDS * 1000,
      followUps: { retryDelayMs: env.AGENT_RETRY_DELAY_SECONDS * 1000, delegationDepthMax: env.AGENT_DELEGATION_DEPTH_MAX },
      pipelines: { approvalTimeoutSeconds: env.PIPELINE_APPROVAL_TIMEOUT_SECONDS },
      scheduleTimezone: env.AGENT_SCHEDULE_TIMEZONE,
      secretsKey: env.AGENT_SECRETS_KEY ?? null,
      agentModelSecrets: Object.fromEntries(
        AGENT_MODEL_SECRETS.filter((name) => resolved[name] !== undefined).map((name) => [name, resolved[name]!]),
      ),
      agentCommand: env.AGENT_COMMAND ?? defaultAgentCommand(),
      cliCommands: {
        codex: env.CODEX_COMMAND ?? defaultCodexCommand(),
        gemini: env.GEMINI_COMMAND ?? defaultGeminiCommand(),
      },
      modelPricesFile: env.MODEL_PRICES_FILE ? path.resolve(repoRoot, env.MODEL_PRICES_FILE) : null,
      dataDir: path.resolve(repoRoot, env.AGENT_DATA_DIR),
      reportsDir: path.resolve(repoRoot, env.AGENT_REPORTS_DIR),
      uploads: {
        dir: path.resolve(repoRoot, env.AGENT_UPLOADS_DIR),
        maxFileBytes: env.AGENT_UPLOAD_MAX_FILE_BYTES,
        maxFiles: env.AGENT_UPLOAD_MAX_FILES,
        retentionHours: env.AGENT_UPLOADS_RETENTION_HOURS,
      },
      agentUsers: env.AGENT_USERS,
      workdirRoots: env.AGENT_WORKDIR_ROOTS,
      host: env.AGENT_HOST ?? defaultHostName(),
      repositories: {
        dir: env.GIT_REPOS_DIR ? path.resolve(repoRoot, env.GIT_REPOS_DIR) : null,
        remotes: env.GIT_REMOTES,
        credentials: env.GIT_USERNAME && env.GIT_PASSWORD ? { username: env.GIT_USERNAME, password: env.GIT_PASSWORD } : null,
        mirrorsDir: path.resolve(repoRoot, env.GIT_MIRRORS_DIR),
        publishDir: env.GIT_PUBLISH_DIR ? path.resolve(repoRoot, env.GIT_PUBLISH_DIR) : null,
      },
      webhooks: {
        rateLimit: { requests: env.HOOK_RATE_LIMIT_REQUESTS, windowSeconds: env.HOOK_RATE_LIMIT_WINDOW_SECONDS },
        secret: env.WEBHOOK_SECRET ?? null,
      },
    },
  };
}

/**
 * The process's configuration. A bad environment ends the process at once with one line naming the
 * variables (exit code 1), before anything connects or logs: an operator reads it as a pod's last words.
 */
function processConfig(): Config {
  try {
    return loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

export const config: Config = processConfig();
