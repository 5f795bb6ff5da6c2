import { foldForSearch, repairEncoding } from '../../domain/text';

describe('repairEncoding (suggestion rule 4)', () => {
  it.each([
    ['Jo227o', 'João'],
    ['S227o Paulo', 'São Paulo'],
    ['Ci234ncia da Computa231o', 'Ciência da Computaço'],
    ['Ant244nio', 'Antônio'],
    ['Mu241oz', 'Muñoz'],
    ['J250lio', 'Júlio'],
    ['\u00c2ngela', '\u00c2ngela'],
    ['192ngela', '192ngela'], // no letter before the code
  ])('%s → %s', (damaged, repaired) => {
    expect(repairEncoding(damaged)).toBe(repaired);
  });

  it('repairs codes that share a letter in a second pass', () => {
    expect(repairEncoding('a227b227c')).toBe('aãbãc');
    expect(repairEncoding('Jo227o Gon231alves Ara250jo')).toBe('João Gonçalves Araújo');
  });

  it('cannot repair two codes in a row: no letter stands between them', () => {
    expect(repairEncoding('Concei231227o')).toBe('Concei231227o');
  });

  it('leaves codes outside the ranges, numbers not between letters and clean text alone', () => {
    expect(repairEncoding('Sala 101 bloco B')).toBe('Sala 101 bloco B');
    expect(repairEncoding('a198b')).toBe('a198b'); // 198 (Æ) is not in the ranges
    expect(repairEncoding('a215b')).toBe('a215b'); // 215 (×) is not in the ranges
    expect(repairEncoding('a253b')).toBe('a253b'); // 253 (ý) is not in the ranges
    expect(repairEncoding('PQ-1A 2004')).toBe('PQ-1A 2004');
    expect(repairEncoding('João')).toBe('João');
  });
});

describe('foldForSearch', () => {
  it('drops accents and case and collapses whitespace', () => {
    expect(foldForSearch('  Maria   da CONCEIÇÃO Araújo ')).toBe('maria da conceicao araujo');
    expect(foldForSearch('Ângela Lúcia Inês')).toBe('angela lucia ines');
  });
});
