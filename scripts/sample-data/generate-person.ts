import type { PersonDocument } from '../../domain/person-document';
import { awards, committeeEvaluations, examinationBoards, fundingGrants, inscriptions, participations, supervisions } from './activities';
import { agencyCoordinations, consultancyDocuments, consultancyPeriods, yearsOfActivity } from './consultancy';
import { addresses, degrees, employments, languages, projects, teachings } from './curriculum';
import { damageEncoding } from '../../domain/text';
import { personProfile } from './person-profile';
import { Random, dayOf, formatDay, personSeed } from './random';
import { DAMAGED_NAME_SHARE, digits, personName } from './texts';
import { FOREIGN_NATIONALITIES } from './vocabulary';

/**
 * One sample person document, realistic in shape and in distribution (see person-profile.ts).
 * Everything random comes from `rng`; with `personRandom(seed, id)` a document depends only on
 * (seed, id, referenceDate), whatever was generated before it.
 */
export function generatePerson(rng: Random, idPessoa: number, referenceDate: Date): PersonDocument {
  const today = dayOf(referenceDate);
  const profile = personProfile(rng, today);
  const name = personName(rng);
  const periods = consultancyPeriods(rng, profile);

  const person: PersonDocument = {
    id_pessoa: idPessoa,
    nome: rng.chance(DAMAGED_NAME_SHARE) ? damageEncoding(name) : name,
    ativo: profile.situation === 'active',
    anos_atuacao: yearsOfActivity(periods, today),
  };
  const birth = rng.weighted<'date' | 'null' | 'absent'>([
    ['date', 92],
    ['null', 3],
    ['absent', 5],
  ]);
  if (birth !== 'absent') person.data_nascimento = birth === 'date' ? formatDay(profile.birthDay) : null;
  if (rng.chance(0.95)) person.nacionalidade = rng.chance(0.96) ? 'Brasileira' : rng.pick(FOREIGN_NATIONALITIES);
  const cv = rng.weighted<'id' | 'null' | 'absent'>([
    ['id', 90],
    ['null', 3],
    ['absent', 7],
  ]);
  if (cv !== 'absent') person.id_cv = cv === 'id' ? digits(rng, 16) : null;

  setList(rng, person, 'consultoria', consultancyDocuments(rng, profile, periods));
  setList(rng, person, 'coordenacoes_agency', agencyCoordinations(rng, profile, periods));
  setList(rng, person, 'inscricoes', inscriptions(rng, profile));
  setList(rng, person, 'avaliacoes_comissao', committeeEvaluations(rng, profile));
  setList(rng, person, 'premiacoes', awards(rng, profile));
  setList(rng, person, 'bolsas_funder', fundingGrants(rng, profile));
  setList(rng, person, 'participacoes', participations(rng, profile));
  setList(rng, person, 'orientacoes', supervisions(rng, profile));
  setList(rng, person, 'membros_banca', examinationBoards(rng, profile));
  setList(rng, person, 'docencias', teachings(rng, profile));

  // Generated even when left out, so that leaving a section out does not shift the random stream.
  const personLanguages = languages(rng);
  if (rng.chance(0.85)) person.idiomas = personLanguages;
  const personDegrees = degrees(rng, profile);
  if (rng.chance(0.95)) person.titulacoes = personDegrees;
  const personAddresses = addresses(rng, profile);
  if (rng.chance(0.9)) person.enderecos = personAddresses;
  setList(rng, person, 'empregos', employments(rng, profile));
  setList(rng, person, 'projetos', projects(rng, profile));
  return person;
}

/** The generator of one person: a function of (seed, id) only. */
export function personRandom(seed: number, idPessoa: number): Random {
  return new Random(personSeed(seed, idPessoa));
}

/** Convenience: the document of `idPessoa` for `seed` (what the bulk loader indexes). */
export function generatePersonFor(seed: number, idPessoa: number, referenceDate: Date): PersonDocument {
  return generatePerson(personRandom(seed, idPessoa), idPessoa, referenceDate);
}

type ListKey = {
  [K in keyof PersonDocument]-?: NonNullable<PersonDocument[K]> extends ReadonlyArray<unknown> ? K : never;
}[keyof PersonDocument];

/** The source leaves an empty list out about half of the time; consumers must treat both alike. */
function setList<K extends ListKey>(rng: Random, person: PersonDocument, key: K, items: NonNullable<PersonDocument[K]>): void {
  if (items.length > 0 || rng.chance(0.5)) person[key] = items;
}
