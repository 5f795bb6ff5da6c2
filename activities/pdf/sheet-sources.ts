import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import type { Pool } from 'mysql2/promise';
import { entryById, rankingTotals, type StoredEntry } from '../../db/ranking-queries';
import { SHEET_DOCUMENT_FIELDS } from '../../domain/pdf/consultant-sheet';
import type { PersonDocument } from '../../domain/person-document';

/** What the consultant sheet is made of: the ranking entry, the ranking's size and the index document. */
export interface ConsultantSources {
  entry: StoredEntry | null;
  totalConsultores: number;
  doc: Partial<PersonDocument> | undefined;
}

/** The index failed (not "no such person"): the sheet cannot be made. */
export class PersonIndexReadError extends Error {
  override name = 'PersonIndexReadError';
}

/** The fields of one index document the sheet shows; undefined when the index has no such person. */
export async function readSheetDocument(
  es: ElasticsearchClient,
  index: string,
  idPessoa: number,
): Promise<Partial<PersonDocument> | undefined> {
  try {
    // ignore 404: an absent person (or index) is an answer, not a failure.
    const response = await es.get<Partial<PersonDocument>>(
      { index, id: String(idPessoa), _source_includes: [...SHEET_DOCUMENT_FIELDS] },
      { ignore: [404] },
    );
    return response.found ? response._source : undefined;
  } catch (error) {
    throw new PersonIndexReadError(`índice de pessoas indisponível: ${(error as Error).message}`, { cause: error });
  }
}

/** The three reads at once: two indexed MySQL lookups and one index `get`. */
export async function readConsultantSources(
  pool: Pool,
  es: ElasticsearchClient,
  index: string,
  idPessoa: number,
): Promise<ConsultantSources> {
  const [entry, totals, doc] = await Promise.all([
    entryById(pool, idPessoa),
    rankingTotals(pool),
    readSheetDocument(es, index, idPessoa),
  ]);
  return { entry, totalConsultores: totals.total, doc };
}
