import { formatInteger, formatScore, yesNo } from './format';
import { html, joinHtml, type SafeHtml } from './html';
import { sheetDocument, type PdfDocument } from './sheet-layout';
import type { TeamMember, TeamRequest, TeamStatistics } from './team-statistics';

/** The team sheet: theme, optional assessment area, statistics and one row per member. */

function statisticsCards(statistics: TeamStatistics): SafeHtml {
  const cards: Array<[string, number]> = [
    ['Consultores', statistics.total],
    ['Ativos', statistics.ativos],
    ['Coordenadores', statistics.coordenadores],
    ['Premiados', statistics.premiados],
    ['Instituições', statistics.instituicoes],
  ];
  return html`<div class="cards">${cards.map(
    ([label, value], i) =>
      html`<div class="card${i === 0 ? ' main' : ''}"><div class="label">${label}</div><div class="value">${formatInteger(value)}</div></div>`,
  )}</div>`;
}

function memberRow(member: TeamMember, index: number): SafeHtml {
  const areas = member.areas_avaliacao.length > 0 ? html`<div class="small">${joinHtml(member.areas_avaliacao, '; ')}</div>` : '';
  const reasons = member.motivos_match.length > 0 ? html`<div class="small muted">${joinHtml(member.motivos_match, ' · ')}</div>` : '';
  return html`<tr>
<td class="num">${index + 1}</td>
<td><strong>${member.nome}</strong>${areas}${reasons}</td>
<td>${member.ies || html`<span class="muted">—</span>`}</td>
<td>${member.situacao || html`<span class="muted">—</span>`}</td>
<td class="num">${member.posicao_ranking === null ? html`<span class="muted">—</span>` : `${formatInteger(member.posicao_ranking)}º`}</td>
<td class="num">${formatScore(member.pontuacao_ranking)}</td>
<td class="center">${yesNo(member.foi_coordenador)}</td>
<td class="center">${yesNo(member.foi_premiado)}</td>
</tr>`;
}

export interface TeamSheet {
  request: TeamRequest;
  statistics: TeamStatistics;
  /** When the sheet was made, as printed (`DD/MM/YYYY HH:MM`). */
  generatedAt: string;
}

export function teamSheetDocument(sheet: TeamSheet): PdfDocument {
  const { request, statistics } = sheet;
  const area = request.area_avaliacao ? html`<span>Área de avaliação: <strong>${request.area_avaliacao}</strong></span>` : '';
  const body = html`
<header class="sheet">
  <div class="kind">Equipe de consultores</div>
  <h1>${request.tema}</h1>
  <div class="meta">${area}<span>Gerada em ${sheet.generatedAt}</span></div>
</header>
<section><h2>Estatísticas da equipe</h2>${statisticsCards(statistics)}</section>
<h2>Consultores</h2>
<table>
<colgroup><col style="width:4%"><col style="width:30%"><col style="width:15%"><col style="width:10%"><col style="width:10%">
<col style="width:12%"><col style="width:8%"><col style="width:11%"></colgroup>
<thead><tr><th class="num">#</th><th>Consultor</th><th>IES</th><th>Situação</th><th class="num">Posição</th>
<th class="num">Pontuação</th><th class="center">Coord.</th><th class="center">Premiado</th></tr></thead>
<tbody>${request.consultores.map(memberRow)}</tbody>
</table>`;
  return sheetDocument(`Equipe — ${request.tema}`, body, `Equipe: ${request.tema} · gerada em ${sheet.generatedAt}`);
}
