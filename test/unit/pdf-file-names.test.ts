import {
  asciiFileName,
  attachmentDisposition,
  consultantSheetFileName,
  sanitiseNamePart,
  teamSheetFileName,
} from '../../domain/pdf/file-names';
import { sheetDate } from '../../domain/pdf/sheet-date';

describe('sanitiseNamePart', () => {
  it.each([
    ['Maria da Silva', 'Maria da Silva'],
    ['João Conceição Araújo', 'João Conceição Araújo'], // accented letters are alphanumeric
    ['Ana/Maria\\Souza', 'Ana_Maria_Souza'],
    ["D'Ávila, José (Jr.)", 'D_Ávila_ José _Jr__'],
    ['Jean-Luc Saint_Clair', 'Jean-Luc Saint_Clair'], // hyphen and underscore are kept
    ['a\tb\nc', 'a_b_c'], // only the space character counts as space
    ['Ana 👩‍🔬', 'Ana ___'], // three code points, three underscores
    ['李小龍 2024', '李小龍 2024'], // letters of any script, digits
    ['  Ana  ', 'Ana'], // the name is trimmed before
    ['', ''],
  ])('%j → %j', (name, expected) => {
    expect(sanitiseNamePart(name)).toBe(expected);
  });

  it('composes decomposed accents first, so they stay letters', () => {
    expect(sanitiseNamePart('Jo\u0061\u0303o')).toBe('João');
  });

  it('cuts to 30 characters after replacing', () => {
    expect(sanitiseNamePart('Maria Aparecida dos Santos Oliveira Pereira')).toBe('Maria Aparecida dos Santos Oli');
    expect(sanitiseNamePart('Conceição/Conceição/Conceição/Conceição')).toBe('Conceição_Conceição_Conceição_');
    expect(Array.from(sanitiseNamePart('é'.repeat(40)))).toHaveLength(30);
  });
});

describe('sheet file names', () => {
  it('ficha_consultor_<id>_<name>_<YYYYMMDD>.pdf', () => {
    expect(consultantSheetFileName(42, 'Ana/Maria Souza', '20260115')).toBe('ficha_consultor_42_Ana_Maria Souza_20260115.pdf');
    expect(consultantSheetFileName(7, 'Maria Aparecida dos Santos Oliveira Pereira', '20261231')).toBe(
      'ficha_consultor_7_Maria Aparecida dos Santos Oli_20261231.pdf',
    );
  });

  it('equipe_<theme>_<YYYYMMDD>.pdf', () => {
    expect(teamSheetFileName('Inteligência Artificial & Saúde Pública', '20260115')).toBe(
      'equipe_Inteligência Artificial _ Saúd_20260115.pdf',
    );
    expect(teamSheetFileName('IA/ML', '20260115')).toBe('equipe_IA_ML_20260115.pdf');
  });
});

describe('attachmentDisposition', () => {
  it('sends an ASCII token as the specified bare filename', () => {
    expect(attachmentDisposition('equipe_IA_ML_20260115.pdf')).toBe('attachment; filename=equipe_IA_ML_20260115.pdf');
  });

  it('quotes a name with spaces', () => {
    expect(attachmentDisposition('ficha_consultor_1_Ana Souza_20260115.pdf')).toBe(
      'attachment; filename="ficha_consultor_1_Ana Souza_20260115.pdf"',
    );
  });

  it('adds filename* (RFC 5987, UTF-8) for non-ASCII names and keeps an ASCII filename without accents', () => {
    expect(attachmentDisposition('ficha_consultor_7_João Araújo_20260115.pdf')).toBe(
      'attachment; filename="ficha_consultor_7_Joao Araujo_20260115.pdf"; ' +
        "filename*=UTF-8''ficha_consultor_7_Jo%C3%A3o%20Ara%C3%BAjo_20260115.pdf",
    );
  });

  it('replaces characters that have no ASCII form in the fallback only', () => {
    const header = attachmentDisposition('equipe_李小龍_20260115.pdf');
    expect(header).toBe("attachment; filename=equipe_____20260115.pdf; filename*=UTF-8''equipe_%E6%9D%8E%E5%B0%8F%E9%BE%8D_20260115.pdf");
    const encoded = /filename\*=UTF-8''(.+)$/.exec(header)?.[1] ?? '';
    expect(decodeURIComponent(encoded)).toBe('equipe_李小龍_20260115.pdf');
  });

  it('only ever produces ASCII header values', () => {
    for (const name of ['João', 'Ñandú', 'Zoë 👩‍🔬', 'Łódź', '"quoted" \\ back']) {
      const header = attachmentDisposition(consultantSheetFileName(1, name, '20260115'));
      expect(header).toMatch(/^[\x20-\x7e]+$/);
    }
    expect(asciiFileName('a"b\\c')).toBe('a_b_c');
  });
});

describe('sheetDate', () => {
  // 02:30 UTC on the 15th is 23:30 on the 14th in São Paulo (UTC-3, no daylight saving since 2019).
  const instant = new Date(Date.UTC(2026, 0, 15, 2, 30));

  it('dates the sheet in the given time zone', () => {
    expect(sheetDate(instant, 'America/Sao_Paulo')).toEqual({ day: '20260114', printed: '14/01/2026 23:30' });
    expect(sheetDate(instant, 'UTC')).toEqual({ day: '20260115', printed: '15/01/2026 02:30' });
  });

  it('pads months, days and hours', () => {
    expect(sheetDate(new Date(Date.UTC(2026, 2, 5, 12, 7)), 'America/Sao_Paulo')).toEqual({ day: '20260305', printed: '05/03/2026 09:07' });
  });
});
