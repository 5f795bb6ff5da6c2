import { z } from 'zod';
import {
  deleteReport as removeReport,
  InvalidReportNameError,
  listReports as storedReports,
  readReport as storedReport,
} from '../db/reports-store';
import { InvalidInputError, NotFoundError } from './errors';

/** Markdown reports of the data area (docs/reports-notifications-settings.md; contract admin-panel.md 3.16). */

export interface ReportDeps {
  /** AGENT_DATA_DIR: the reports are in its `reports/`. */
  dataDir: string;
}

/** The contract's list: at most 100 names, newest first. */
export const REPORTS_LISTED = 100;

/** Contract 5.11: what `App._openReport` reads (`content`). */
export const reportSchema = z
  .object({
    filename: z.string().meta({ description: 'The name asked for (AAAA-MM-DD_HHMMSS_<slug-do-agente>_<8 hex>.md)' }),
    content: z.string().meta({ description: 'The Markdown report as stored' }),
  })
  .meta({ id: 'Report' });
export type Report = z.infer<typeof reportSchema>;

/** GET /reports: the newest report file names, newest first. */
export const reportListSchema = z.array(z.string()).max(REPORTS_LISTED);

/** InvalidReportNameError's refusal in the client's words (pt-BR, docs/errors.md). */
const INVALID_REPORT_NAME = 'Nome de arquivo de relatório inválido (esperado AAAA-MM-DD_HHMMSS_<slug-do-agente>_<8 hex>.md)';

/** A name that is not a report file name (`..`, separators, NUL...) is refused before any file access. */
async function checkedName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidReportNameError) throw new InvalidInputError(INVALID_REPORT_NAME);
    throw error;
  }
}

/** The newest REPORTS_LISTED report file names, newest first. */
export async function listReports(deps: ReportDeps): Promise<string[]> {
  return (await storedReports(deps.dataDir)).slice(0, REPORTS_LISTED).map((entry) => entry.filename);
}

export async function readReport(deps: ReportDeps, filename: string): Promise<Report> {
  const content = await checkedName(() => storedReport(deps.dataDir, filename));
  if (content === null) throw new NotFoundError(`Relatório não encontrado: ${filename}`);
  return { filename, content };
}

export async function deleteReport(deps: ReportDeps, filename: string): Promise<void> {
  if (!(await checkedName(() => removeReport(deps.dataDir, filename)))) throw new NotFoundError(`Relatório não encontrado: ${filename}`);
}
