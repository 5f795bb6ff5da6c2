import { z } from 'zod';
import type { ConsultancyPeriod, PersonDocument } from '../person-document';
import { displayText } from './normalise';

/**
 * What the suggestion reads of a person document: the fields of SUGGESTION_SOURCE_FIELDS
 * (search-request.ts), everything optional because the source may lack any of it.
 */
export type SuggestionSource = Partial<Pick<PersonDocument, 'id_pessoa' | 'nome' | 'coordenacoes_agency' | 'premiacoes'>> & {
  consultoria?: Array<Partial<ConsultancyPeriod>>;
};

/** Rule 2: a candidate as taken from its consultancy activity, every text as displayed (displayText). */
export const suggestionCandidateSchema = z.object({
  id_pessoa: z.number().int(),
  nome: z.string(),
  situacao: z.string().meta({ description: "The latest consultancy period's (`Ativo`, `Inativo`, `Falecido`); '' when unknown" }),
  ies: z.string().nullable().meta({ description: "The latest period's institution that has one: abbreviation, else name" }),
  areas_avaliacao: z.array(z.string()),
  areas_conhecimento: z.array(z.string()),
  linhas_pesquisa: z.array(z.string()),
  foi_coordenador: z.boolean().meta({ description: 'Any agency coordination term' }),
  foi_premiado: z.boolean().meta({ description: 'Any award received' }),
});
export type SuggestionCandidate = z.infer<typeof suggestionCandidateSchema>;

function present(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** Displayed texts in first-seen order, each once. */
function distinctDisplayed(values: Iterable<unknown>, display: (text: string) => string): string[] {
  const texts = new Set<string>();
  for (const value of values) if (present(value)) texts.add(display(value));
  return [...texts];
}

/**
 * Periods latest first: by `inicio` descending (`YYYY-MM-DD` compares as text); a period without
 * `inicio` counts as the oldest; equal starts keep the later-listed period first.
 */
function latestFirst(periods: ReadonlyArray<Partial<ConsultancyPeriod>>): Array<Partial<ConsultancyPeriod>> {
  return periods
    .map((period, index) => ({ period, index, start: present(period.inicio) ? period.inicio : '' }))
    .sort((a, b) => (a.start === b.start ? b.index - a.index : a.start < b.start ? 1 : -1))
    .map(({ period }) => period);
}

/** The institution of a period: its abbreviation, else its name. */
function institutionOf(period: Partial<ConsultancyPeriod>): string | null {
  if (present(period.ies_sigla)) return period.ies_sigla;
  if (present(period.ies_nome)) return period.ies_nome;
  return null;
}

/**
 * Rule 2 (docs/suggestion.md): `situacao` is the latest period's; `ies` the latest period's that names
 * an institution (abbreviation, else name); the areas and lines are those of every period, each once, in
 * the order the periods list them. Any agency coordination term makes `foi_coordenador`, any award
 * received (prize, grand prize or honourable mention) `foi_premiado`.
 */
export function extractCandidate(
  idPessoa: number,
  source: SuggestionSource,
  display: (text: string) => string = displayText,
): SuggestionCandidate {
  // Dirty sources hold null elements; they carry nothing.
  const periods = (Array.isArray(source.consultoria) ? source.consultoria : []).filter(
    (period) => typeof period === 'object' && period !== null,
  );
  const recent = latestFirst(periods);
  const situacao = recent[0]?.situacao;
  const ies = recent.map(institutionOf).find((name) => name !== null) ?? null;
  const list = <T>(value: T[] | undefined): T[] => (Array.isArray(value) ? value : []);
  return {
    id_pessoa: idPessoa,
    nome: present(source.nome) ? display(source.nome) : '',
    situacao: present(situacao) ? display(situacao) : '',
    ies: ies === null ? null : display(ies),
    areas_avaliacao: distinctDisplayed(
      periods.flatMap((period) => list(period.areas_avaliacao)),
      display,
    ),
    areas_conhecimento: distinctDisplayed(
      periods.flatMap((period) => list(period.areas_conhecimento).map((area) => area?.nome)),
      display,
    ),
    linhas_pesquisa: distinctDisplayed(
      periods.flatMap((period) => list(period.linhas_pesquisa)),
      display,
    ),
    foi_coordenador: list(source.coordenacoes_agency).length > 0,
    foi_premiado: list(source.premiacoes).length > 0,
  };
}
