import type { SuggestionCandidate } from './candidate';
import { matchesTheme, type ThemeMatcher } from './normalise';

/** Characters of a research line that its reason quotes. */
export const RESEARCH_LINE_QUOTE_LENGTH = 50;

/** The reason texts of rule 3, exactly as specified. */
export const matchReason = {
  knowledgeArea: (name: string) => `Area: ${name}`,
  assessmentArea: (name: string) => `Area Avaliacao: ${name}`,
  /** Always the first 50 characters followed by `...`, even when the line is shorter. */
  researchLine: (line: string) => `Pesquisa: ${[...line].slice(0, RESEARCH_LINE_QUOTE_LENGTH).join('')}...`,
};

/**
 * Rule 3: one reason per matching text, knowledge areas first, then assessment areas, then
 * research lines, each in the candidate's order. The texts are the displayed (repaired) ones.
 */
export function matchReasons(
  candidate: Pick<SuggestionCandidate, 'areas_conhecimento' | 'areas_avaliacao' | 'linhas_pesquisa'>,
  theme: ThemeMatcher,
): string[] {
  const reasons: string[] = [];
  for (const name of candidate.areas_conhecimento) if (matchesTheme(name, theme)) reasons.push(matchReason.knowledgeArea(name));
  for (const name of candidate.areas_avaliacao) if (matchesTheme(name, theme)) reasons.push(matchReason.assessmentArea(name));
  for (const line of candidate.linhas_pesquisa) if (matchesTheme(line, theme)) reasons.push(matchReason.researchLine(line));
  return reasons;
}
