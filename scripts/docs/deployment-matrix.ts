import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { SECRET_SETTINGS } from '../../lib/secret-files';

/**
 * The variable matrix of docs/deployment.md ("Variables per role"), generated from the configuration
 * schema: every variable of `envSchema` in lib/config.ts (read from the file's syntax tree: the schema
 * is not exported, and importing lib/config.ts would validate this process's own environment), with its
 * default where the schema gives one, whether it may come from a file (lib/secret-files.ts), which
 * roles read it and who sets it under the Helm chart (the table below, kept by hand).
 *
 *   node --import tsx scripts/docs/deployment-matrix.ts           # rewrites the matrix in the doc
 *   node --import tsx scripts/docs/deployment-matrix.ts --check   # exits 1 when the doc is out of date
 *
 * A schema variable missing from the role table, or an entry of the table that is no variable any
 * more, stops the generator; test/unit/deployment-doc.test.ts fails on both and on a stale matrix.
 */

const ROOT = path.resolve(__dirname, '../..');
export const CONFIG_FILE = path.join(ROOT, 'lib/config.ts');
export const DEPLOYMENT_DOC = path.join(ROOT, 'docs/deployment.md');
export const BEGIN_MARKER = '<!-- variables:begin -->';
export const END_MARKER = '<!-- variables:end -->';
export const REGENERATE_COMMAND = 'node --import tsx scripts/docs/deployment-matrix.ts';

export const ROLES = ['api', 'ranking-worker', 'agents-worker', 'migrations'] as const;
export type Role = (typeof ROLES)[number];

export interface RoleEntry {
  /** The processes that read the variable (the migrations: `node dist/db/migrate-cli.js`). */
  roles: readonly Role[];
  /** Who gives it its value under the Helm chart, as the doc shows it (chart values in backticks). */
  setBy: string;
  /** The default, where the schema has none to read (derived from another variable, or another library's). */
  default?: string;
  /** One short remark, where the columns do not say enough. */
  note?: string;
}

const API: readonly Role[] = ['api'];
const AGENTS: readonly Role[] = ['agents-worker'];
const WORKERS: readonly Role[] = ['ranking-worker', 'agents-worker'];
const API_AGENTS: readonly Role[] = ['api', 'agents-worker'];
const SERVICE: readonly Role[] = ['api', 'ranking-worker', 'agents-worker'];
const EVERY: readonly Role[] = ['api', 'ranking-worker', 'agents-worker', 'migrations'];

/** Set by the operator in the chart's `config` (a ConfigMap every role reads). */
const OPERATOR = 'operator: `config`';
/** Set by the operator in the chart's `secrets`; the chart mounts the file and sets `<NAME>_FILE` for the roles it gives it to. */
const SECRET = 'operator: `secrets`';
/** A file named by path: the operator puts it in the `secrets.tlsSecret` Secret and names its path in `config`. */
const TLS_FILE = 'operator: `config`, the file in `secrets.tlsSecret`';
/** The local stack's ports: only the defaults of other variables. */
const LOCAL_STACK = '— (local stack only)';
const chart = (how: string) => `chart: ${how}`;
const image = (value: string) => `image: \`${value}\``;

/** Keyed by variable: every variable of lib/config.ts's schema, and every secret setting of lib/secret-files.ts. */
export const ROLE_TABLE: Readonly<Record<string, RoleEntry>> = {
  NODE_ENV: { roles: EVERY, setBy: `${OPERATOR} (\`production\` in values.yaml and the image)` },
  LOG_LEVEL: { roles: EVERY, setBy: OPERATOR },
  HTTP_HOST: { roles: SERVICE, setBy: chart('`0.0.0.0` (the image too)'), note: 'workers: the probes and `/metrics`' },
  HTTP_PORT: { roles: API, setBy: chart('`api.port`') },
  METRICS_PORT: { roles: WORKERS, setBy: chart('`rankingWorker.metricsPort`, `agentsWorker.metricsPort`') },
  METRICS_ENABLED: { roles: SERVICE, setBy: OPERATOR },
  SHUTDOWN_TIMEOUT_MS: {
    roles: SERVICE,
    setBy: chart('`api.shutdownTimeoutSeconds`, `rankingWorker.shutdownTimeoutSeconds`, `agentsWorker.shutdownTimeoutSeconds`'),
  },
  DRAIN_DELAY_MS: { roles: API, setBy: chart('`api.drainDelaySeconds`') },
  WORKER_SHUTDOWN_GRACE_MS: { roles: WORKERS, setBy: OPERATOR, default: '⅔ of `SHUTDOWN_TIMEOUT_MS`' },
  AGENT_DRAIN_TIMEOUT_MS: {
    roles: AGENTS,
    setBy: chart('`agentsWorker.drainTimeoutSeconds`'),
    default: '`AGENT_RUN_TIMEOUT_SECONDS` × 1000',
  },

  MYSQL_HOST: { roles: EVERY, setBy: OPERATOR },
  MYSQL_PORT: { roles: EVERY, setBy: OPERATOR },
  MYSQL_USER: { roles: EVERY, setBy: OPERATOR },
  MYSQL_PASSWORD: { roles: EVERY, setBy: SECRET, note: '`app` is refused in production' },
  MYSQL_DATABASE: { roles: EVERY, setBy: OPERATOR, note: 'created by the migrations when missing' },
  MYSQL_POOL_SIZE: { roles: SERVICE, setBy: OPERATOR, note: 'per process' },
  MYSQL_SOCKET_PATH: { roles: EVERY, setBy: OPERATOR },
  MYSQL_SSL_MODE: { roles: EVERY, setBy: OPERATOR },
  MYSQL_SSL_CA_FILE: { roles: EVERY, setBy: TLS_FILE },
  MYSQL_SSL_CERT_FILE: { roles: EVERY, setBy: TLS_FILE },
  MYSQL_SSL_KEY_FILE: { roles: EVERY, setBy: TLS_FILE },

  REDIS_HOST: { roles: SERVICE, setBy: OPERATOR, note: 'ranking worker: the start check only' },
  REDIS_PORT: { roles: SERVICE, setBy: OPERATOR },
  REDIS_KEY_PREFIX: { roles: SERVICE, setBy: OPERATOR },
  REDIS_URL: { roles: SERVICE, setBy: SECRET },
  REDIS_USERNAME: { roles: SERVICE, setBy: OPERATOR },
  REDIS_PASSWORD: { roles: SERVICE, setBy: SECRET },
  REDIS_DB: { roles: SERVICE, setBy: OPERATOR, default: '`0`' },
  REDIS_TLS: { roles: SERVICE, setBy: OPERATOR, default: 'off (on with `rediss://`)' },
  REDIS_TLS_CA_FILE: { roles: SERVICE, setBy: TLS_FILE },
  REDIS_TLS_SERVERNAME: { roles: SERVICE, setBy: OPERATOR, default: 'the host' },
  REDIS_SENTINELS: { roles: SERVICE, setBy: OPERATOR },
  REDIS_SENTINEL_NAME: { roles: SERVICE, setBy: OPERATOR },
  REDIS_SENTINEL_PASSWORD: { roles: SERVICE, setBy: SECRET },

  ELASTICSEARCH_PORT: { roles: SERVICE, setBy: LOCAL_STACK },
  ELASTICSEARCH_URL: {
    roles: SERVICE,
    setBy: OPERATOR,
    default: '`http://127.0.0.1:$ELASTICSEARCH_PORT`',
    note: 'agents worker: the start check only',
  },
  ELASTICSEARCH_INDEX_PREFIX: { roles: SERVICE, setBy: OPERATOR },
  ELASTICSEARCH_API_KEY: { roles: SERVICE, setBy: SECRET, note: 'agents worker: the start check only' },
  ELASTICSEARCH_USERNAME: { roles: SERVICE, setBy: OPERATOR },
  ELASTICSEARCH_PASSWORD: { roles: SERVICE, setBy: SECRET },
  ELASTICSEARCH_CLOUD_ID: { roles: SERVICE, setBy: OPERATOR },
  ELASTICSEARCH_CA_FILE: { roles: SERVICE, setBy: TLS_FILE },
  ELASTICSEARCH_CA_FINGERPRINT: { roles: SERVICE, setBy: OPERATOR },

  TEMPORAL_PORT: { roles: SERVICE, setBy: LOCAL_STACK },
  TEMPORAL_UI_PORT: { roles: API, setBy: LOCAL_STACK },
  TEMPORAL_ADDRESS: { roles: SERVICE, setBy: OPERATOR, default: '`127.0.0.1:$TEMPORAL_PORT`' },
  TEMPORAL_UI_URL: { roles: API, setBy: OPERATOR, default: '`http://127.0.0.1:$TEMPORAL_UI_PORT`', note: 'printed in the start log' },
  TEMPORAL_NAMESPACE: { roles: SERVICE, setBy: OPERATOR, default: '`default`' },
  TEMPORAL_API_KEY: { roles: SERVICE, setBy: SECRET },
  TEMPORAL_TLS: { roles: SERVICE, setBy: OPERATOR },
  TEMPORAL_TLS_CLIENT_CERT_PATH: { roles: SERVICE, setBy: TLS_FILE },
  TEMPORAL_TLS_CLIENT_KEY_PATH: { roles: SERVICE, setBy: TLS_FILE },
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: { roles: SERVICE, setBy: TLS_FILE },
  TEMPORAL_TLS_SERVER_NAME: { roles: SERVICE, setBy: OPERATOR, default: "the address's host" },
  TEMPORAL_PROFILE: { roles: SERVICE, setBy: OPERATOR, default: '`default`' },
  TEMPORAL_CONFIG_FILE: { roles: SERVICE, setBy: OPERATOR, default: '`~/.config/temporalio/temporal.toml`' },

  DEPENDENCY_TIMEOUT_MS: { roles: SERVICE, setBy: `${OPERATOR}; agents: ${chart('`agentsWorker.dependencyTimeoutSeconds`')}` },
  CV_BASE_URL: { roles: ['api', 'ranking-worker'], setBy: OPERATOR },
  RANKING_SCHEDULE_TIMEZONE: { roles: ['api', 'ranking-worker'], setBy: OPERATOR },
  RECONCILE_INTERVAL_SECONDS: { roles: WORKERS, setBy: OPERATOR },

  CHROMIUM_PATH: { roles: API, setBy: image('/usr/bin/chromium') },
  CHROMIUM_SANDBOX: { roles: API, setBy: image('off') },
  PDF_CONCURRENCY: { roles: API, setBy: OPERATOR },
  PDF_RESTART_AFTER: { roles: API, setBy: OPERATOR },
  PDF_TIMEOUT_MS: { roles: API, setBy: OPERATOR },
  PDF_QUEUE_LIMIT: { roles: API, setBy: OPERATOR },
  PDF_RATE_LIMIT_REQUESTS: { roles: API, setBy: OPERATOR },
  PDF_RATE_LIMIT_WINDOW_SECONDS: { roles: API, setBy: OPERATOR },
  RANKING_JOB_RATE_LIMIT_REQUESTS: { roles: API, setBy: OPERATOR },
  RANKING_JOB_RATE_LIMIT_WINDOW_SECONDS: { roles: API, setBy: OPERATOR },

  AUTH_TOKEN: {
    roles: EVERY,
    setBy: SECRET,
    note: 'required in production with the `api` role (the migrations check it under the role they run for); workers: their `/metrics`',
  },
  CORS_ORIGINS: { roles: API, setBy: OPERATOR },
  TRUST_PROXY: { roles: API, setBy: OPERATOR, default: 'loopback and private peers' },
  RATE_LIMIT_REQUESTS: { roles: API, setBy: OPERATOR },
  RATE_LIMIT_WINDOW_SECONDS: { roles: API, setBy: OPERATOR },
  HOOK_RATE_LIMIT_REQUESTS: { roles: API, setBy: OPERATOR },
  HOOK_RATE_LIMIT_WINDOW_SECONDS: { roles: API, setBy: OPERATOR },
  WEBHOOK_SECRET: { roles: API, setBy: SECRET },
  ALLOWED_HOSTS: {
    roles: SERVICE,
    setBy: `api: ${chart('`api.allowedHosts`, `api.httpRoute.hostnames`, `api.ingress.hosts`')}`,
    note: 'loopback names are always allowed; workers: their `/metrics` without a token',
  },
  WEBSOCKET_MAX_SOCKETS_PER_CLIENT: { roles: API, setBy: OPERATOR },
  WEBSOCKET_PING_INTERVAL_SECONDS: { roles: API, setBy: OPERATOR },
  AGENT_SECRETS_KEY: {
    roles: ['api', 'agents-worker', 'migrations'],
    setBy: SECRET,
    note: 'required in production (api, agents worker); back it up apart from the database',
  },
  AGENT_USERS: { roles: AGENTS, setBy: image('20'), note: 'the image has 20 pool users: more needs a rebuild' },
  AGENT_COMMAND: { roles: API_AGENTS, setBy: OPERATOR, default: "the pinned Claude Code's binary" },
  CODEX_COMMAND: { roles: API_AGENTS, setBy: OPERATOR, default: "the pinned Codex CLI's binary" },
  GEMINI_COMMAND: { roles: API_AGENTS, setBy: OPERATOR, default: "the pinned Gemini CLI's script" },
  MODEL_PRICES_FILE: {
    roles: AGENTS,
    setBy: chart('`agentsWorker.modelPrices`'),
    default: 'the shipped table only',
    note: 'read once at start; a bad file stops it',
  },
  AGENT_DATA_DIR: { roles: API_AGENTS, setBy: image('/data') },
  AGENT_REPORTS_DIR: {
    roles: AGENTS,
    setBy: image('/reports'),
    note: 'apart from the data area; chart: its volume, `externalReports.existingClaim`',
  },
  AGENT_UPLOADS_DIR: { roles: API_AGENTS, setBy: image('/uploads') },
  AGENT_UPLOAD_MAX_FILE_BYTES: { roles: API, setBy: OPERATOR },
  AGENT_UPLOAD_MAX_FILES: { roles: API, setBy: OPERATOR },
  AGENT_UPLOADS_RETENTION_HOURS: { roles: AGENTS, setBy: OPERATOR },
  AGENTS_MAX: { roles: API, setBy: OPERATOR },
  AGENT_VERSIONS_KEPT: { roles: API, setBy: OPERATOR },
  AGENT_RUN_TIMEOUT_SECONDS: { roles: AGENTS, setBy: OPERATOR },
  AGENT_RETRY_DELAY_SECONDS: { roles: AGENTS, setBy: OPERATOR },
  AGENT_DELEGATION_DEPTH_MAX: { roles: AGENTS, setBy: OPERATOR },
  PIPELINE_APPROVAL_TIMEOUT_SECONDS: { roles: AGENTS, setBy: OPERATOR },
  AGENT_SCHEDULE_TIMEZONE: { roles: API_AGENTS, setBy: OPERATOR },
  REPORTS_KEPT: { roles: AGENTS, setBy: OPERATOR },
  NOTIFICATIONS_KEPT: { roles: AGENTS, setBy: OPERATOR },
  GIT_REPOS_DIR: { roles: API_AGENTS, setBy: OPERATOR },
  GIT_REMOTES: { roles: API_AGENTS, setBy: OPERATOR },
  GIT_PUBLISH_DIR: { roles: API, setBy: OPERATOR },
  GIT_MIRRORS_DIR: { roles: API_AGENTS, setBy: OPERATOR, note: 'in the image: `/app/.git-mirrors`' },
  GIT_USERNAME: { roles: API_AGENTS, setBy: OPERATOR },
  GIT_PASSWORD: { roles: API_AGENTS, setBy: SECRET },
  AGENT_WORKDIR_ROOTS: { roles: API_AGENTS, setBy: chart('`/home/projetos`') },
  AGENT_HOST: { roles: AGENTS, setBy: chart("the pod's name"), default: "the machine's host name" },
  PANEL_DIR: { roles: API, setBy: chart('`/panel` with `api.panelVolume`') },
  PROCESS_ROLES: { roles: EVERY, setBy: chart('one role per pod (and per migrations init container)') },

  ANTHROPIC_API_KEY: { roles: AGENTS, setBy: SECRET, note: 'handed to the agents; not in the schema' },
  ANTHROPIC_AUTH_TOKEN: { roles: AGENTS, setBy: SECRET, note: 'handed to the agents; not in the schema' },
  OPENAI_API_KEY: { roles: AGENTS, setBy: SECRET, note: 'handed to Codex CLI runs only; not in the schema' },
  CODEX_API_KEY: { roles: AGENTS, setBy: SECRET, note: 'handed to Codex CLI runs only (wins over OPENAI_API_KEY); not in the schema' },
  GEMINI_API_KEY: { roles: AGENTS, setBy: SECRET, note: 'handed to Gemini CLI runs only; not in the schema' },
};

/** A variable of the schema and the default its `.default(...)` gives, if any. */
export interface SchemaVariable {
  name: string;
  default?: string | number;
}

/** The variables of `const envSchema = z.object({...})`, in the file's order, with their literal defaults. */
export function schemaVariables(source: string = fs.readFileSync(CONFIG_FILE, 'utf8')): SchemaVariable[] {
  const file = ts.createSourceFile('config.ts', source, ts.ScriptTarget.ES2022, true);
  let shape: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.name.text === 'envSchema' &&
      node.initializer &&
      ts.isCallExpression(node.initializer) &&
      node.initializer.expression.getText(file) === 'z.object' &&
      node.initializer.arguments[0] &&
      ts.isObjectLiteralExpression(node.initializer.arguments[0])
    ) {
      shape = node.initializer.arguments[0];
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!shape) throw new Error('lib/config.ts: no `const envSchema = z.object({ ... })` found');
  return shape.properties.map((property) => {
    if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) {
      throw new Error(`lib/config.ts: envSchema holds something other than NAME: schema (${property.getText(file).slice(0, 60)})`);
    }
    const fallback = defaultOf(property.initializer, file);
    return fallback === undefined ? { name: property.name.text } : { name: property.name.text, default: fallback };
  });
}

/** The argument of the `.default(...)` in a schema's chain of calls, evaluated when it is a literal. */
function defaultOf(expression: ts.Expression, file: ts.SourceFile): string | number | undefined {
  let node: ts.Expression = expression;
  while (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node)) {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'default') {
      const argument = node.arguments[0];
      if (!argument) throw new Error(`lib/config.ts: .default() without a value (${node.getText(file).slice(0, 60)})`);
      return literal(argument, file);
    }
    node = node.expression;
  }
  return undefined;
}

function literal(node: ts.Expression, file: ts.SourceFile): string | number {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isNumericLiteral(node)) return Number(node.text.replace(/_/g, ''));
  if (ts.isParenthesizedExpression(node)) return literal(node.expression, file);
  if (ts.isPrefixUnaryExpression(node) && node.operator === ts.SyntaxKind.MinusToken) return -Number(literal(node.operand, file));
  if (ts.isBinaryExpression(node)) {
    const left = literal(node.left, file);
    const right = literal(node.right, file);
    const operator = node.operatorToken.kind;
    if (typeof left === 'number' && typeof right === 'number') {
      if (operator === ts.SyntaxKind.AsteriskToken) return left * right;
      if (operator === ts.SyntaxKind.PlusToken) return left + right;
      if (operator === ts.SyntaxKind.MinusToken) return left - right;
    }
  }
  // Not a literal: shown as written.
  return node.getText(file);
}

/** Schema variables and secret settings without an entry in the role table; entries that are neither. */
export function roleTableProblems(variables: readonly SchemaVariable[] = schemaVariables()): { missing: string[]; stale: string[] } {
  const known = new Set([...variables.map((variable) => variable.name), ...SECRET_SETTINGS]);
  return {
    missing: [...known].filter((name) => !(name in ROLE_TABLE)),
    stale: Object.keys(ROLE_TABLE).filter((name) => !known.has(name)),
  };
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

function shownDefault(variable: SchemaVariable, entry: RoleEntry): string {
  if (entry.default !== undefined) return entry.default;
  if (variable.default === undefined) return '—';
  if (variable.default === '') return '(empty)';
  return `\`${variable.default}\``;
}

function secretCell(name: string): string {
  if ((SECRET_SETTINGS as readonly string[]).includes(name)) return '`_FILE`';
  // Private keys named by path: the same mode rule as the secret files (lib/secret-files.ts).
  if (name === 'MYSQL_SSL_KEY_FILE' || name === 'TEMPORAL_TLS_CLIENT_KEY_PATH') return 'key file';
  return '';
}

/** The matrix as Markdown, from the schema's variables (then the secret settings it does not hold). */
export function renderMatrix(variables: readonly SchemaVariable[] = schemaVariables()): string {
  const { missing, stale } = roleTableProblems(variables);
  if (missing.length > 0 || stale.length > 0) {
    const problems = [
      ...(missing.length > 0 ? [`no entry in ROLE_TABLE for ${missing.join(', ')}`] : []),
      ...(stale.length > 0 ? [`ROLE_TABLE entries that are no variable: ${stale.join(', ')}`] : []),
    ];
    throw new Error(`scripts/docs/deployment-matrix.ts: ${problems.join('; ')}`);
  }
  const schemaNames = new Set(variables.map((variable) => variable.name));
  const rows = [...variables, ...SECRET_SETTINGS.filter((name) => !schemaNames.has(name)).map((name) => ({ name }))];
  const header = [
    '| variable | default | secret | api | ranking-worker | agents-worker | migrations | set by (Helm chart) | note |',
    '|---|---|---|:-:|:-:|:-:|:-:|---|---|',
  ];
  const lines = rows.map((variable) => {
    const entry = ROLE_TABLE[variable.name]!;
    const marks = ROLES.map((role) => (entry.roles.includes(role) ? '✓' : ''));
    return `| ${[`\`${variable.name}\``, shownDefault(variable, entry), secretCell(variable.name), ...marks, entry.setBy, entry.note ?? ''].map(cell).join(' | ')} |`;
  });
  return [...header, ...lines].join('\n');
}

/** The doc with its matrix (between the markers) replaced by `matrix`. */
export function withMatrix(doc: string, matrix: string = renderMatrix()): string {
  const begin = doc.indexOf(BEGIN_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (begin === -1 || end === -1 || end < begin)
    throw new Error(`docs/deployment.md: the markers ${BEGIN_MARKER} and ${END_MARKER} are missing`);
  const generated = `${BEGIN_MARKER}\n<!-- Generated by \`${REGENERATE_COMMAND}\` from lib/config.ts: edit the role table in that script, not these lines. -->\n\n${matrix}\n\n`;
  return doc.slice(0, begin) + generated + doc.slice(end);
}

function main(): void {
  const doc = fs.readFileSync(DEPLOYMENT_DOC, 'utf8');
  const updated = withMatrix(doc);
  if (process.argv.includes('--check')) {
    if (updated !== doc) {
      console.error(`docs/deployment.md: the variable matrix is out of date; run ${REGENERATE_COMMAND}`);
      process.exit(1);
    }
    console.log('docs/deployment.md: the variable matrix is up to date');
    return;
  }
  if (updated === doc) {
    console.log('docs/deployment.md: the variable matrix was already up to date');
    return;
  }
  fs.writeFileSync(DEPLOYMENT_DOC, updated);
  console.log('docs/deployment.md: variable matrix written');
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
