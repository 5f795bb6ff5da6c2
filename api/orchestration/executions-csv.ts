import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { executionView, type ExecutionSummary } from '../../services/executions';

/** The CSV export's header row, exactly as the panel's contract has it (3.8; docs/executions.md). */
export const CSV_HEADER = ['ID', 'Tipo', 'Nome', 'Status', 'Início', 'Fim', 'Duração (ms)', 'Custo (USD)', 'Turnos'] as const;

/** The UTF-8 byte order mark the export starts with, so spreadsheets read the accents as UTF-8. */
export const UTF8_BOM = '\uFEFF';

/**
 * One record as CSV cells, in CSV_HEADER's order: times in ISO 8601 UTC (`Início` of a record that
 * never ran is when it was queued, as in the view), absent values empty. Numbers stay numbers, so the
 * formula escaping (csvStream) never touches them, only texts.
 */
export function csvRow(record: ExecutionSummary): Array<string | number | null> {
  const view = executionView(record);
  return [
    view.id,
    view.type,
    view.agentName ?? view.pipelineName ?? '',
    view.status,
    view.startedAt,
    view.endedAt,
    view.durationMs,
    view.costUsd,
    view.numTurns,
  ];
}

/** `execucoes_<YYYY-MM-DD>.csv`, the name the panel gives the download, for the UTC day of `now`. */
export function exportFileName(now: Date): string {
  return `execucoes_${now.toISOString().slice(0, 10)}.csv`;
}

/**
 * The CSV as a stream fed batch by batch: the BOM and the header row (as the contract writes it,
 * unquoted), then one row per record with every value in double quotes (csv-stringify `quoted`,
 * `quoted_empty`; quotes inside doubled). Names are user input: a cell starting with `=`, `+`, `-`,
 * `@`, a tab or a carriage return would run as a formula in a spreadsheet, so csv-stringify's
 * `escape_formulas` prefixes it with `'`, which spreadsheets show as text and leaves the value
 * readable. The first batch is read before anything is sent, so a failing database still answers 500
 * instead of a cut file; a later failure aborts the download.
 */
export async function csvStream(batches: AsyncIterator<ExecutionSummary[]>): Promise<Readable> {
  const first = await batches.next();
  async function* rows() {
    for (let next = first; !next.done; next = await batches.next()) for (const record of next.value) yield csvRow(record);
  }
  const stringifier = stringify({ quoted: true, quoted_empty: true, eof: true, record_delimiter: 'unix', escape_formulas: true });
  const body = new PassThrough();
  body.write(`${UTF8_BOM}${CSV_HEADER.join(',')}\n`);
  const source = Readable.from(rows());
  source.on('error', (error) => stringifier.destroy(error));
  stringifier.on('error', (error) => body.destroy(error));
  source.pipe(stringifier).pipe(body);
  return body;
}
