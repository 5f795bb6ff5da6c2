import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Execution } from './executions-store';
import { AGENT_CLIS } from '../domain/agent-clis';

/**
 * Markdown reports of executions (docs/reports-notifications-settings.md): written both in the
 * data area (`<dataDir>/reports/`, what the /reports routes serve) and in the external reports
 * directory (AGENT_REPORTS_DIR, the user's copy).
 */

export interface ReportDirs {
  dataDir: string;
  reportsDir: string;
}

/** The fields of a record a report shows (a pipeline record can reuse it). */
export type ReportRecord = Pick<
  Execution,
  | 'id'
  | 'kind'
  | 'agentName'
  | 'status'
  | 'source'
  | 'model'
  | 'workingDirectory'
  | 'sessionId'
  | 'costUsd'
  | 'durationMs'
  | 'turns'
  | 'task'
  | 'instructions'
  | 'output'
  | 'outputTruncated'
  | 'error'
  | 'createdAt'
  | 'startedAt'
  | 'finishedAt'
> &
  Partial<Pick<Execution, 'repoName' | 'repoBranch' | 'repoCommit' | 'host' | 'cli'>>;

/** `2026-11-21_150311_code-reviewer_1a2b3c4d.md`: UTC start, agent slug, first 8 hex of the id. */
export const REPORT_FILE_NAME = /^\d{4}-\d{2}-\d{2}_\d{6}_[a-z0-9]+(?:-[a-z0-9]+)*_[0-9a-f]{8}\.md$/;
const SLUG_MAX = 40;

export const reportsDirectory = (dataDir: string): string => path.join(dataDir, 'reports');

/** Lower-case ASCII letters and digits joined by single dashes; `agent` when nothing is left. */
export function slugOf(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, SLUG_MAX)
    .replace(/^-+|-+$/g, '');
  return slug || 'agent';
}

export function reportFileName(record: Pick<Execution, 'id' | 'agentName' | 'createdAt'>): string {
  const stamp = record.createdAt.toISOString(); // 2026-11-21T15:03:11.123Z
  const day = stamp.slice(0, 10);
  const time = stamp.slice(11, 19).replace(/:/g, '');
  const shortId = record.id
    .replace(/[^0-9a-fA-F]/g, '')
    .toLowerCase()
    .slice(0, 8)
    .padEnd(8, '0');
  return `${day}_${time}_${slugOf(record.agentName)}_${shortId}.md`;
}

export function isReportFileName(name: string): boolean {
  return REPORT_FILE_NAME.test(name);
}

function formatDuration(ms: number | null): string {
  if (ms === null) return '—';
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes} min ${Math.round(seconds - minutes * 60)} s`;
}

const time = (value: Date | null): string => (value ? value.toISOString() : '—');

/** A fence longer than any backtick run inside `text`, so the text can never close it. */
function fenced(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text}\n${fence}`;
}

/** Markdown of one execution, in the panel's language (pt-BR); user texts are fenced so they cannot alter the layout. */
export function reportMarkdown(record: ReportRecord): string {
  const title = record.kind === 'pipeline' ? 'Execução de pipeline' : 'Execução de agente';
  const rows: Array<[string, string]> = [
    ['Execução', record.id],
    [record.kind === 'pipeline' ? 'Pipeline' : 'Agente', record.agentName],
    ['Status', record.status],
    ['Origem', record.source],
    // The coding-agent CLI an agent run used (a pipeline run has none: its steps' reports name theirs).
    ...(record.cli ? ([['CLI', `${AGENT_CLIS[record.cli].label} (${record.cli})`]] as Array<[string, string]>) : []),
    ['Modelo', record.model || '— (o padrão do CLI)'],
    ['Diretório de trabalho', record.workingDirectory],
    // The machine the run worked on (docs/multi-host.md): where its files are.
    ...(record.host ? ([['Máquina', record.host]] as Array<[string, string]>) : []),
    // A run in a repository (docs/repositories.md): where its work went.
    ...(record.repoName
      ? ([
          ['Repositório', `${record.repoName} (${record.repoBranch ?? '—'})`],
          ['Commit', record.repoCommit ?? '— (nada mudou)'],
        ] as Array<[string, string]>)
      : []),
    ['Criada', time(record.createdAt)],
    ['Iniciada', time(record.startedAt)],
    ['Finalizada', time(record.finishedAt)],
    ['Duração', formatDuration(record.durationMs)],
    ['Custo (USD)', record.costUsd === null ? '—' : record.costUsd.toFixed(4)],
    ['Turnos', record.turns === null ? '—' : String(record.turns)],
    ['Sessão', record.sessionId ?? '—'],
  ];
  const cell = (value: string) => value.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
  const sections = [
    `# ${title}: ${cell(record.agentName)}`,
    ['| Campo | Valor |', '|---|---|', ...rows.map(([name, value]) => `| ${name} | ${cell(value)} |`)].join('\n'),
    `## Tarefa\n\n${fenced(record.task)}`,
    `## Instruções adicionais\n\n${record.instructions ? fenced(record.instructions) : '—'}`,
    `## Saída${record.outputTruncated ? ' (cortada)' : ''}\n\n${record.output ? fenced(record.output) : '—'}`,
  ];
  if (record.error) sections.push(`## Erro\n\n${fenced(record.error)}`);
  return sections.join('\n\n') + '\n';
}

/** Writes through a temporary file and a rename, so a reader never sees half a report. */
async function writeAtomically(dir: string, name: string, content: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true });
  const temporary = path.join(dir, `.${name}.${randomUUID()}.tmp`);
  await fs.writeFile(temporary, content, 'utf8');
  await fs.rename(temporary, path.join(dir, name));
}

/**
 * Writes the report in both directories and returns its file name. The name depends only on the
 * record, so a retried activity overwrites the same files. Each directory then keeps its newest
 * `kept` reports (REPORTS_KEPT), the oldest pruned: the directories are bounded where they are written.
 */
export async function writeExecutionReport(record: ReportRecord, dirs: ReportDirs, kept: number): Promise<string> {
  const name = reportFileName(record);
  const content = reportMarkdown(record);
  for (const dir of [reportsDirectory(dirs.dataDir), dirs.reportsDir]) {
    await writeAtomically(dir, name, content);
    await pruneReports(dir, kept);
  }
  return name;
}

/** The name is not a report file name (traversal, separators, anything else): the routes answer 400. */
export class InvalidReportNameError extends Error {
  override name = 'InvalidReportNameError';
  constructor(readonly fileName: string) {
    super('invalid report file name (expected YYYY-MM-DD_HHMMSS_<agent-slug>_<8 hex>.md)');
  }
}

function checkedPath(dataDir: string, fileName: string): string {
  if (!isReportFileName(fileName)) throw new InvalidReportNameError(fileName);
  return path.join(reportsDirectory(dataDir), fileName);
}

const isMissing = (error: unknown) => (error as { code?: unknown }).code === 'ENOENT';

/**
 * Deletes the oldest reports of `dir` beyond the newest `kept`; returns how many. Names start with
 * the execution's UTC creation time, so name order is age order. Only report file names are
 * touched: other files of the directory (the external one is the user's) are never deleted.
 */
export async function pruneReports(dir: string, kept: number): Promise<number> {
  let names: string[];
  try {
    names = await fs.readdir(dir);
  } catch (error) {
    if (isMissing(error)) return 0;
    throw error;
  }
  const reports = names.filter(isReportFileName).sort();
  const pruned = reports.slice(0, Math.max(0, reports.length - kept));
  for (const name of pruned) {
    await fs.unlink(path.join(dir, name)).catch((error: unknown) => {
      if (!isMissing(error)) throw error; // pruned by a concurrent writer
    });
  }
  return pruned.length;
}

export interface ReportEntry {
  filename: string;
  size: number;
  modifiedAt: Date;
}

/** Reports of the data area, newest first (names start with their UTC time). */
export async function listReports(dataDir: string): Promise<ReportEntry[]> {
  let names: string[];
  try {
    names = await fs.readdir(reportsDirectory(dataDir));
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
  const entries: ReportEntry[] = [];
  for (const filename of names.filter(isReportFileName).sort().reverse()) {
    try {
      const stat = await fs.stat(path.join(reportsDirectory(dataDir), filename));
      if (stat.isFile()) entries.push({ filename, size: stat.size, modifiedAt: stat.mtime });
    } catch (error) {
      if (!isMissing(error)) throw error; // deleted meanwhile
    }
  }
  return entries;
}

/** The report's Markdown; null when there is none by that name. */
export async function readReport(dataDir: string, fileName: string): Promise<string | null> {
  try {
    return await fs.readFile(checkedPath(dataDir, fileName), 'utf8');
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** Deletes the data area's copy (the external directory is the user's); false when there is none. */
export async function deleteReport(dataDir: string, fileName: string): Promise<boolean> {
  try {
    await fs.unlink(checkedPath(dataDir, fileName));
    return true;
  } catch (error) {
    if (isMissing(error)) return false;
    throw error;
  }
}
