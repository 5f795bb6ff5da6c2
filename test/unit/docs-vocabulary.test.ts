import fs from 'node:fs';
import path from 'node:path';
import { EXECUTION_SOURCES, EXECUTION_STATUSES } from '../../domain/execution-status';
import { schemaVariables } from '../../scripts/docs/deployment-matrix';
import { NOTIFICATION_TYPES, notificationView } from '../../services/notifications';
import { jobStatusSchema } from '../../services/ranking/job';

/**
 * The docs name every value the code defines (issue 43 §18): each execution status and source in the
 * execution record's lists (docs/executions.md) and in what an agent's record uses of them
 * (docs/agent-executions.md), each ranking job state in docs/ranking-job.md, each notification type
 * and the kinds that map to one in docs/reports-notifications-settings.md, and each variable of
 * lib/config.ts in README.md's settings table. A value added to the code without its doc fails here,
 * naming the doc and the value.
 */

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/**
 * The text under the first heading that starts with `heading` (`### Statuses`; `## Notifications` for
 * `## Notifications (db/...)`) up to the next heading of the same or a higher level; lines in fenced
 * blocks are never headings. Throws when the doc has no such heading, so a renamed section is told
 * apart from a missing value.
 */
function section(file: string, heading: string): string {
  const level = /^#+/.exec(heading)![0].length;
  const lines = read(file).split('\n');
  const headingAt = (index: number) => {
    let fenced = false;
    for (let i = 0; i <= index; i++) if (lines[i]!.startsWith('```')) fenced = !fenced;
    return !fenced;
  };
  const start = lines.findIndex((line, index) => (line === heading || line.startsWith(`${heading} `)) && headingAt(index));
  if (start < 0) throw new Error(`${file} has no heading "${heading}"`);
  let fenced = false;
  const body: string[] = [];
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith('```')) fenced = !fenced;
    const match = /^(#+) /.exec(line);
    if (!fenced && match && match[1]!.length <= level) break;
    body.push(line);
  }
  return body.join('\n');
}

/** What a text writes as inline code (`queued`, `webhook-test`), each once. */
function inlineCode(text: string): Set<string> {
  return new Set([...text.matchAll(/`([^`\n]+)`/g)].map((match) => match[1]!.trim()));
}

/** The values not written as inline code in `text`, for the failure's message. */
function notWritten(values: readonly string[], text: string): string[] {
  const written = inlineCode(text);
  return values.filter((value) => !written.has(value));
}

describe('docs/executions.md, the execution record', () => {
  test('lists every status of EXECUTION_STATUSES under "Statuses"', () => {
    expect({ missing: notWritten(EXECUTION_STATUSES, section('docs/executions.md', '### Statuses')) }).toEqual({ missing: [] });
  });

  test('lists every source of EXECUTION_SOURCES under "Sources"', () => {
    expect({ missing: notWritten(EXECUTION_SOURCES, section('docs/executions.md', '### Sources')) }).toEqual({ missing: [] });
  });
});

describe('docs/agent-executions.md, what an agent record uses', () => {
  test('says of every status and every source whether an agent record holds it', () => {
    const text = section('docs/agent-executions.md', '## Statuses and sources');
    expect({ statuses: notWritten(EXECUTION_STATUSES, text), sources: notWritten(EXECUTION_SOURCES, text) }).toEqual({
      statuses: [],
      sources: [],
    });
  });
});

describe('docs/ranking-job.md, the job status', () => {
  test("lists every `estado` the status answers (jobStatusSchema) in the status record's table", () => {
    const states = jobStatusSchema.shape.estado.options;
    expect(states).toEqual(expect.arrayContaining(['nunca_executado', 'em_execucao', 'concluido', 'falhou', 'cancelado']));
    const row = read('docs/ranking-job.md')
      .split('\n')
      .find((line) => line.startsWith('| `estado` |'));
    if (row === undefined) throw new Error('docs/ranking-job.md has no table row for `estado`');
    expect({ missing: notWritten(states, row) }).toEqual({ missing: [] });
  });
});

describe('docs/reports-notifications-settings.md, notifications', () => {
  const text = section('docs/reports-notifications-settings.md', '## Notifications');
  const typeOf = (kind: string) =>
    notificationView({ id: 'n', kind, title: 't', message: 'm', executionId: null, read: false, createdAt: new Date(0) }).type;

  test('names every notification type (NOTIFICATION_TYPES)', () => {
    expect({ missing: notWritten(NOTIFICATION_TYPES, text) }).toEqual({ missing: [] });
  });

  test('maps each kind to the type the code answers, and maps every kind the code gives a type of its own', () => {
    // The doc writes the mapping as `<kind>` → `<type>`.
    const documented = new Map([...text.matchAll(/`([a-z]+\.[a-z_]+)` → `([a-z]+)`/g)].map((match) => [match[1]!, match[2]!]));
    expect(documented.size).toBeGreaterThan(0);
    const wrong = [...documented].filter(([kind, type]) => typeOf(kind) !== type).map(([kind, type]) => `${kind} → ${type}`);
    // A run's notification is `execution.<status>`: the statuses whose kind the code styles other than `info`.
    const typed = EXECUTION_STATUSES.map((status) => `execution.${status}`).filter((kind) => typeOf(kind) !== 'info');
    expect(typed).toEqual(expect.arrayContaining(['execution.completed', 'execution.error']));
    const unmapped = typed.filter((kind) => documented.get(kind) !== typeOf(kind));
    expect({ wrong, unmapped }).toEqual({ wrong: [], unmapped: [] });
  });
});

describe("README.md's settings table", () => {
  test('has a row for every variable of lib/config.ts', () => {
    const lines = read('README.md').split('\n');
    const header = lines.findIndex((line) => line.trim() === '| variable | default | meaning |');
    if (header < 0) throw new Error('README.md has no settings table ("| variable | default | meaning |")');
    const rows: string[] = [];
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith('|')) break;
      rows.push(line);
    }
    // A row's first cell names its variables (`HTTP_HOST` / `HTTP_PORT`).
    const named = new Set(rows.flatMap((row) => [...inlineCode(row.split('|')[1] ?? '')]));
    const variables = schemaVariables().map((variable) => variable.name);
    expect(variables.length).toBeGreaterThan(80);
    expect({ missing: variables.filter((name) => !named.has(name)) }).toEqual({ missing: [] });
  });
});
