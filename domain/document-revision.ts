/**
 * The revision of an index document: its primary term and sequence number, which Elasticsearch
 * changes on every write of the document. The job stores the revision each entry was built from,
 * so a read can tell with a cheap multi-get without `_source` whether a document changed since.
 */
export function documentRevision(hit: { _seq_no?: number | null; _primary_term?: number | null }): string | null {
  if (typeof hit._seq_no !== 'number' || typeof hit._primary_term !== 'number') return null;
  return `${hit._primary_term}:${hit._seq_no}`;
}
