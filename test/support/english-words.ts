/**
 * A detector of English in the texts a person reads, which are pt-BR (docs/errors.md, "Language of
 * the messages"): test/unit/run-messages.test.ts looks over the run messages catalogue with it,
 * test/unit/error-texts-language.test.ts over the messages the sources raise.
 */

/**
 * Common English words, none of them a Portuguese word too ("no", "a", "as", "for", "do", "data" are
 * left out: "no passo", "a execução", "as sessões", "data" a date). Jargon pt-BR keeps in English
 * (worker, commit, token, pipeline, heartbeat, workflow, thread, tag, setpriv, uid, root) is not here.
 */
const ENGLISH = new Set(
  `the not is was were are be been has have had ended failed fails cannot can could run runs running here there host hosts step
   steps agent agents canceled cancelled execution working directory exists longer inactive push pushed refused refuses
   of to in on at by with from this that and or if then else when which while required invalid allowed too many open
   sockets session expired signed out sign again checked now unavailable origin path connect internal error errors
   missing set seen over minute live draining registered holds stays carried made bundle copy repository user pool
   must got non empty start limit name valid does decrypt malformed tampered key different exist switch users each one
   per integer entry entries contain tools its takes choose letters digits group never only own another secret sealed
   turn leases unprivileged concurrent started settings service environment variable`
    .split(/\s+/)
    .filter(Boolean),
);

/** Names a message writes as they are spelled elsewhere: the Host header (docs/errors.md: a field or header as the request spells it). */
const IDENTIFIERS = new Set(['Host']);

/**
 * The English words of a text, its sample values (interpolated as they are, so taken out first), code
 * in backticks, absolute paths and identifiers aside.
 */
export function englishWordsOf(text: string, samples: readonly string[] = []): string[] {
  let words = text;
  for (const sample of samples) words = words.split(sample).join(' ');
  words = words.replace(/`[^`]*`/g, ' ').replace(/(^|\s)\/[^\s)]*/g, ' ');
  return words
    .split(/[^\p{L}\p{N}_]+/u)
    .filter((word) => word !== '' && !IDENTIFIERS.has(word))
    .filter((word) => ENGLISH.has(word.toLowerCase()));
}
