import type { StoredEntry } from '../../db/ranking-queries';
import { consultantSheet } from '../../domain/pdf/consultant-sheet';
import { consultantSheetDocument } from '../../domain/pdf/consultant-template';
import { formatInteger, formatScore, formatYears } from '../../domain/pdf/format';
import { escapeHtml, html, joinHtml } from '../../domain/pdf/html';
import { teamStatistics, type TeamMember } from '../../domain/pdf/team-statistics';
import { teamSheetDocument } from '../../domain/pdf/team-template';

const HOSTILE = `<img src="http://127.0.0.1:9/x.png"> & 'Ana' "Bia" </td><script>alert(1)</script>`;
const HOSTILE_ESCAPED =
  '&lt;img src=&quot;http://127.0.0.1:9/x.png&quot;&gt; &amp; &#39;Ana&#39; &quot;Bia&quot; &lt;/td&gt;&lt;script&gt;alert(1)&lt;/script&gt;';

describe('escapeHtml and the html template', () => {
  it('escapes the five characters that matter in content and quoted attributes', () => {
    expect(escapeHtml(HOSTILE)).toBe(HOSTILE_ESCAPED);
    expect(escapeHtml('Conceição & Cia')).toBe('Conceição &amp; Cia');
  });

  it('escapes every interpolated value, once, and keeps markup made by html itself', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${['<a>', 1, null, undefined, false]}</p>`.markup).toBe(
      '<p title="&quot;x&quot;"><b>&lt;i&gt;</b>&lt;a&gt;1</p>',
    );
    expect(joinHtml(['a<b', html`<br>`, '', 'c'], ' & ').markup).toBe('a&lt;b &amp; <br> &amp; c');
  });
});

describe('number formats (pt-BR)', () => {
  it('prints scores with two decimals and grouped thousands', () => {
    expect(formatScore(1234.5)).toBe('1.234,50');
    expect(formatScore(0)).toBe('0,00');
    expect(formatInteger(300000)).toBe('300.000');
    expect(formatInteger(1500)).toBe('1.500');
    expect(formatYears(12.25)).toBe('12,3');
    expect(formatYears(6)).toBe('6');
  });
});

const entry: StoredEntry = {
  id_pessoa: 77,
  nome: HOSTILE,
  posicao: 3,
  pontuacao_total: 1234.5,
  bloco_a: 296,
  bloco_b: 175,
  bloco_c: 70,
  bloco_d: 82,
  bloco_e: 611.5,
  ativo: true,
  anos_atuacao: 6,
  coordenador_ppg: true,
  tipos_atuacao: ['Consultor', 'Coordenador de PPG'],
  selos: ['BPQ', 'COORD_PPG', 'SELO_NOVO'],
};

describe('consultantSheet', () => {
  it('takes position, scores and seal labels from the ranking entry', () => {
    const sheet = consultantSheet({ idPessoa: 77, entry, doc: undefined, totalConsultores: 300000, cvBaseUrl: 'https://cv.example.org/c' });
    expect(sheet.ranking).toEqual({
      posicao: 3,
      total_consultores: 300000,
      pontuacao_total: 1234.5,
      blocos: { bloco_a: 296, bloco_b: 175, bloco_c: 70, bloco_d: 82, bloco_e: 611.5 },
    });
    // Labels from the catalogue; a code without metadata is its own label.
    expect(sheet.selos).toEqual(['Bolsista PQ', 'Coord. PPG', 'SELO_NOVO']);
    expect(sheet.tipos_atuacao).toEqual(['Consultor', 'Coordenador de PPG']);
    expect(sheet.titulacoes).toEqual([]);
    expect(sheet.atividades).toEqual([]);
    expect(sheet.cv).toBeNull();
  });

  it('a person in the index but not ranked has no position, scores or seals', () => {
    const sheet = consultantSheet({
      idPessoa: 5,
      entry: null,
      doc: { nome: 'Jo227o Gon231alves', ativo: false, anos_atuacao: 2.5, id_cv: '123' },
      totalConsultores: 10,
      cvBaseUrl: 'https://cv.example.org/c/',
    });
    expect(sheet).toMatchObject({
      nome: 'João Gonçalves',
      ativo: false,
      anos_atuacao: 2.5,
      ranking: null,
      selos: [],
      tipos_atuacao: [],
      cv: { id_cv: '123', url: 'https://cv.example.org/c/123' },
    });
  });

  it('orders degrees, repairs their texts and reads languages', () => {
    const sheet = consultantSheet({
      idPessoa: 5,
      entry: null,
      doc: {
        nome: 'Ana',
        ativo: true,
        titulacoes: [
          { grau: 'Mestrado', hierarquia: '3', ano: '2001', ies_sigla: 'UFMG', programa: 'F237sica' },
          { grau: 'Doutorado', hierarquia: '2', ano: 's/d', ies_nome: 'Universidade de S227o Paulo', pais: 'Brasil' },
        ],
        idiomas: [{ idioma: 'Ingl234s', proficiencia_leitura: 'Bem', proficiencia_fala: null }],
      },
      totalConsultores: 0,
      cvBaseUrl: 'https://cv.example.org',
    });
    expect(sheet.titulacoes.map((degree) => [degree.grau, degree.ano, degree.ies_nome, degree.programa])).toEqual([
      ['Doutorado', null, 'Universidade de São Paulo', null],
      ['Mestrado', 2001, null, 'Física'],
    ]);
    expect(sheet.idiomas).toEqual([
      { idioma: 'Inglês', nivel_leitura: 'Bem', nivel_escrita: null, nivel_fala: null, nivel_compreensao: null },
    ]);
  });

  it('lists main activities latest first, at most 5 per group, with the full count', () => {
    const consultoria = Array.from({ length: 7 }, (_, i) => ({
      situacao: i === 6 ? 'Ativo' : 'Inativo',
      inicio: `201${i}-03-01`,
      fim: i === 6 ? null : `201${i}-12-31`,
      ies_sigla: 'UnB',
    }));
    const sheet = consultantSheet({
      idPessoa: 5,
      entry: null,
      doc: {
        nome: 'Ana',
        ativo: true,
        consultoria: consultoria as never,
        coordenacoes_agency: [{ tipo: 'CAJ', area_avaliacao: 'Química', inicio: '2020-01-01', fim: '2023-12-31', funcao: 'Presidente' }],
        docencias: [{ programa: 'Química', ies_sigla: 'UFRJ', categoria: 'Permanente', coordenacoes: [{ inicio: '2019-01-01' }] }],
        premiacoes: [{ tipo: 'MENCAO', papel: 'Orientador', premio: 'Prêmio de Tese – Química', premiacao: 'Menção Honrosa', ano: 2021 }],
      },
      totalConsultores: 0,
      cvBaseUrl: 'https://cv.example.org',
    });
    expect(sheet.atividades).toEqual([
      {
        titulo: 'Consultoria',
        total: 7,
        itens: [
          'Ativo — UnB — desde 03/2016',
          'Inativo — UnB — 03/2015 a 12/2015',
          'Inativo — UnB — 03/2014 a 12/2014',
          'Inativo — UnB — 03/2013 a 12/2013',
          'Inativo — UnB — 03/2012 a 12/2012',
        ],
      },
      { titulo: 'Coordenações na agência', total: 1, itens: ['CAJ (Presidente) — Química — 01/2020 a 12/2023'] },
      {
        titulo: 'Docência em programas de pós-graduação',
        total: 1,
        itens: ['Química — UFRJ — Permanente — coordenador(a) do programa'],
      },
      { titulo: 'Premiações', total: 1, itens: ['Prêmio de Tese – Química — Menção Honrosa (Orientador, 2021)'] },
    ]);
  });

  it('never throws on a dirty document', () => {
    const doc = {
      nome: 42,
      ativo: 'sim',
      titulacoes: 'none',
      idiomas: [null, { idioma: 7 }, { idioma: 'Francês' }],
      consultoria: [null, 3, { situacao: 'Ativo' }],
      premiacoes: { premio: 'x' },
      docencias: [{ programa: null }],
    } as never;
    const sheet = consultantSheet({ idPessoa: 1, entry: null, doc, totalConsultores: 0, cvBaseUrl: 'https://cv.example.org' });
    expect(sheet).toMatchObject({ nome: '', ativo: false, anos_atuacao: null, titulacoes: [] });
    expect(sheet.idiomas.map((language) => language.idioma)).toEqual(['Francês']);
    expect(sheet.atividades).toEqual([{ titulo: 'Consultoria', total: 1, itens: ['Ativo'] }]);
  });
});

describe('sheet documents', () => {
  it('the consultant sheet escapes every text and allows no fetch', () => {
    const sheet = consultantSheet({
      idPessoa: 77,
      entry,
      doc: { id_cv: '"><b>' },
      totalConsultores: 300000,
      cvBaseUrl: 'https://cv.example.org',
    });
    const document = consultantSheetDocument(sheet, '15/01/2026 10:00');
    expect(document.html).toContain(`<h1>${HOSTILE_ESCAPED}</h1>`);
    expect(document.html).not.toContain('<img');
    expect(document.html).not.toContain('<script');
    expect(document.html).not.toContain('"><b>');
    expect(document.html).toContain('<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;;');
    expect(document.footerHtml).toContain(HOSTILE_ESCAPED);
    expect(document.footerHtml).not.toContain('<img');
    expect(document.html).toContain('3º');
    expect(document.html).toContain('de 300.000 consultores');
    expect(document.html).toContain('1.234,50');
    expect(document.html).toContain('611,50');
    expect(document.margin).toEqual({ top: '14mm', right: '14mm', bottom: '16mm', left: '14mm' });
  });

  it('the team sheet escapes every text and shows the statistics', () => {
    const member: TeamMember = {
      id_pessoa: 1,
      nome: HOSTILE,
      ies: '<UnB & "FUB">',
      areas_avaliacao: ['<Química>'],
      areas_conhecimento: [],
      linhas_pesquisa: [],
      situacao: 'Ativo',
      foi_coordenador: true,
      foi_premiado: false,
      posicao_ranking: 1500,
      pontuacao_ranking: 987.654,
      motivos_match: ['Area: <x>'],
    };
    const request = { tema: `Tema ${HOSTILE}`, area_avaliacao: '<b>Química</b>', consultores: [member] };
    const document = teamSheetDocument({ request, statistics: teamStatistics([member]), generatedAt: '15/01/2026 10:00' });
    expect(document.html).toContain(`<h1>Tema ${HOSTILE_ESCAPED}</h1>`);
    expect(document.html).toContain('&lt;UnB &amp; &quot;FUB&quot;&gt;');
    expect(document.html).toContain('&lt;b&gt;Química&lt;/b&gt;');
    expect(document.html).toContain('&lt;Química&gt;');
    expect(document.html).toContain('Area: &lt;x&gt;');
    expect(document.html).not.toContain('<img');
    expect(document.html).not.toContain('<script');
    expect(document.html).not.toContain('<b>Química');
    expect(document.html).toContain('1.500º');
    expect(document.html).toContain('987,65');
    expect(document.footerHtml).not.toContain('<img');
  });
});
