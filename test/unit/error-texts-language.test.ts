import fs from 'node:fs';
import path from 'node:path';
import { englishWordsOf } from '../support/english-words';

/**
 * The messages the sources raise that a person reads are pt-BR (docs/errors.md, "Language of the
 * messages"), besides those of the run messages catalogue (test/unit/run-messages.test.ts): an agent
 * option refused before the start (AgentOptionsError), an agent's secret that cannot be read
 * (SecretDecryptionError), and the isolation check's reason (lib/agent-isolation.ts: GET
 * /api/system/info, and a run's refusal "os agentes não podem rodar aqui: <reason>"). Read from the
 * sources, so a message added later is looked over too.
 */

const ROOT = path.join(__dirname, '..', '..');
const FOLDERS = ['activities', 'lib', 'db', 'services', 'domain'];
const ISOLATION = 'lib/agent-isolation.ts';
/** Paths a message names as they are spelled (the detector leaves out only absolute paths). */
const SAMPLES = ['scripts/stack/agent-users.sh'];

interface Text {
  /** file:line of the literal. */
  where: string;
  file: string;
  /** The literal's text, each `${…}` a blank; null when the message is not a literal. */
  text: string | null;
}

interface Literal {
  text: string;
  /** The `${…}` expressions of a template literal. */
  expressions: string[];
  /** The index after its closing quote. */
  end: number;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The string or template literal at `start` (its quote), or null when there is none. */
function literalAt(source: string, start: number): Literal | null {
  const quote = source[start];
  if (quote !== "'" && quote !== '"' && quote !== '`') return null;
  let text = '';
  const expressions: string[] = [];
  let index = start + 1;
  while (index < source.length) {
    const char = source[index]!;
    if (char === quote) return { text, expressions, end: index + 1 };
    if (char === '\\') {
      text += source[index + 1] ?? '';
      index += 2;
    } else if (quote === '`' && source.startsWith('${', index)) {
      const close = expressionEnd(source, index + 2);
      expressions.push(source.slice(index + 2, close).trim());
      text += ' ';
      index = close + 1;
    } else {
      text += char;
      index += 1;
    }
  }
  return null;
}

/** The index of the `}` that closes the expression starting at `start` (literals inside it skipped). */
function expressionEnd(source: string, start: number): number {
  let depth = 0;
  let index = start;
  while (index < source.length) {
    const char = source[index]!;
    const literal = literalAt(source, index);
    if (literal !== null) {
      index = literal.end;
      continue;
    }
    if (char === '{') depth += 1;
    else if (char === '}') {
      if (depth === 0) return index;
      depth -= 1;
    }
    index += 1;
  }
  return source.length;
}

function lineOf(source: string, index: number): number {
  return source.slice(0, index).split('\n').length;
}

/** The first argument of every `new <error class>(` of a file, as literals. */
function errorMessages(file: string, source: string): Text[] {
  const texts: Text[] = [];
  for (const match of source.matchAll(/new (AgentOptionsError|SecretDecryptionError)\(\s*/g)) {
    const literal = literalAt(source, match.index + match[0].length);
    texts.push({ where: `${file}:${lineOf(source, match.index)}`, file, text: literal?.text ?? null });
  }
  return texts;
}

/**
 * Every `reason:` literal of lib/agent-isolation.ts, and the literals of the local texts it
 * interpolates (`${setup}`, `${missing}`: a lower-case `const` of the file). A constant in capitals
 * (AGENT_GROUP, SETPRIV) is a value, interpolated as it is.
 */
function isolationReasons(source: string): Text[] {
  const texts: Text[] = [];
  const followed = new Set<string>();
  const add = (index: number, literal: Literal): void => {
    texts.push({ where: `${ISOLATION}:${lineOf(source, index)}`, file: ISOLATION, text: literal.text });
    for (const expression of literal.expressions) {
      if (!/^[a-z]\w*$/.test(expression) || followed.has(expression)) continue;
      followed.add(expression);
      const declaration = new RegExp(`const ${expression}\\s*=\\s*`).exec(source);
      if (declaration !== null) literalsOf(declaration.index + declaration[0].length);
    }
  };
  // The literals of an initializer, up to its `;`.
  const literalsOf = (start: number): void => {
    let index = start;
    while (index < source.length && source[index] !== ';') {
      const literal = literalAt(source, index);
      if (literal === null) index += 1;
      else {
        add(index, literal);
        index = literal.end;
      }
    }
  };
  for (const match of source.matchAll(/\breason:\s*/g)) {
    const start = match.index + match[0].length;
    const literal = literalAt(source, start);
    if (literal !== null) add(start, literal);
  }
  return texts;
}

function collectTexts(): Text[] {
  const texts: Text[] = [];
  for (const folder of FOLDERS) {
    for (const full of sourceFiles(path.join(ROOT, folder))) {
      const file = path.relative(ROOT, full).split(path.sep).join('/');
      const source = fs.readFileSync(full, 'utf8');
      texts.push(...errorMessages(file, source));
      if (file === ISOLATION) texts.push(...isolationReasons(source));
    }
  }
  return texts;
}

describe('the messages of the agent options, the secrets and the isolation check', () => {
  const texts = collectTexts();

  it('finds them in the sources: each error message a literal the scan can read', () => {
    const count = (pattern: RegExp) => texts.filter((text) => pattern.test(text.where)).length;
    expect(count(/^activities\/agents\//)).toBeGreaterThanOrEqual(15);
    expect(count(/^(lib\/secret-box|db\/agent-secrets-store)\.ts/)).toBeGreaterThanOrEqual(3);
    expect(count(/^lib\/agent-isolation\.ts/)).toBeGreaterThanOrEqual(7);
    expect(texts.filter((text) => text.text === null).map((text) => text.where)).toEqual([]);
  });

  it('holds no English word in any of them', () => {
    const flagged = texts
      .map((text) => ({ where: text.where, text: text.text, words: englishWordsOf(text.text ?? '', SAMPLES) }))
      .filter(({ words }) => words.length > 0);
    expect(flagged).toEqual([]);
  });

  it('flags the English it is there to catch (texts it replaced)', () => {
    expect(englishWordsOf('maxTurns must be a non-negative integer, got 5')).toEqual(['must', 'be', 'non', 'integer', 'got']);
    expect(englishWordsOf('secret does not decrypt: tampered data or a different key')).toEqual([
      'secret',
      'does',
      'not',
      'decrypt',
      'tampered',
      'or',
      'different',
      'key',
    ]);
    expect(englishWordsOf('no agent users exist: run scripts/stack/agent-users.sh', SAMPLES)).toEqual(['agent', 'users', 'exist', 'run']);
    expect(englishWordsOf('o codex não tem limite de turnos: maxTurns deve ser 0 (sem limite), recebido 5')).toEqual([]);
  });
});
