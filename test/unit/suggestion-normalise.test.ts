import { displayText, matchesTheme, memoised, normaliseForMatch, themeMatcher } from '../../domain/suggestion/normalise';

describe('normaliseForMatch (suggestion rule 3)', () => {
  it('decodes HTML entities, then drops accents and case', () => {
    expect(normaliseForMatch('&Aacute;rea de Ci&ecirc;ncia &amp; Tecnologia')).toBe('area de ciencia & tecnologia');
    expect(normaliseForMatch('Sa&uacute;de Coletiva')).toBe('saude coletiva');
    expect(normaliseForMatch('Educa&ccedil;&atilde;o')).toBe('educacao');
  });

  it('drops accents and case of plain text, composed or decomposed, and collapses whitespace', () => {
    expect(normaliseForMatch('  SAÚDE   Coletiva ')).toBe('saude coletiva');
    expect(normaliseForMatch('Sau\u0301de')).toBe('saude');
    expect(normaliseForMatch('Ciência da Computação')).toBe('ciencia da computacao');
  });
});

describe('themeMatcher', () => {
  it('keeps the whole normalised theme and its words longer than 3 characters', () => {
    expect(themeMatcher('Saúde da Família')).toMatchObject({ whole: 'saude da familia', words: ['saude', 'familia'] });
    expect(themeMatcher('Ensino de Física, Química')).toMatchObject({
      whole: 'ensino de fisica, quimica',
      words: ['ensino', 'fisica', 'quimica'],
    });
    expect(themeMatcher('Bio Mar')).toMatchObject({ whole: 'bio mar', words: [] });
  });
});

describe('matchesTheme (rule 3)', () => {
  it('matches when the whole theme is contained in the text, whatever accents, case and entities', () => {
    const theme = themeMatcher('saude coletiva');
    expect(matchesTheme('Saúde Coletiva', theme)).toBe(true);
    expect(matchesTheme('Epidemiologia em SA&Uacute;DE COLETIVA', theme)).toBe(true);
  });

  it('matches when any theme word longer than 3 characters is contained in the text', () => {
    const theme = themeMatcher('Políticas de Saúde');
    expect(matchesTheme('Saúde Coletiva', theme)).toBe(true); // "saude"
    expect(matchesTheme('Ciência Política', theme)).toBe(false); // "politica" does not contain "politicas"
    expect(matchesTheme('Análise de Políticas Públicas', theme)).toBe(true); // "politicas"
    expect(matchesTheme('Direito', theme)).toBe(false); // "de" is too short to count alone
  });

  it('words of 3 characters or fewer never match alone; the whole theme still does', () => {
    expect(matchesTheme('Biologia Marinha', themeMatcher('Bio Mar'))).toBe(false);
    expect(matchesTheme('Engenharia', themeMatcher('IA'))).toBe(true); // "ia" is the whole theme
  });

  it('a word matches inside a longer word (containment, not equality)', () => {
    expect(matchesTheme('Bioquímica', themeMatcher('química'))).toBe(true);
  });
});

describe('displayText (suggestion rule 4, and entities decoded for display)', () => {
  it('repairs encoding damage and decodes entities, keeping accents and case', () => {
    expect(displayText('Jo227o')).toBe('João');
    expect(displayText('Sa250de Coletiva')).toBe('Saúde Coletiva');
    expect(displayText('Educa&ccedil;&atilde;o &amp; Sa&uacute;de')).toBe('Educação & Saúde');
    expect(displayText('Concei231227o')).toBe('Concei231227o'); // two codes in a row: not repairable
  });
});

describe('memoised', () => {
  it('computes each distinct text once and answers the same', () => {
    const seen: string[] = [];
    const fold = memoised((text) => {
      seen.push(text);
      return normaliseForMatch(text);
    });
    expect([fold('Saúde'), fold('Educação'), fold('Saúde')]).toEqual(['saude', 'educacao', 'saude']);
    expect(seen).toEqual(['Saúde', 'Educação']);
  });

  it('a memoised normalisation matches as the plain one', () => {
    const theme = themeMatcher('Políticas de Saúde', memoised(normaliseForMatch));
    expect(['Saúde Coletiva', 'Ciência Política', 'Saúde Coletiva'].map((text) => matchesTheme(text, theme))).toEqual([true, false, true]);
  });
});
