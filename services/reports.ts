import { deleteReport as removeReport, InvalidReportNameError, listReports as storedReports, readReport as storedReport } from '../activities/agents/reports';
import { InvalidInputError, NotFoundError } from './errors';

/** Markdown reports of the data area (docs/reports-notifications-settings.md). */

export interface ReportDeps {
  /** AGENT_DATA_DIR: the reports are in its `reports/`. */
  dataDir: string;
}

/** A name that is not a report file name (`..`, separators, NUL...) is refused before any file access. */
async function checkedName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof InvalidReportNameError) throw new InvalidInputError(error.message);
    throw error;
  }
}

export function listReports(deps: ReportDeps): ReturnType<typeof storedReports> {
  return storedReports(deps.dataDir);
}

/** The report's Markdown. */
export async function readReport(deps: ReportDeps, filename: string): Promise<string> {
  const markdown = await checkedName(() => storedReport(deps.dataDir, filename));
  if (markdown === null) throw new NotFoundError(`report ${filename} not found`);
  return markdown;
}

export async function deleteReport(deps: ReportDeps, filename: string): Promise<void> {
  if (!(await checkedName(() => removeReport(deps.dataDir, filename)))) throw new NotFoundError(`report ${filename} not found`);
}
