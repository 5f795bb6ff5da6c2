import type { estypes } from '@elastic/elasticsearch';

/**
 * The person index (`pessoas`): its base name and its definition for `indices.create`.
 * docs/index-document.md explains each choice. In short: only what a query, filter or aggregation of
 * the service uses is indexed; everything else is kept in `_source` only (returned, never searched),
 * which keeps 300 000+ documents small and fast to load and to read.
 *
 * Elasticsearch here is the server-only distribution (no analysis-common): the analysis below uses
 * only what server core ships (standard tokenizer, lowercase and stop filters, lowercase normalizer).
 */

/** Base name; the configured prefix is added by `indexName` (lib/elasticsearch.ts). */
export const PERSON_INDEX_BASE = 'pessoas';

/** Analyzer of the texts the theme suggestion searches: Portuguese stop words do not count as matches. */
export const PERSON_TEXT_ANALYZER = 'texto_pt';

export const personIndexSettings: estypes.IndicesIndexSettings = {
  // 300 000 documents of a few KB: one shard is plenty, and one node cannot hold replicas.
  number_of_shards: 1,
  number_of_replicas: 0,
  refresh_interval: '1s',
  // The default (LZ4) codec: every ranking page multi-gets 50 documents at random, and
  // best_compression's large DEFLATE blocks made that ~15 ms; it would halve the disk (460 → 230 MB).
  codec: 'default',
  analysis: {
    filter: {
      stop_pt: { type: 'stop', stopwords: '_portuguese_' },
    },
    analyzer: {
      [PERSON_TEXT_ANALYZER]: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'stop_pt'] },
    },
  },
};

/** Exact values for filters and terms aggregations; longer values are kept in `_source`, not indexed. */
const keyword: estypes.MappingKeywordProperty = { type: 'keyword', ignore_above: 256 };

/**
 * Dates of the source: `YYYY-MM-DD`. A malformed one (`0000-00-00`, `15/03/2004`) is left unindexed
 * (listed in `_ignored`) instead of rejecting the whole person: the job must still rank that person.
 */
const date: estypes.MappingDateProperty = { type: 'date', format: 'yyyy-MM-dd', ignore_malformed: true };

/** Full text for the suggestion search, plus the exact value for the area filter and aggregations. */
const searchableText: estypes.MappingTextProperty = {
  type: 'text',
  analyzer: PERSON_TEXT_ANALYZER,
  fields: { keyword },
};

/** Returned in `_source`, never searched: not parsed at all (fastest, and accepts any shape). */
const sourceOnly: estypes.MappingObjectProperty = { type: 'object', enabled: false };

export const personIndexMappings: estypes.MappingTypeMapping = {
  // Unknown fields stay in `_source` (the raw endpoint returns them) but are not indexed: a new field
  // of the source system never rejects a person ('strict' would) nor grows the mapping (true would).
  dynamic: false,
  properties: {
    id_pessoa: { type: 'integer' },
    nome: { type: 'text', fields: { keyword } },
    ativo: { type: 'boolean' },
    anos_atuacao: { type: 'float' },
    data_nascimento: date,
    nacionalidade: keyword,
    id_cv: keyword,

    // Block B and the theme suggestion: plain objects, not nested (see docs/index-document.md).
    consultoria: {
      properties: {
        situacao: keyword,
        inicio: date,
        fim: date,
        ies_nome: keyword,
        ies_sigla: keyword,
        areas_avaliacao: searchableText,
        areas_conhecimento: {
          properties: {
            nome: searchableText,
            area_avaliacao: keyword,
          },
        },
        linhas_pesquisa: { type: 'text', analyzer: PERSON_TEXT_ANALYZER },
      },
    },
    // Block A: small (a few persons, a few terms); indexed so "was a coordinator" is one filter.
    coordenacoes_agency: {
      properties: {
        tipo: keyword,
        area_avaliacao: keyword,
        inicio: date,
        fim: date,
        funcao: keyword,
      },
    },
    // Degrees: `hierarquia` and `ano` are strings that are not always digits ("N/I", "s/d"): keyword.
    titulacoes: {
      properties: {
        grau: keyword,
        hierarquia: keyword,
        ano: keyword,
        area_avaliacao: keyword,
      },
    },

    inscricoes: sourceOnly,
    avaliacoes_comissao: sourceOnly,
    premiacoes: sourceOnly,
    bolsas_funder: sourceOnly,
    participacoes: sourceOnly,
    orientacoes: sourceOnly,
    membros_banca: sourceOnly,
    docencias: sourceOnly,
    idiomas: sourceOnly,
    enderecos: sourceOnly,
    empregos: sourceOnly,
    projetos: sourceOnly,
  },
};
