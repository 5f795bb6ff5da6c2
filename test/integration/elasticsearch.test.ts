import { createElasticsearch, indexName } from '../../lib/elasticsearch';
import { config } from '../../lib/config';

const es = createElasticsearch(config.elasticsearch);
const index = indexName(config.elasticsearch, `probe_${process.pid}_${Date.now()}`);

afterAll(async () => {
  await es.indices.delete({ index, ignore_unavailable: true });
  await es.close();
});

describe('Elasticsearch', () => {
  it('runs the same major version as the client pinned in package.json', async () => {
    const pinned = (require('../../package.json') as { dependencies: Record<string, string> }).dependencies;
    const clientMajor = pinned['@elastic/elasticsearch']?.split('.')[0];
    // `GET /` (info) does not exist in the integ-test distribution; the node info carries the version.
    const info = await es.nodes.info({ node_id: '_local', metric: '_none' });
    const versions = Object.values(info.nodes).map((node) => node.version.split('.')[0]);
    expect(versions).toEqual([clientMajor]);
  });

  it('indexes documents and finds one by a full-text query', async () => {
    expect(index.startsWith(config.elasticsearch.indexPrefix)).toBe(true);
    await es.indices.create({
      index,
      mappings: { properties: { nome: { type: 'text' }, ativo: { type: 'boolean' } } },
    });
    await es.bulk({
      index,
      refresh: true,
      operations: [
        { index: { _id: '1' } },
        { nome: 'Maria da Conceição', ativo: true },
        { index: { _id: '2' } },
        { nome: 'João Pereira', ativo: false },
      ],
    });

    const result = await es.search<{ nome: string; ativo: boolean }>({ index, query: { match: { nome: 'conceição' } } });

    expect(result.hits.hits.map((hit) => [hit._id, hit._source])).toEqual([['1', { nome: 'Maria da Conceição', ativo: true }]]);
    expect((await es.count({ index })).count).toBe(2);
  });
});
