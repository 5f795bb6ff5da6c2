import type { Address, Degree, Employment, Language, Project, ResearchLine, Teaching } from '../../domain/person-document';
import { countIn, type PersonProfile } from './person-profile';
import { type Random, dayOfYearStart, formatDay, yearOf } from './random';
import {
  digits,
  institutionSpelling,
  otherInstitution,
  programmeCode,
  programmeName,
  researchLine,
  sourceAreaText,
  workTitle,
} from './texts';
import {
  DEGREES,
  EMPLOYMENT,
  FOREIGN_COUNTRIES,
  LANGUAGES,
  NEIGHBOURHOODS,
  PROFICIENCIES,
  PROJECT_SITUATIONS,
  STREET_NAMES,
  TEACHING,
} from './vocabulary';

/** Curriculum sections (degrees, languages, addresses, jobs, projects) and block E (teaching in PPGs). */

const YEAR = 365;

/** `hierarquia` as the source stores it: usually the level, sometimes empty or "not informed". */
function sourceHierarchy(rng: Random, level: string): string | undefined {
  return rng.weighted<string | undefined>([
    [level, 95],
    ['', 2],
    ['N/I', 2],
    [undefined, 1],
  ]);
}

/** `ano` as the source stores it: usually the year as a string, sometimes "s/d" (no date) or empty. */
function sourceYear(rng: Random, year: number): string | undefined {
  return rng.weighted<string | undefined>([
    [String(year), 95],
    ['s/d', 2],
    ['', 2],
    [undefined, 1],
  ]);
}

export function degrees(rng: Random, profile: PersonProfile): Degree[] {
  const { area } = profile;
  const steps: Array<[grau: string, hierarquia: string, year: number, years: number]> = [
    [DEGREES.graduacao.grau, DEGREES.graduacao.hierarquia, profile.graduationYear, 4],
  ];
  if (profile.masterYear !== null) {
    const master = rng.chance(0.15) ? DEGREES.mestradoProfissional : DEGREES.mestrado;
    steps.push([master.grau, master.hierarquia, profile.masterYear, 2]);
  }
  if (profile.doctorateYear !== null) steps.push([DEGREES.doutorado.grau, DEGREES.doutorado.hierarquia, profile.doctorateYear, 4]);
  if (profile.postdocYear !== null) steps.push([DEGREES.posDoutorado.grau, DEGREES.posDoutorado.hierarquia, profile.postdocYear, 1]);

  const list = steps.map(([grau, level, year, years]) => {
    const institution = rng.chance(0.6) ? profile.institution : otherInstitution(rng);
    const spelling = institutionSpelling(rng, institution);
    const abroad = level === '1' ? rng.chance(0.5) : rng.chance(0.03);
    const degree: Degree = { grau };
    const hierarquia = sourceHierarchy(rng, level);
    if (hierarquia !== undefined) degree.hierarquia = hierarquia;
    const ano = sourceYear(rng, year);
    if (ano !== undefined) degree.ano = ano;
    if (level !== '4' && rng.chance(0.85)) {
      degree.inicio = formatDay(dayOfYearStart(year - years) + rng.int(30, 90));
      degree.fim = formatDay(dayOfYearStart(year) + rng.int(0, 330));
    }
    degree.ies_nome = spelling.nome;
    degree.ies_sigla = spelling.sigla;
    if (rng.chance(0.7)) degree.ies_status = 'Ativa';
    degree.area = rng.pick(area.knowledgeAreas);
    if (level !== '4' && rng.chance(0.9)) {
      degree.area_avaliacao = area.nome;
      degree.programa = programmeName(degree.area);
      degree.codigo_programa = programmeCode(rng, institution);
      degree.programa_modalidade = grau === DEGREES.mestradoProfissional.grau ? 'Profissional' : 'Acadêmico';
      degree.programa_situacao = 'Em funcionamento';
    }
    // Absent country means Brazil (the service defaults it).
    if (abroad) degree.pais = rng.pick(FOREIGN_COUNTRIES);
    else if (rng.chance(0.6)) degree.pais = 'Brasil';
    return degree;
  });
  // The source keeps no order; the service sorts by hierarquia, then ano.
  return rng.sample(list, list.length);
}

export function languages(rng: Random): Language[] {
  const names = rng.chance(0.85) ? ['Inglês', ...rng.sample(LANGUAGES.slice(1), rng.int(0, 2))] : rng.sample(LANGUAGES, rng.int(1, 2));
  return names.map((idioma) => ({
    idioma,
    proficiencia_leitura: rng.pick(PROFICIENCIES),
    proficiencia_escrita: rng.pick(PROFICIENCIES),
    proficiencia_fala: rng.pick(PROFICIENCIES),
    proficiencia_compreensao: rng.pick(PROFICIENCIES),
  }));
}

function address(rng: Random, tipo: Address['tipo'], cidade: string): Address {
  const item: Address = {
    tipo,
    logradouro: rng.pick(STREET_NAMES),
    numero: rng.chance(0.9) ? String(rng.int(1, 3000)) : 's/n',
    bairro: rng.pick(NEIGHBOURHOODS),
    cep: `${digits(rng, 5)}-${digits(rng, 3)}`,
    cidade,
    pais: 'Brasil',
  };
  if (rng.chance(0.3)) item.complemento = `Sala ${rng.int(1, 400)}`;
  return item;
}

export function addresses(rng: Random, profile: PersonProfile): Address[] {
  const list = [address(rng, 'Profissional', profile.institution.cidade)];
  if (rng.chance(0.3)) list.push(address(rng, 'Residencial', profile.institution.cidade));
  // Sometimes one is flagged as main, and not always the professional one.
  if (rng.chance(0.6)) {
    const main = rng.pick(list);
    main.principal = true;
  }
  return rng.sample(list, list.length);
}

export function employments(rng: Random, profile: PersonProfile): Employment[] {
  const count = countIn(rng, profile.traits.employments);
  return Array.from({ length: count }, (_, index) => {
    const institution = index === 0 ? profile.institution : otherInstitution(rng);
    const start = rng.dayBetween(profile.careerStartDay - 3 * YEAR, profile.today - YEAR);
    const periods = [
      { inicio: formatDay(start), fim: index === 0 && rng.chance(0.7) ? null : formatDay(rng.dayBetween(start + YEAR, profile.today)) },
    ];
    const employment: Employment = {
      empregador: institutionSpelling(rng, institution).nome,
      cnpj: `${digits(rng, 2)}.${digits(rng, 3)}.${digits(rng, 3)}/0001-${digits(rng, 2)}`,
      tipo_emprego: rng.pick(EMPLOYMENT.kinds),
      atividade: rng.pick(EMPLOYMENT.activities),
      vinculo: rng.pick(EMPLOYMENT.bonds),
      profissao: rng.pick(EMPLOYMENT.professions),
    };
    if (rng.chance(0.95)) employment.periodos = periods;
    return employment;
  });
}

export function projects(rng: Random, profile: PersonProfile): Project[] {
  const { area, institution } = profile;
  return Array.from({ length: countIn(rng, profile.traits.projects) }, () => {
    const project: Project = {
      situacao: rng.pick(PROJECT_SITUATIONS),
      ano_inicio: rng.int(yearOf(profile.careerStartDay), yearOf(profile.today)),
      linha_pesquisa: researchLine(rng, area),
      ies_sigla: institution.sigla,
      area: area.nome,
    };
    // Some projects have no name in the source; the curriculum lists only named ones.
    const named = rng.weighted<'name' | 'null' | 'absent'>([
      ['name', 90],
      ['null', 5],
      ['absent', 5],
    ]);
    if (named === 'name') project.nome = `Projeto: ${workTitle(rng, area)}`;
    else if (named === 'null') project.nome = null;
    if (rng.chance(0.5)) project.programa = programmeName(rng.pick(area.knowledgeAreas));
    return project;
  });
}

/** Block E: teaching in graduate programmes, with coordination periods for some. */
export function teachings(rng: Random, profile: PersonProfile): Teaching[] {
  const { area, institution, today } = profile;
  if (!rng.chance(profile.traits.teachingChance)) return [];
  let coordinates = rng.chance(profile.traits.ppgCoordinationChance);
  return Array.from({ length: countIn(rng, profile.traits.teachings) }, () => {
    const knowledgeArea = rng.pick(area.knowledgeAreas);
    const spelling = institutionSpelling(rng, institution);
    const teaching: Teaching = {
      programa: programmeName(knowledgeArea),
      codigo_programa: programmeCode(rng, institution),
      modalidade: rng.chance(0.8) ? 'Acadêmico' : 'Profissional',
      situacao_programa: rng.pick(TEACHING.programmeSituations),
      ies_nome: spelling.nome,
      ies_sigla: spelling.sigla,
      area: knowledgeArea,
      area_avaliacao: area.nome,
      categoria: rng.pick(TEACHING.categories),
      tipo_vinculo: rng.pick(TEACHING.bonds),
      regime_trabalho: rng.pick(TEACHING.regimes),
      carga_horaria: rng.pick([40, 40, 20, 12]),
      linhas_pesquisa: Array.from({ length: rng.int(1, 2) }, (): ResearchLine => {
        const start = rng.dayBetween(profile.careerStartDay, today - 30);
        const line: ResearchLine = { nome: sourceAreaText(rng, researchLine(rng, area)), inicio: formatDay(start) };
        if (rng.chance(0.3)) line.fim = formatDay(rng.dayBetween(start + 30, today));
        return line;
      }),
    };
    if (coordinates) {
      // One programme coordinated, in 1–2 terms of 2–4 years; the last may be current.
      coordinates = false;
      const terms: Array<{ inicio: string; fim?: string | null }> = [];
      let start = rng.dayBetween(profile.careerStartDay, today - 2 * YEAR);
      for (let i = rng.int(1, 2); i > 0 && start < today - 90; i -= 1) {
        const end = start + rng.int(2, 4) * YEAR;
        terms.push(end >= today ? { inicio: formatDay(start), fim: null } : { inicio: formatDay(start), fim: formatDay(end) });
        start = end + rng.int(YEAR, 4 * YEAR);
      }
      teaching.coordenacoes = terms;
    }
    return teaching;
  });
}
