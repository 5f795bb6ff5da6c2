import type { estypes } from '@elastic/elasticsearch';
import type { PersonDocument } from '../../domain/person-document';
import { PERSON_INDEX_BASE, personIndexMappings } from '../../domain/person-index';
import { config } from '../../lib/config';
import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { generatePersons } from '../../scripts/generate-persons';
import { generatePersonFor } from '../../scripts/sample-data/generate-person';

const es = createElasticsearch(config.elasticsearch);
const index = indexName(config.elasticsearch, `${PERSON_INDEX_BASE}_it_${process.pid}_${Date.now()}`);
const COUNT = 3_000;
const SEED = 7;
const REFERENCE_DATE = new Date('2025-06-01T00:00:00Z');

let loaded: { count: number; seconds: number };

beforeAll(async () => {
  loaded = await generatePersons({ es, index, count: COUNT, seed: SEED, referenceDate: REFERENCE_DATE, recreate: true });
});

afterAll(async () => {
  await es.indices.delete({ index, ignore_unavailable: true });
  await es.close();
});

describe('person index loaded by generatePersons', () => {
  it('holds every generated person (a rejected document would have failed the load)', async () => {
    expect(index.startsWith('test_')).toBe(true);
    expect(loaded.count).toBe(COUNT);
    expect((await es.count({ index })).count).toBe(COUNT);
  });

  it('left no value unindexed: the generator writes no malformed date', async () => {
    expect((await es.count({ index, query: { exists: { field: '_ignored' } } })).count).toBe(0);
  });

  it('restores the refresh interval after the load', async () => {
    const settings = await es.indices.getSettings({ index, flat_settings: true });
    expect(settings[index]?.settings?.['index.refresh_interval']).toBe('1s');
  });

  it('keeps the mapping as defined (dynamic: false adds no field)', async () => {
    const mapping = (await es.indices.getMapping({ index }))[index]?.mappings;
    expect(mapping?.dynamic).toBe('false');
    expect(Object.keys(mapping?.properties ?? {}).sort()).toEqual(Object.keys(personIndexMappings.properties ?? {}).sort());
  });

  it('returns exactly the generated documents by _id = String(id_pessoa) in one multi-get', async () => {
    const ids = [1, 1500, 3000];
    const response = await es.mget<PersonDocument>({ index, ids: ids.map(String) });
    const sources = response.docs.map((doc) => ('found' in doc && doc.found ? doc._source : null));
    expect(sources).toEqual(ids.map((id) => generatePersonFor(SEED, id, REFERENCE_DATE)));
  });

  it('aggregates assessment areas on the keyword subfield', async () => {
    const response = await es.search({
      index,
      size: 0,
      aggs: { areas: { terms: { field: 'consultoria.areas_avaliacao.keyword', size: 100 } } },
    });
    const buckets = (response.aggregations?.areas as estypes.AggregationsStringTermsAggregate)
      .buckets as estypes.AggregationsStringTermsBucket[];
    const keys = buckets.map((bucket) => bucket.key);
    expect(keys.length).toBeGreaterThan(20);
    expect(keys).toEqual(expect.arrayContaining(['Educação', 'Saúde Coletiva', 'Ciência da Computação']));
    // Damaged spellings are separate buckets: the areas endpoint has to repair and merge them.
    expect(keys.some((key) => /\d{3}/.test(key))).toBe(true);
  });

  it('finds persons by a full-text match on the assessment area, with the active filter', async () => {
    const response = await es.search<PersonDocument>({
      index,
      size: 20,
      query: {
        bool: {
          must: { match: { 'consultoria.areas_avaliacao': 'Saúde Coletiva' } },
          filter: { term: { ativo: true } },
        },
      },
    });
    const hits = response.hits.hits;
    expect(hits.length).toBeGreaterThan(0);
    for (const hit of hits) expect(hit._source?.ativo).toBe(true);
    expect(hits[0]?._source?.consultoria?.some((c) => c.areas_avaliacao?.includes('Saúde Coletiva'))).toBe(true);
  });

  it('searches knowledge areas and research lines without matching on Portuguese stop words', async () => {
    const lines = await es.count({ index, query: { match: { 'consultoria.linhas_pesquisa': 'formação de professores' } } });
    expect(lines.count).toBeGreaterThan(0);
    const stopWordOnly = await es.count({ index, query: { match: { 'consultoria.areas_conhecimento.nome': 'de' } } });
    expect(stopWordOnly.count).toBe(0);
  });

  it('filters on an exact assessment area, case-insensitively when asked', async () => {
    const exact = await es.count({ index, query: { term: { 'consultoria.areas_avaliacao.keyword': 'Educação' } } });
    const anyCase = await es.count({
      index,
      query: { term: { 'consultoria.areas_avaliacao.keyword': { value: 'educação', case_insensitive: true } } },
    });
    expect(exact.count).toBeGreaterThan(0);
    expect(anyCase.count).toBe(exact.count);
  });

  it('is read whole by a point in time with search_after on _shard_doc (the ranking job)', async () => {
    const pit = await es.openPointInTime({ index, keep_alive: '1m' });
    try {
      const seen = new Set<string>();
      let after: estypes.SortResults | undefined;
      for (;;) {
        const page = await es.search({
          pit: { id: pit.id, keep_alive: '1m' },
          size: 1_000,
          sort: [{ _shard_doc: 'asc' }],
          _source: false,
          ...(after ? { search_after: after } : {}),
        });
        const hits = page.hits.hits;
        if (hits.length === 0) break;
        for (const hit of hits) seen.add(hit._id ?? '');
        after = hits[hits.length - 1]?.sort;
      }
      expect(seen.size).toBe(COUNT);
    } finally {
      await es.closePointInTime({ id: pit.id });
    }
  });
});
