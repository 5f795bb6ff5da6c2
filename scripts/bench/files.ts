import { FILES_BENCH_ENV } from './files-env';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { createDatabase, type Database } from '../../db';
import { migrateDatabase } from '../../db/migrate';
import { agents, executions, pipelines } from '../../db/schema';
import { config } from '../../lib/config';
import { ensureNamespace } from '../../temporal/namespace';
import { fmt, httpGet, percentile } from './measure';
import { apiCall, startApi, stopService } from './services';

/**
 * Files, uploads and statistics benchmark (issue 16), against the compiled API (no worker), over
 * real HTTP, each figure beside a reference and their ratio:
 * - uploads: POST /api/uploads of one file of exactly the size limit (accepted: the limit is
 *   inclusive), BENCH_UPLOADS times (default 20), the body streamed from the file (node:http); against
 *   fs.copyFile of the same file within the same uploads directory, alternating with the uploads;
 * - statistics: GET /api/stats/charts?days=7 and 30 and /api/stats/costs?days=30, BENCH_STATS_CALLS
 *   times each (default 200), at 100 000 execution records over the last 30 days; against the same
 *   calls at 1 000 records (measured first). Every answer's totals are checked against the records;
 * - folder download: GET /api/files/download-folder of a folder of 1 000 files of 10 KB,
 *   BENCH_ARCHIVES times (default 10), read whole; against `tar -czf - <folder> | wc -c` (GNU tar and
 *   gzip), alternating. One download is saved and listed with `tar -tzf`.
 *
 * Its own database, namespace, prefixes and directories (files-env.ts); what it writes on disk is
 * removed at the end, the database is left.
 *
 *   npm run bench:files   (BENCH_UPLOADS, BENCH_STATS_CALLS, BENCH_ARCHIVES)
 */
const UPLOADS = Number(process.env.BENCH_UPLOADS ?? 20);
const STATS_CALLS = Number(process.env.BENCH_STATS_CALLS ?? 200);
const ARCHIVES = Number(process.env.BENCH_ARCHIVES ?? 10);
const RECORDS = 100_000;
const SMALL_RECORDS = 1_000;
const INSERT_BATCH = 1_000;
const ARCHIVE_FILES = 1_000;
const ARCHIVE_FILE_BYTES = 10 * 1024;
const MB = 1024 * 1024;
const DAY_MS = 86_400_000;

const say = (line: string) => process.stdout.write(`${line}\n`);
const run = promisify(execFile);
const ms = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);

/** A small seeded generator (mulberry32): the same records and files on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------- uploads

interface UploadFigures {
  bytes: number;
  uploadMs: number[];
  copyMs: number[];
}

async function benchUploads(api: string, created: string[]): Promise<UploadFigures> {
  const { dir, maxFileBytes } = config.orchestration.uploads;
  // The limit itself: a file of exactly maxFileBytes is accepted (the parser is given one byte more, the saver refuses size > max).
  const bytes = maxFileBytes;
  await fsp.mkdir(dir, { recursive: true });
  const source = path.join(dir, 'bench-files-source.bin');
  created.push(source);
  await fsp.writeFile(source, randomBytes(bytes));

  // node:http, the file piped into the request (never whole in memory): fetch with a FormData of
  // fs.openAsBlob took 35-85 ms of the client's own CPU per 10 MB against a server that only counts
  // the bytes, node:http 10-30 ms, and the client shares the 2 cores with the service it measures.
  const boundary = `bench-files-${randomUUID()}`;
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="bench-upload.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const post = () =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request(
        `${api}/uploads`,
        {
          method: 'POST',
          headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': head.length + bytes + tail.length },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.write(head);
      const file = fs.createReadStream(source, { highWaterMark: MB });
      file.on('error', reject);
      file.on('end', () => request.end(tail));
      file.pipe(request, { end: false });
    });
  const upload = async (): Promise<number> => {
    const started = process.hrtime.bigint();
    const { status, text } = await post();
    const elapsed = ms(started);
    if (status !== 200) throw new Error(`POST /api/uploads answered ${status}: ${text}`);
    const answer = JSON.parse(text) as { files?: Array<{ path: string; size: number }> };
    const file = answer.files?.[0];
    if (answer.files?.length !== 1 || !file || file.size !== bytes)
      throw new Error(`POST /api/uploads stored ${JSON.stringify(answer.files)}, expected one file of ${bytes} bytes`);
    created.push(path.dirname(file.path));
    const stored = await fsp.stat(file.path);
    if (stored.size !== bytes) throw new Error(`${file.path} holds ${stored.size} bytes, expected ${bytes}`);
    return elapsed;
  };
  const copy = async (n: number): Promise<number> => {
    const target = path.join(dir, `bench-files-copy-${n}.bin`);
    created.push(target);
    const started = process.hrtime.bigint();
    await fsp.copyFile(source, target);
    return ms(started);
  };

  await upload();
  await copy(0);
  const uploadMs: number[] = [];
  const copyMs: number[] = [];
  for (let i = 1; i <= UPLOADS; i += 1) {
    uploadMs.push(await upload());
    copyMs.push(await copy(i));
  }
  return { bytes, uploadMs, copyMs };
}

// ---------------------------------------------------------------- statistics

interface SeedRecord {
  id: string;
  kind: 'agent' | 'pipeline';
  agentId: string | null;
  agentName: string;
  pipelineId: string | null;
  pipelineExecutionId: string | null;
  stepIndex: number | null;
  status: 'completed' | 'error' | 'canceled';
  source: 'manual' | 'schedule' | 'webhook';
  cost: number | null;
  tokens: { input: number; output: number; cacheRead: number; cacheCreation: number } | null;
  createdAt: Date;
}

const BENCH_AGENTS = [30, 20, 15, 10, 8, 7, 6, 4].map((weight, i) => ({
  id: `00000000-0000-4000-8000-0000000000${String(i + 1).padStart(2, '0')}`,
  name: `bench-files agent ${i + 1}`,
  weight,
}));
const BENCH_PIPELINE = { id: '00000000-0000-4000-8000-000000000100', name: 'bench-files pipeline' };
const PIPELINE_STEPS = 3;

/** Today 00:00Z minus `days - 1` days: the first instant of the service's window (docs/statistics.md). */
function windowStart(days: number, now: Date): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (days - 1) * DAY_MS;
}

/**
 * `total` records created at random over the last 30 UTC days up to two minutes ago, in random
 * order (so any prefix is spread over the 30 days too): agent runs, and pipeline runs of 3 steps
 * (one in ten units), 70 % completed, 20 % error, 10 % canceled.
 */
function generateRecords(total: number, now: Date): SeedRecord[] {
  const random = seeded(16);
  const from = windowStart(30, now);
  const span = now.getTime() - 120_000 - from;
  const weightSum = BENCH_AGENTS.reduce((sum, agent) => sum + agent.weight, 0);
  const pickAgent = () => {
    let left = random() * weightSum;
    for (const agent of BENCH_AGENTS) {
      left -= agent.weight;
      if (left < 0) return agent;
    }
    return BENCH_AGENTS[BENCH_AGENTS.length - 1]!;
  };
  const pickStatus = (): SeedRecord['status'] => {
    const value = random();
    return value < 0.7 ? 'completed' : value < 0.9 ? 'error' : 'canceled';
  };
  const costOf = (status: SeedRecord['status']) => {
    if (status === 'canceled' || (status === 'error' && random() < 0.5)) return { cost: null, tokens: null };
    const cost = Math.round((0.001 + random() * 0.5) * 10_000) / 10_000;
    const input = Math.floor(random() * 5_000);
    return {
      cost,
      tokens: {
        input,
        output: Math.floor(random() * 2_000),
        cacheRead: Math.floor(random() * 20_000),
        cacheCreation: Math.floor(random() * 3_000),
      },
    };
  };
  const sources: SeedRecord['source'][] = ['manual', 'manual', 'manual', 'schedule', 'webhook'];
  const records: SeedRecord[] = [];
  while (records.length < total) {
    const createdAt = new Date(from + Math.floor(random() * span));
    const status = pickStatus();
    const source = sources[Math.floor(random() * sources.length)]!;
    if (random() < 0.1 && records.length + PIPELINE_STEPS + 1 <= total) {
      const runId = randomUUID();
      let runCost = 0;
      for (let step = 0; step < PIPELINE_STEPS; step += 1) {
        const last = step === PIPELINE_STEPS - 1;
        const stepStatus = last ? status : 'completed';
        const agent = BENCH_AGENTS[step]!;
        const { cost, tokens } = costOf(stepStatus);
        runCost += cost ?? 0;
        records.push({
          id: randomUUID(),
          kind: 'agent',
          agentId: agent.id,
          agentName: agent.name,
          pipelineId: BENCH_PIPELINE.id,
          pipelineExecutionId: runId,
          stepIndex: step,
          status: stepStatus,
          source,
          cost,
          tokens,
          createdAt: new Date(createdAt.getTime() + step * 20_000),
        });
      }
      records.push({
        id: runId,
        kind: 'pipeline',
        agentId: null,
        agentName: BENCH_PIPELINE.name,
        pipelineId: BENCH_PIPELINE.id,
        pipelineExecutionId: null,
        stepIndex: null,
        status,
        source,
        cost: Math.round(runCost * 10_000) / 10_000,
        tokens: null,
        createdAt,
      });
    } else {
      const agent = pickAgent();
      records.push({
        id: randomUUID(),
        kind: 'agent',
        agentId: agent.id,
        agentName: agent.name,
        pipelineId: null,
        pipelineExecutionId: null,
        stepIndex: null,
        status,
        source,
        ...costOf(status),
        createdAt,
      });
    }
  }
  return records;
}

async function seedAgents(db: Database, now: Date): Promise<void> {
  await db
    .insert(agents)
    .values(
      BENCH_AGENTS.map(({ id, name }) => ({
        id,
        name,
        description: 'bench:files',
        instructions: '',
        maxTurns: 5,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .onDuplicateKeyUpdate({ set: { name: sql`VALUES(name)` } });
  const steps = BENCH_AGENTS.slice(0, PIPELINE_STEPS).map((agent, order) => ({
    id: `step-${order}`,
    agentId: agent.id,
    order,
    inputTemplate: null,
    description: '',
    requiresApproval: false,
  }));
  await db
    .insert(pipelines)
    .values({ id: BENCH_PIPELINE.id, name: BENCH_PIPELINE.name, description: 'bench:files', steps, createdAt: now, updatedAt: now })
    .onDuplicateKeyUpdate({ set: { name: sql`VALUES(name)` } });
}

/** Multi-row INSERTs of INSERT_BATCH records each. */
async function insertRecords(db: Database, records: SeedRecord[]): Promise<number> {
  const started = process.hrtime.bigint();
  for (let i = 0; i < records.length; i += INSERT_BATCH) {
    await db.insert(executions).values(
      records.slice(i, i + INSERT_BATCH).map((record) => {
        const startedAt = new Date(record.createdAt.getTime() + 1_000);
        const durationMs = record.status === 'canceled' ? 3_000 : 15_000;
        return {
          id: record.id,
          kind: record.kind,
          agentId: record.agentId,
          agentName: record.agentName,
          pipelineId: record.pipelineId,
          status: record.status,
          source: record.source,
          task: `bench:files task for ${record.agentName}`,
          instructions: '',
          workingDirectory: '/home/projetos/bench-files',
          model: 'claude-sonnet-4-5',
          pipelineExecutionId: record.pipelineExecutionId,
          stepIndex: record.stepIndex,
          inputTokens: record.tokens?.input ?? null,
          outputTokens: record.tokens?.output ?? null,
          cacheReadTokens: record.tokens?.cacheRead ?? null,
          cacheCreationTokens: record.tokens?.cacheCreation ?? null,
          costUsd: record.cost,
          durationMs,
          turns: 3,
          output: 'OK',
          error: record.status === 'error' ? 'bench:files error' : null,
          createdAt: record.createdAt,
          startedAt,
          finishedAt: new Date(startedAt.getTime() + durationMs),
        };
      }),
    );
  }
  return ms(started) / 1000;
}

/** What the answers must say about `records` for a window of `days` (docs/statistics.md). */
function expected(records: SeedRecord[], days: number, now: Date) {
  const start = windowStart(days, now);
  const inside = records.filter((record) => record.createdAt.getTime() >= start);
  const runs = inside.filter((record) => record.pipelineExecutionId === null);
  const agentRecords = inside.filter((record) => record.kind === 'agent');
  const costed = agentRecords.filter((record) => (record.cost ?? 0) > 0);
  const perAgent = new Map<string, number>();
  for (const record of agentRecords) perAgent.set(record.agentName, (perAgent.get(record.agentName) ?? 0) + 1);
  const statuses: Record<string, number> = {};
  for (const record of runs) statuses[record.status] = (statuses[record.status] ?? 0) + 1;
  return {
    runs: runs.length,
    completed: statuses.completed ?? 0,
    errors: statuses.error ?? 0,
    statuses,
    cost: agentRecords.reduce((sum, record) => sum + (record.cost ?? 0), 0),
    perAgent,
    topCounts: [...perAgent.values()].sort((a, b) => b - a).slice(0, 5),
    costed: costed.length,
    inputTokens: costed.reduce((sum, record) => sum + (record.tokens?.input ?? 0), 0),
    steps: costed.filter((record) => record.pipelineExecutionId !== null).length,
  };
}

type Expected = ReturnType<typeof expected>;
const total = (values: number[]) => values.reduce((sum, value) => sum + value, 0);
const near = (a: number, b: number) => Math.abs(a - b) < 0.01;

/** What is wrong with a /stats/charts answer, or null. */
function checkCharts(answer: any, want: Expected, days: number): string | null {
  if (answer.labels?.length !== days) return `${answer.labels?.length} labels`;
  if (total(answer.executionCounts) !== want.runs) return `runs ${total(answer.executionCounts)} != ${want.runs}`;
  if (total(answer.successCounts) !== want.completed) return `completed ${total(answer.successCounts)} != ${want.completed}`;
  if (total(answer.errorCounts) !== want.errors) return `errors ${total(answer.errorCounts)} != ${want.errors}`;
  if (!near(total(answer.costData), want.cost)) return `cost ${total(answer.costData)} != ${want.cost}`;
  for (const [status, count] of Object.entries(want.statuses))
    if (answer.statusDistribution?.[status] !== count) return `status ${status} ${answer.statusDistribution?.[status]} != ${count}`;
  const counts = (answer.topAgents as Array<{ name: string; count: number }>).map((agent) => agent.count);
  if (counts.join() !== want.topCounts.join()) return `top agents ${counts.join()} != ${want.topCounts.join()}`;
  for (const agent of answer.topAgents as Array<{ name: string; count: number }>)
    if (want.perAgent.get(agent.name) !== agent.count) return `agent ${agent.name} ${agent.count}`;
  return null;
}

/** What is wrong with a /stats/costs answer, or null. */
function checkCosts(answer: any, want: Expected): string | null {
  if (answer.totalExecutions !== want.costed) return `totalExecutions ${answer.totalExecutions} != ${want.costed}`;
  if (!near(answer.totalCost, want.cost)) return `totalCost ${answer.totalCost} != ${want.cost}`;
  if (answer.tokens?.input !== want.inputTokens) return `input tokens ${answer.tokens?.input} != ${want.inputTokens}`;
  const steps = total((answer.byPipeline as Array<{ steps: number }>).map((pipeline) => pipeline.steps));
  if (steps !== want.steps) return `pipeline steps ${steps} != ${want.steps}`;
  return null;
}

interface StatsCase {
  label: string;
  route: string;
  check: (answer: any, records: SeedRecord[], now: Date) => string | null;
}

const STATS_CASES: StatsCase[] = [
  {
    label: '/stats/charts?days=7',
    route: '/stats/charts?days=7',
    check: (answer, records, now) => checkCharts(answer, expected(records, 7, now), 7),
  },
  {
    label: '/stats/charts?days=30',
    route: '/stats/charts?days=30',
    check: (answer, records, now) => checkCharts(answer, expected(records, 30, now), 30),
  },
  {
    label: '/stats/costs?days=30',
    route: '/stats/costs?days=30',
    check: (answer, records, now) => checkCosts(answer, expected(records, 30, now)),
  },
];

/** STATS_CALLS calls of each case, one after another, every answer checked; latencies in ms per case. */
async function timeStats(api: string, records: SeedRecord[]): Promise<number[][]> {
  const figures: number[][] = [];
  for (const statsCase of STATS_CASES) {
    const now = new Date();
    // The expected figures once per case: the answers are compared, not recomputed, per call.
    const memo = new Map<string, string | null>();
    const check = (answer: unknown) => {
      const key = JSON.stringify(answer);
      if (!memo.has(key)) memo.set(key, statsCase.check(answer, records, now));
      return memo.get(key)!;
    };
    for (let i = 0; i < 20; i += 1) await apiCall(api, 'GET', statsCase.route); // warm-up
    const latencies: number[] = [];
    for (let i = 0; i < STATS_CALLS; i += 1) {
      const started = process.hrtime.bigint();
      const answer = await apiCall(api, 'GET', statsCase.route);
      latencies.push(ms(started));
      const wrong = check(answer);
      if (wrong !== null) throw new Error(`GET ${statsCase.route} with ${records.length} records: ${wrong}`);
    }
    figures.push(sorted(latencies));
  }
  return figures;
}

// ---------------------------------------------------------------- folder download

interface ArchiveFigures {
  inputBytes: number;
  folders: number;
  serviceMs: number[];
  serviceBytes: number;
  tarMs: number[];
  tarBytes: number;
  listedFiles: number;
}

/** Text-like content (words from a small vocabulary), so gzip has something to do, as with a project's sources. */
function fileContent(random: () => number, bytes: number): Buffer {
  const words = [
    'const',
    'return',
    'function',
    'value',
    'await',
    'import',
    'export',
    'string',
    'number',
    'if',
    'else',
    'for',
    '{',
    '}',
    '(',
    ')',
    ';',
    '=',
    'data',
    'result',
  ];
  let text = '';
  while (text.length < bytes) {
    const line = Array.from({ length: 4 + Math.floor(random() * 8) }, () => words[Math.floor(random() * words.length)]).join(' ');
    text += `${line} ${Math.floor(random() * 1e6).toString(36)}\n`;
  }
  return Buffer.from(text.slice(0, bytes));
}

/** 1 000 files of 10 KB: 200 at the top, 50 in each of 8 folders and 50 in a folder inside each. */
async function createProject(folder: string): Promise<number> {
  const random = seeded(1000);
  await fsp.rm(folder, { recursive: true, force: true });
  await fsp.mkdir(folder, { recursive: true });
  const directories = [folder];
  for (let part = 1; part <= 8; part += 1) directories.push(path.join(folder, `part-${part}`), path.join(folder, `part-${part}`, 'deep'));
  for (const directory of directories) await fsp.mkdir(directory, { recursive: true });
  for (let i = 0; i < ARCHIVE_FILES; i += 1) {
    const directory = i < 200 ? folder : directories[1 + Math.floor((i - 200) / 50)]!;
    await fsp.writeFile(path.join(directory, `file-${String(i).padStart(4, '0')}.txt`), fileContent(random, ARCHIVE_FILE_BYTES));
  }
  return directories.length;
}

async function benchArchives(api: string, root: string, name: string): Promise<ArchiveFigures> {
  const folder = path.join(root, name);
  const folders = await createProject(folder);
  const url = `${api}/files/download-folder?path=${encodeURIComponent(name)}`;

  // One download saved and listed: a valid gzip of a tar holding the 1 000 files.
  const saved = path.join(os.tmpdir(), `bench-files-${process.pid}.tar.gz`);
  const response = await fetch(url);
  if (response.status !== 200 || response.headers.get('content-type') !== 'application/gzip')
    throw new Error(`download-folder answered ${response.status} ${response.headers.get('content-type')}`);
  const archive = Buffer.from(await response.arrayBuffer());
  await fsp.writeFile(saved, archive);
  let listedFiles: number;
  try {
    const { stdout } = await run('tar', ['-tzf', saved], { maxBuffer: 16 * MB });
    const entries = stdout.split('\n').filter(Boolean);
    listedFiles = entries.filter((entry) => !entry.endsWith('/')).length;
    if (listedFiles !== ARCHIVE_FILES || entries.length !== ARCHIVE_FILES + folders)
      throw new Error(
        `the archive lists ${listedFiles} files and ${entries.length - listedFiles} folders, expected ${ARCHIVE_FILES} and ${folders}`,
      );
    if (!entries.every((entry) => entry.startsWith(`${name}/`))) throw new Error(`an entry of the archive is not under ${name}/`);
  } finally {
    await fsp.rm(saved, { force: true });
  }

  const download = async (): Promise<number> => {
    const started = process.hrtime.bigint();
    const answer = await httpGet(url);
    const elapsed = ms(started);
    // The same files give the same archive: a download of another size is a broken one.
    if (answer.status !== 200 || answer.contentType !== 'application/gzip' || answer.bytes !== archive.length)
      throw new Error(
        `download-folder answered ${answer.status} ${answer.contentType}, ${answer.bytes} bytes (expected ${archive.length})`,
      );
    return elapsed;
  };
  let tarBytes = 0;
  const reference = async (): Promise<number> => {
    const started = process.hrtime.bigint();
    const { stdout } = await run('sh', ['-c', 'tar -czf - -C "$1" "$2" | wc -c', 'sh', root, name]);
    const elapsed = ms(started);
    tarBytes = Number(stdout.trim());
    if (!(tarBytes > 0)) throw new Error(`tar | wc -c printed ${stdout}`);
    return elapsed;
  };

  await download();
  await reference();
  const serviceMs: number[] = [];
  const tarMs: number[] = [];
  for (let i = 0; i < ARCHIVES; i += 1) {
    serviceMs.push(await download());
    tarMs.push(await reference());
  }
  return { inputBytes: ARCHIVE_FILES * ARCHIVE_FILE_BYTES, folders, serviceMs, serviceBytes: archive.length, tarMs, tarBytes, listedFiles };
}

// ---------------------------------------------------------------- main

async function removeCreated(created: string[], folder: string, root: string): Promise<void> {
  for (const target of created) await fsp.rm(target, { recursive: true, force: true });
  await fsp.rm(folder, { recursive: true, force: true });
  // The directories themselves only when nothing else is in them.
  for (const directory of [config.orchestration.uploads.dir, root]) await fsp.rmdir(directory).catch(() => undefined);
}

async function main(): Promise<void> {
  await migrateDatabase(config.mysql);
  await ensureNamespace(config.temporal, config.temporal.namespace);
  const database = createDatabase(config.mysql);
  const root = config.orchestration.workdirRoots[0]!;
  await fsp.mkdir(root, { recursive: true });
  const folderName = 'bench-archive';
  const created: string[] = [];
  const env = Object.fromEntries(Object.keys(FILES_BENCH_ENV).map((name) => [name, process.env[name] as string]));
  const started = await startApi(env);
  const api = started.base.replace(/\/api\/v1$/, '/api');
  try {
    say(
      `uploads: ${UPLOADS} x POST /api/uploads of ${config.orchestration.uploads.maxFileBytes} bytes, each followed by fs.copyFile of the same file ...`,
    );
    const uploads = await benchUploads(api, created);

    say(`statistics: ${SMALL_RECORDS} records ...`);
    const now = new Date();
    const records = generateRecords(RECORDS, now);
    // The benchmark's own database (files-env.ts): its records are replaced on every run.
    await database.db.execute(sql`TRUNCATE TABLE executions`);
    await seedAgents(database.db, now);
    await insertRecords(database.db, records.slice(0, SMALL_RECORDS));
    const small = await timeStats(api, records.slice(0, SMALL_RECORDS));
    say(`statistics: inserting up to ${RECORDS} records ...`);
    const insertSeconds = await insertRecords(database.db, records.slice(SMALL_RECORDS));
    say(`statistics: ${RECORDS} records ...`);
    const large = await timeStats(api, records);

    say(`folder download: ${ARCHIVE_FILES} files, ${ARCHIVES} archives each way ...`);
    const archives = await benchArchives(api, root, folderName);

    const mb = uploads.bytes / MB;
    const uploadRates = sorted(uploads.uploadMs.map((value) => mb / (value / 1000)));
    const copyRates = sorted(uploads.copyMs.map((value) => mb / (value / 1000)));
    const uploadMean = (mb * UPLOADS) / (total(uploads.uploadMs) / 1000);
    const copyMean = (mb * UPLOADS) / (total(uploads.copyMs) / 1000);
    say('');
    say(`files, uploads and statistics (issue 16), ${os.cpus().length} cores; ratio = service / reference`);
    say(
      `uploads: ${UPLOADS} files of ${uploads.bytes} bytes (the limit, accepted), each answer checked (200, one file, size equal on disk)`,
    );
    say('                                            p50 MB/s  mean MB/s     p50 ms');
    say(
      `  POST /api/uploads (node:http, streamed)  ${fmt(percentile(uploadRates, 50))}   ${fmt(uploadMean)}   ${fmt(percentile(sorted(uploads.uploadMs), 50))}`,
    );
    say(
      `  fs.copyFile, same directory              ${fmt(percentile(copyRates, 50))}   ${fmt(copyMean)}   ${fmt(percentile(sorted(uploads.copyMs), 50))}`,
    );
    say(
      `  ratio                                    ${fmt(percentile(uploadRates, 50) / percentile(copyRates, 50), 2)}   ${fmt(uploadMean / copyMean, 2)}`,
    );
    say(
      `statistics: ${STATS_CALLS} calls each, one at a time, every answer's totals checked; ${RECORDS} records inserted in ${insertSeconds.toFixed(1)} s (${Math.ceil((RECORDS - SMALL_RECORDS) / INSERT_BATCH)} INSERTs of ${INSERT_BATCH} rows)`,
    );
    say(`  endpoint                   ${RECORDS} records p50/p99 ms   ${SMALL_RECORDS} records p50/p99 ms   ratio p50   ratio p99`);
    STATS_CASES.forEach((statsCase, i) => {
      const [bigP50, bigP99, smallP50, smallP99] = [
        percentile(large[i]!, 50),
        percentile(large[i]!, 99),
        percentile(small[i]!, 50),
        percentile(small[i]!, 99),
      ];
      say(
        `  ${statsCase.label.padEnd(24)} ${fmt(bigP50, 2)} ${fmt(bigP99, 2)}           ${fmt(smallP50, 2)} ${fmt(smallP99, 2)}        ${fmt(bigP50 / smallP50, 2)}    ${fmt(bigP99 / smallP99, 2)}`,
      );
    });
    const inputMb = archives.inputBytes / MB;
    const serviceP50 = percentile(sorted(archives.serviceMs), 50);
    const tarP50 = percentile(sorted(archives.tarMs), 50);
    say(
      `folder download: ${archives.listedFiles} files of ${ARCHIVE_FILE_BYTES} bytes (${inputMb.toFixed(1)} MB) in ${archives.folders} folders, ${ARCHIVES} archives each, read whole; tar -tzf of one download lists the ${archives.listedFiles} files`,
    );
    say('                                              p50 ms   input MB/s   archive bytes');
    say(
      `  GET /api/files/download-folder          ${fmt(serviceP50)}     ${fmt(inputMb / (serviceP50 / 1000))}   ${String(archives.serviceBytes).padStart(12)}`,
    );
    say(
      `  tar -czf - <folder> | wc -c (GNU tar)   ${fmt(tarP50)}     ${fmt(inputMb / (tarP50 / 1000))}   ${String(archives.tarBytes).padStart(12)}`,
    );
    say(`  ratio (time)                            ${fmt(serviceP50 / tarP50, 2)}     ${fmt(tarP50 / serviceP50, 2)}`);
  } finally {
    await stopService(started.process);
    await removeCreated(created, path.join(root, folderName), root);
    await database.pool.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:files failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
