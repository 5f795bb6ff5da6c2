import { QueueFullError } from '../../lib/pdf/semaphore';
import type { BrowserPool } from '../../lib/pdf/browser-pool';
import { entryById, rankingTotals } from '../../db/ranking-queries';
import { consultantSheet, SHEET_DOCUMENT_FIELDS } from '../../domain/pdf/consultant-sheet';
import { consultantSheetDocument } from '../../domain/pdf/consultant-template';
import { consultantSheetFileName, teamSheetFileName } from '../../domain/pdf/file-names';
import { sheetDate } from '../../domain/pdf/sheet-date';
import { teamStatistics, uniqueMembers, type TeamRequest } from '../../domain/pdf/team-statistics';
import { teamSheetDocument } from '../../domain/pdf/team-template';
import { NotFoundError } from '../errors';
import { PersonIndexError, readPersonFields } from '../persons';
import type { RankingDeps } from './deps';

/** The PDF sheets (docs/pdf.md): read, shape (domain/pdf/), render in the process's browser pool. */

export interface SheetDeps extends RankingDeps {
  pdf: Pick<BrowserPool, 'render'>;
  /** RANKING_SCHEDULE_TIMEZONE: the sheets' dates. */
  timeZone: string;
}

export const CONSULTANT_NOT_FOUND = 'Consultor não encontrado';

/** Every place to render is taken and PDF_QUEUE_LIMIT sheets already wait: try again later. */
export class SheetQueueFullError extends Error {
  override name = 'SheetQueueFullError';
  constructor(readonly maxWaiting: number) {
    super(`${maxWaiting} sheets already wait`);
  }
}

/** The sheet could not be made (the index failed, the browser failed); `message` says why. */
export class SheetGenerationError extends Error {
  override name = 'SheetGenerationError';
}

/** Builds and prints a sheet; whatever fails in there is a generation failure, except a full waiting line. */
async function rendered(deps: SheetDeps, document: () => Parameters<BrowserPool['render']>[0]): Promise<Buffer> {
  try {
    return await deps.pdf.render(document());
  } catch (error) {
    if (error instanceof QueueFullError) throw new SheetQueueFullError(error.maxWaiting);
    throw new SheetGenerationError(error instanceof Error ? error.message : String(error), { cause: error });
  }
}

/**
 * A consultant's sheet: the entry, the ranking's size and the index document read at once (two
 * indexed MySQL lookups and one `get`). A MySQL failure propagates as it is (the ranking store's
 * 503); an index failure is a SheetGenerationError; a person in neither is a NotFoundError.
 */
export async function consultantSheetPdf(deps: SheetDeps, idPessoa: number): Promise<{ pdf: Buffer; fileName: string }> {
  const [entry, totals, doc] = await Promise.all([
    entryById(deps.pool, idPessoa),
    rankingTotals(deps.pool),
    readPersonFields(deps.persons, idPessoa, SHEET_DOCUMENT_FIELDS).catch((error: unknown) => {
      if (!(error instanceof PersonIndexError)) throw error;
      throw new SheetGenerationError(`índice de pessoas indisponível: ${error.message}`, { cause: error.cause });
    }),
  ]);
  if (!entry && !doc) throw new NotFoundError(CONSULTANT_NOT_FOUND);
  const date = sheetDate(new Date(), deps.timeZone);
  const sheet = consultantSheet({ idPessoa, entry, doc, totalConsultores: totals.total, cvBaseUrl: deps.cvBaseUrl });
  const pdf = await rendered(deps, () => consultantSheetDocument(sheet, date.printed));
  return { pdf, fileName: consultantSheetFileName(idPessoa, sheet.nome, date.day) };
}

/** A team's sheet from a validated, non-empty request; members listed twice count once. */
export async function teamSheetPdf(deps: SheetDeps, body: TeamRequest): Promise<{ pdf: Buffer; fileName: string }> {
  const request = { ...body, area_avaliacao: body.area_avaliacao || null, consultores: uniqueMembers(body.consultores) };
  const date = sheetDate(new Date(), deps.timeZone);
  const statistics = teamStatistics(request.consultores);
  const pdf = await rendered(deps, () => teamSheetDocument({ request, statistics, generatedAt: date.printed }));
  return { pdf, fileName: teamSheetFileName(request.tema, date.day) };
}
