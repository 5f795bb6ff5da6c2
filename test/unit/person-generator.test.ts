import type { PersonDocument } from '../../domain/person-document';
import { personIndexMappings } from '../../domain/person-index';
import { damageEncoding } from '../../domain/text';
import { generatePerson, generatePersonFor, personRandom } from '../../scripts/sample-data/generate-person';
import { Random, formatDay, personSeed } from '../../scripts/sample-data/random';

const REFERENCE_DATE = new Date('2025-06-01T00:00:00Z');
const SEED = 42;
const SAMPLE_SIZE = 5_000;

const sample: PersonDocument[] = Array.from({ length: SAMPLE_SIZE }, (_, i) => generatePersonFor(SEED, i + 1, REFERENCE_DATE));

function share(predicate: (person: PersonDocument) => boolean): number {
  return sample.filter(predicate).length / sample.length;
}

describe('damageEncoding', () => {
  it('writes accented letters as their Latin-1 code in three digits', () => {
    expect(damageEncoding('João')).toBe('Jo227o');
    expect(damageEncoding('Conceição')).toBe('Concei231227o');
    expect(damageEncoding('Ângela Araújo')).toBe('194ngela Ara250jo');
    expect(damageEncoding('Saúde Coletiva')).toBe('Sa250de Coletiva');
  });

  it('leaves a text without accents unchanged', () => {
    expect(damageEncoding('Maria da Silva')).toBe('Maria da Silva');
    expect(damageEncoding('')).toBe('');
  });
});

describe('random', () => {
  it('formats day numbers as YYYY-MM-DD (as Date would)', () => {
    for (const day of [-25_567, -1, 0, 59, 60, 11_016, 19_509, 20_240, 47_482]) {
      expect(formatDay(day)).toBe(new Date(day * 86_400_000).toISOString().slice(0, 10));
    }
  });

  it('gives unrelated streams to neighbouring ids and seeds', () => {
    const firsts = new Set([1, 2, 3].flatMap((id) => [SEED, SEED + 1].map((seed) => new Random(personSeed(seed, id)).next())));
    expect(firsts.size).toBe(6);
  });
});

describe('generatePerson determinism', () => {
  it('gives the same document for the same seed and id', () => {
    expect(generatePersonFor(SEED, 123, REFERENCE_DATE)).toEqual(generatePersonFor(SEED, 123, REFERENCE_DATE));
    expect(generatePerson(personRandom(7, 9), 9, REFERENCE_DATE)).toEqual(generatePerson(personRandom(7, 9), 9, REFERENCE_DATE));
  });

  it('gives a different document for another seed', () => {
    expect(generatePersonFor(SEED + 1, 123, REFERENCE_DATE)).not.toEqual(generatePersonFor(SEED, 123, REFERENCE_DATE));
  });

  it('does not depend on which ids were generated before', () => {
    const batch = Array.from({ length: 100 }, (_, i) => generatePersonFor(SEED, i + 1, REFERENCE_DATE));
    expect(generatePersonFor(SEED, 57, REFERENCE_DATE)).toEqual(batch[56]);
    expect(batch[56]?.id_pessoa).toBe(57);
  });

  it('contains only JSON values (no undefined properties that Elasticsearch would drop)', () => {
    for (const person of sample.slice(0, 500)) expect(JSON.parse(JSON.stringify(person))).toStrictEqual(person);
  });
});

describe('generated distributions', () => {
  it('has about 65% active persons', () => {
    expect(share((p) => p.ativo)).toBeGreaterThan(0.6);
    expect(share((p) => p.ativo)).toBeLessThan(0.7);
  });

  it('leaves out curriculum data as the source does', () => {
    const missingCv = share((p) => p.id_cv == null);
    expect(missingCv).toBeGreaterThan(0.07);
    expect(missingCv).toBeLessThan(0.13);
    expect(share((p) => p.titulacoes === undefined)).toBeGreaterThan(0.03);
    expect(share((p) => p.titulacoes === undefined)).toBeLessThan(0.08);
    expect(share((p) => p.idiomas === undefined)).toBeGreaterThan(0.11);
    expect(share((p) => p.idiomas === undefined)).toBeLessThan(0.19);
    expect(share((p) => p.enderecos === undefined)).toBeGreaterThan(0.05);
    expect(share((p) => !('data_nascimento' in p))).toBeGreaterThan(0.02);
    expect(share((p) => p.data_nascimento === null)).toBeGreaterThan(0.01);
  });

  it('has absent lists as well as empty ones', () => {
    expect(share((p) => p.premiacoes === undefined)).toBeGreaterThan(0.2);
    expect(share((p) => Array.isArray(p.premiacoes) && p.premiacoes.length === 0)).toBeGreaterThan(0.2);
  });

  it('damages about 3% of the names and about 5% of the area and research-line texts', () => {
    const damagedNames = share((p) => /\d{3}/.test(p.nome));
    expect(damagedNames).toBeGreaterThan(0.015);
    expect(damagedNames).toBeLessThan(0.05);

    const areaTexts = sample.flatMap((p) =>
      (p.consultoria ?? []).flatMap((c) => [
        ...(c.areas_avaliacao ?? []),
        ...(c.linhas_pesquisa ?? []),
        ...(c.areas_conhecimento ?? []).map((k) => k.nome),
      ]),
    );
    const accented = areaTexts.filter((text) => /[À-ü]|\d{3}/.test(text));
    const damagedShare = accented.filter((text) => /\d{3}/.test(text)).length / accented.length;
    expect(damagedShare).toBeGreaterThan(0.03);
    expect(damagedShare).toBeLessThan(0.08);
  });

  it('is skewed: most persons have little, few have a lot', () => {
    const consultancyPeriods = (p: PersonDocument): number => p.consultoria?.length ?? 0;
    expect(share((p) => consultancyPeriods(p) <= 1)).toBeGreaterThan(0.5);
    expect(share((p) => consultancyPeriods(p) >= 3)).toBeLessThan(0.15);

    const coordinators = share((p) => (p.coordenacoes_agency?.length ?? 0) > 0);
    expect(coordinators).toBeGreaterThan(0.01);
    expect(coordinators).toBeLessThan(0.1);
    const types = sample.flatMap((p) => (p.coordenacoes_agency ?? []).map((c) => c.tipo));
    const countOf = (tipo: string): number => types.filter((t) => t === tipo).length;
    expect(countOf('CA')).toBeLessThan(countOf('CAM'));
    expect(countOf('CA')).toBeLessThan(countOf('CAJ'));

    const supervisions = sample.map((p) => p.orientacoes?.length ?? 0).sort((a, b) => a - b);
    expect(supervisions[Math.floor(SAMPLE_SIZE / 2)]).toBeLessThanOrEqual(3);
    expect(supervisions[SAMPLE_SIZE - 1]).toBeGreaterThanOrEqual(20);
    expect(share((p) => (p.premiacoes?.length ?? 0) > 0)).toBeLessThan(0.12);
    expect(share((p) => (p.bolsas_funder ?? []).some((g) => g.modalidade.startsWith('PQ-1')))).toBeLessThan(0.1);
    expect(share((p) => (p.docencias ?? []).some((d) => (d.coordenacoes?.length ?? 0) > 0))).toBeLessThan(0.1);
  });

  it('has rare deceased consultants', () => {
    const deceased = share((p) => (p.consultoria ?? []).some((c) => c.situacao === 'Falecido'));
    expect(deceased).toBeGreaterThan(0);
    expect(deceased).toBeLessThan(0.03);
  });

  it('stores degree hierarchy and year as strings, sometimes not digits', () => {
    const degrees = sample.flatMap((p) => p.titulacoes ?? []);
    const hierarchies = new Set(degrees.map((d) => d.hierarquia));
    expect(hierarchies).toEqual(new Set(['1', '2', '3', '4', '', 'N/I', undefined]));
    const years = degrees.map((d) => d.ano);
    expect(years).toContain('s/d');
    expect(years).toContain('');
    expect(years.filter((y) => typeof y === 'string' && /^\d{4}$/.test(y)).length / years.length).toBeGreaterThan(0.9);
  });

  it('uses duplicate spellings of institutions', () => {
    const names = new Set(sample.flatMap((p) => (p.consultoria ?? []).map((c) => c.ies_nome)));
    expect(names).toContain('Universidade de São Paulo');
    expect(names).toContain('UNIVERSIDADE DE SÃO PAULO');
  });
});

describe('generated invariants', () => {
  const DATE_KEYS = new Set(['inicio', 'fim', 'data_nascimento']);

  function* dateValues(value: unknown, key = ''): Generator<[string, unknown]> {
    if (Array.isArray(value)) for (const item of value) yield* dateValues(item, key);
    else if (value !== null && typeof value === 'object') {
      for (const [childKey, child] of Object.entries(value)) yield* dateValues(child, childKey);
    } else if (DATE_KEYS.has(key)) yield [key, value];
  }

  it('writes every date present as a valid YYYY-MM-DD', () => {
    let checked = 0;
    const bad: string[] = [];
    for (const person of sample) {
      for (const [key, value] of dateValues(person)) {
        if (value === null) continue;
        const valid =
          typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
        if (!valid) bad.push(`${person.id_pessoa}.${key}=${String(value)}`);
        checked += 1;
      }
    }
    expect(bad).toEqual([]);
    expect(checked).toBeGreaterThan(SAMPLE_SIZE * 5);
  });

  it('keeps the consultancy consistent with the active flag', () => {
    const inconsistent: number[] = [];
    for (const person of sample) {
      const periods = person.consultoria ?? [];
      const last = periods[periods.length - 1];
      const deceased = periods.some((c) => c.situacao === 'Falecido');
      const consistent =
        (!deceased || !person.ativo) &&
        (person.ativo
          ? last?.situacao === 'Ativo' && last.fim == null
          : periods.every((c) => c.situacao !== 'Ativo' && typeof c.fim === 'string')) &&
        // Ordered periods, each ending after it starts, the next one starting after a gap.
        periods.every(
          (c, i) => (!c.fim || c.fim > c.inicio) && (i === 0 || periods[i - 1]?.fim == null || c.inicio >= (periods[i - 1]?.fim ?? '')),
        ) &&
        Number.isInteger(person.anos_atuacao);
      if (!consistent) inconsistent.push(person.id_pessoa);
    }
    expect(inconsistent).toEqual([]);
  });

  it('marks a supervision concluded exactly when its type says so', () => {
    const supervisions = sample.flatMap((p) => p.orientacoes ?? []);
    expect(supervisions.length).toBeGreaterThan(SAMPLE_SIZE);
    expect(supervisions.filter((s) => s.concluida !== s.tipo.includes('Concluída'))).toEqual([]);
    expect(new Set(supervisions.map((s) => s.tipo))).toEqual(new Set(['Orientação Concluída', 'Orientação em Andamento']));
  });

  it('counts anos_atuacao as whole years of consultancy up to the reference date', () => {
    const today = REFERENCE_DATE.getTime();
    for (const person of sample.slice(0, 1_000)) {
      const days = (person.consultoria ?? []).reduce((sum, c) => {
        const end = Math.min(c.fim ? Date.parse(c.fim) : today, today);
        return sum + (end - Date.parse(c.inicio)) / 86_400_000;
      }, 0);
      expect(person.anos_atuacao).toBe(Math.floor(days / 365.25));
    }
  });

  it('produces only fields that the index mapping declares (dynamic: false would hide a typo)', () => {
    type Mapping = { properties?: Record<string, Mapping>; enabled?: boolean };
    const undeclared = new Set<string>();
    const walk = (value: unknown, mapping: Mapping, path: string): void => {
      if (mapping.enabled === false) return;
      if (Array.isArray(value)) return value.forEach((item) => walk(item, mapping, path));
      if (value === null || typeof value !== 'object') return;
      for (const [key, child] of Object.entries(value)) {
        const childMapping = mapping.properties?.[key];
        if (!childMapping) undeclared.add(`${path}${key}`);
        else walk(child, childMapping, `${path}${key}.`);
      }
    };
    // Only titulacoes keeps some of its fields unindexed on purpose (see docs/index-document.md).
    for (const person of sample) walk(person, personIndexMappings as Mapping, '');
    expect([...undeclared].filter((path) => !path.startsWith('titulacoes.')).sort()).toEqual([]);
  });
});
