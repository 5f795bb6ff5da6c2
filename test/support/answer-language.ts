import fs from 'node:fs';
import type { Middleware } from 'koa';
import { openApiDocuments } from '../../api/openapi/catalog';
import { englishWordsOf } from './english-words';

/**
 * The texts the suites see are pt-BR (docs/errors.md, "Language of the messages"): every JSON answer
 * of a test server is looked over, and each text a person reads in it (an `error` or `detail`, a
 * notification's `message`, a validation item's `msg`) that holds an English word is recorded here and
 * fails the test that received it (test/openapi-setup.ts), as an answer that drifts from its OpenAPI
 * description does. What the service passes on as it came (a CLI's or git's own message, after the
 * service's words) is left out, as docs/errors.md says.
 */

/**
 * The keys whose texts are the service's words: an error envelope's `error` or `detail`, a record's
 * `error`, a validation item's `msg`. A notification's `message` is left out: it is "<agent>: <task>",
 * words a person wrote.
 */
const TEXT_KEYS = new Set(['error', 'detail', 'msg']);

/**
 * The part of a text the service passes on as it came: what follows these words of its own. A CLI's
 * exit with its standard error, a refused push with git's message, a failure hint with the CLI's words.
 */
const PASSED_ON = [
  / terminou com o código -?\d+: [\s\S]*$/,
  / foi recusado: [\s\S]*$/,
  / foi encerrado pelo sinal [\s\S]*$/,
  // A parser's own words: where the JSON stopped, busboy's refusal, the cron parser's field and range.
  /; o analisador diz: [\s\S]*$/,
  // A dependency's own error after what could not be reached (the ranking's sheets: `connect ECONNREFUSED …`).
  / indisponível: [\s\S]*$/,
];

const found: string[] = [];
const log = process.env.ANSWER_LANGUAGE_LOG;

/** The English answers recorded since the last call, cleared. */
export function takeEnglishAnswers(): string[] {
  return found.splice(0, found.length);
}

let identifiers: Set<string> | null = null;

/**
 * The names a message writes as the request spells them (docs/errors.md): every property, parameter
 * and enumerated value of the two OpenAPI documents (`name é obrigatório`, `status atual: running`).
 */
function apiIdentifiers(): Set<string> {
  if (identifiers !== null) return identifiers;
  const names = new Set<string>();
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    const object = node as Record<string, unknown>;
    if (object.properties !== null && typeof object.properties === 'object')
      for (const key of Object.keys(object.properties)) names.add(key);
    if (object.in !== undefined && typeof object.name === 'string') names.add(object.name);
    if (Array.isArray(object.enum)) for (const value of object.enum) if (typeof value === 'string') names.add(value);
    Object.values(object).forEach(walk);
  };
  walk(openApiDocuments());
  identifiers = names;
  return names;
}

/**
 * The service's own words of a text: what it passes on as it came cut off, and the values it quotes
 * as they are (quoted, a field path like `body.steps.0`, an id or slug with a hyphen) and the API's
 * own names taken out.
 */
function ownWords(text: string): string {
  const own = PASSED_ON.reduce((words, passedOn) => words.replace(passedOn, ''), text)
    .replace(SYSTEM_ERROR, ' ')
    .replace(/"[^"]*"/g, ' ')
    .replace(/\S*[\w\]][.-][\w[]\S*/g, ' ');
  const names = apiIdentifiers();
  return own
    .split(/([^\p{L}\p{N}_]+)/u)
    .map((part) => (names.has(part) ? ' ' : part))
    .join('');
}

/**
 * A dependency's own words, by their path in the answer: the system status's and the health's
 * `dependencies.<name>.error` is what the client of MariaDB, Redis, Elasticsearch or Temporal said
 * (docs/system-status.md), passed on as it came.
 */
const DEPENDENCY_MESSAGE = /(^|\.)dependencies\.[^.]+\.error$/;

/** A Node system error inside a text (`Error: connect ECONNREFUSED 127.0.0.1:9200`): a cause passed on as it came. */
const SYSTEM_ERROR = /(?:Error: )?(?:connect|read|write|getaddrinfo) E[A-Z_]{3,}(?: [^\s;)]+)?/g;

/** Each text under a key of TEXT_KEYS in a JSON value, with its path (`dependencies.redis.error`). */
function textsOf(value: unknown, into: Array<[string, string]> = [], path = ''): Array<[string, string]> {
  if (path.split('.').length > 8 || value === null || typeof value !== 'object') return into;
  if (Array.isArray(value)) {
    for (const [index, item] of value.slice(0, 200).entries()) textsOf(item, into, `${path}${path ? '.' : ''}${index}`);
    return into;
  }
  for (const [key, item] of Object.entries(value)) {
    const at = `${path}${path ? '.' : ''}${key}`;
    if (typeof item === 'string' && TEXT_KEYS.has(key)) {
      if (!DEPENDENCY_MESSAGE.test(at)) into.push([key, item]);
    } else textsOf(item, into, at);
  }
  return into;
}

/** Looks over one answer's JSON body; `where` names it in the failure. */
export function lookOverAnswer(where: string, body: unknown): void {
  for (const [key, text] of textsOf(body)) {
    const words = englishWordsOf(ownWords(text));
    if (words.length === 0) continue;
    const line = `${where}: ${key} ${JSON.stringify(text)} holds English (${words.join(', ')})`;
    if (log)
      fs.appendFileSync(
        log,
        `${JSON.stringify({ suite: typeof expect === 'undefined' ? null : expect.getState().testPath, where, key, text, words })}\n`,
      );
    else found.push(line);
  }
}

/** Koa middleware: the JSON answers of a test server, looked over once the route has answered. */
export function answerLanguage(): Middleware {
  return async (ctx, next) => {
    await next();
    if (!ctx.response.type.includes('json') || ctx.body === null || ctx.body === undefined) return;
    let body: unknown = ctx.body;
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      try {
        body = JSON.parse(body.toString());
      } catch {
        return;
      }
    } else if (typeof (body as { pipe?: unknown }).pipe === 'function') return;
    lookOverAnswer(`${ctx.method} ${ctx.path} → ${ctx.status}`, body);
  };
}
