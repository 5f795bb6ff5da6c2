import type { DegreeItem, RankingLanguage } from '../degrees';
import { SHEET_BLOCKS, type ActivityGroup, type ConsultantSheet, type SheetRanking } from './consultant-sheet';
import { formatInteger, formatScore, formatYears } from './format';
import { html, joinHtml, type SafeHtml } from './html';
import { sheetDocument, type PdfDocument } from './sheet-layout';

/** The consultant sheet: identity, position and scores, seals, degrees, languages, main activities. */

const NONE = (text: string) => html`<p class="empty">${text}</p>`;
const DASH = html`<span class="muted">—</span>`;

function rankingCards(ranking: SheetRanking): SafeHtml {
  const blocks = SHEET_BLOCKS.map(
    (block) =>
      html`<div class="card"><div class="label">Bloco ${block.letter}</div><div class="value">${formatScore(ranking.blocos[block.key])}</div><div class="hint">${block.label}</div></div>`,
  );
  return html`<div class="cards">
<div class="card main"><div class="label">Posição no ranking</div><div class="value">${formatInteger(ranking.posicao)}º</div><div class="hint">de ${formatInteger(ranking.total_consultores)} consultores</div></div>
<div class="card main"><div class="label">Pontuação total</div><div class="value">${formatScore(ranking.pontuacao_total)}</div><div class="hint">soma dos blocos A a E</div></div>
</div>
<div class="cards" style="margin-top:5px">${blocks}</div>`;
}

function chips(labels: string[], empty: string): SafeHtml {
  return labels.length > 0
    ? html`<div class="chips">${labels.map((label) => html`<span class="chip">${label}</span>`)}</div>`
    : NONE(empty);
}

function degreeRow(degree: DegreeItem): SafeHtml {
  const course = degree.programa || degree.area;
  const institution =
    degree.ies_sigla && degree.ies_nome ? `${degree.ies_nome} (${degree.ies_sigla})` : degree.ies_nome || degree.ies_sigla;
  return html`<tr><td><strong>${degree.grau || '—'}</strong></td><td>${course || DASH}${
    degree.area_avaliacao ? html`<div class="small">Área de avaliação: ${degree.area_avaliacao}</div>` : ''
  }</td><td>${institution || DASH}</td><td class="center">${degree.ano ?? DASH}</td><td>${degree.pais}</td></tr>`;
}

function degreesTable(degrees: DegreeItem[]): SafeHtml {
  if (degrees.length === 0) return NONE('Nenhuma titulação informada.');
  return html`<table><colgroup><col style="width:17%"><col style="width:35%"><col style="width:29%"><col style="width:7%"><col style="width:12%"></colgroup>
<thead><tr><th>Grau</th><th>Programa / área</th><th>Instituição</th><th class="center">Ano</th><th>País</th></tr></thead>
<tbody>${degrees.map(degreeRow)}</tbody></table>`;
}

function languagesTable(languages: RankingLanguage[]): SafeHtml {
  if (languages.length === 0) return NONE('Nenhum idioma informado.');
  const level = (value: string | null) => value ?? DASH;
  return html`<table><thead><tr><th>Idioma</th><th>Leitura</th><th>Escrita</th><th>Fala</th><th>Compreensão</th></tr></thead>
<tbody>${languages.map(
    (language) =>
      html`<tr><td><strong>${language.idioma}</strong></td><td>${level(language.nivel_leitura)}</td><td>${level(language.nivel_escrita)}</td><td>${level(language.nivel_fala)}</td><td>${level(language.nivel_compreensao)}</td></tr>`,
  )}</tbody></table>`;
}

function activityGroup(activity: ActivityGroup): SafeHtml {
  const more = activity.total - activity.itens.length;
  return html`<div style="margin-bottom:4px"><strong>${activity.titulo}</strong> <span class="small">(${activity.total})</span>
<ul class="plain">${activity.itens.map((item) => html`<li>${item}</li>`)}${more > 0 ? html`<li class="muted">e mais ${more}</li>` : ''}</ul></div>`;
}

export function consultantSheetDocument(sheet: ConsultantSheet, generatedAt: string): PdfDocument {
  const years =
    sheet.anos_atuacao === null
      ? ''
      : html`<span>${formatYears(sheet.anos_atuacao)} ${sheet.anos_atuacao === 1 ? 'ano' : 'anos'} de atuação</span>`;
  const ranking = sheet.ranking
    ? rankingCards(sheet.ranking)
    : html`<div class="notice">Não consta do último ranking processado: sem posição nem pontuação.</div>`;
  const body = html`
<header class="sheet">
  <div class="kind">Ficha do consultor</div>
  <h1>${sheet.nome || `Pessoa ${sheet.id_pessoa}`}</h1>
  <div class="meta"><span>ID ${sheet.id_pessoa}</span><span>${sheet.ativo ? 'Ativo' : 'Inativo'}</span>${years}<span>Gerada em ${generatedAt}</span></div>${
    sheet.cv ? html`<div class="meta">Currículo: ${sheet.cv.url}</div>` : ''
  }
</header>
<section><h2>Ranking</h2>${ranking}</section>
<section><h2>Selos</h2>${chips(sheet.selos, 'Nenhum selo.')}</section>
<section><h2>Tipos de atuação</h2>${chips(sheet.tipos_atuacao, 'Nenhum tipo de atuação registrado.')}</section>
<section><h2>Titulações</h2>${degreesTable(sheet.titulacoes)}</section>
<section><h2>Idiomas</h2>${languagesTable(sheet.idiomas)}</section>
<h2>Principais atividades</h2>${
    sheet.atividades.length > 0 ? joinHtml(sheet.atividades.map(activityGroup)) : NONE('Nenhuma atividade registrada.')
  }`;
  const footer = `Ficha do consultor ${sheet.id_pessoa} · ${sheet.nome} · gerada em ${generatedAt}`;
  return sheetDocument(`Ficha do consultor — ${sheet.nome}`, body, footer);
}
