import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { repoRoot } from '../../lib/paths';
import { runLoadAlone } from './load-alone';
import { FORMS, runFaultSuite, type Form } from './suite';
import { resultTable } from './table';

/**
 * `npm run test:faults [-- --form short|long] [--seed N]` (docs/reliability.md): the fault suite on
 * the local stack. The seed is printed first; the same seed replays the same schedule. Exits 1 when
 * any check failed, after printing every violation and the table.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      form: { type: 'string', default: 'long' },
      seed: { type: 'string' },
      // The load alone, no fault (docs/reliability.md, "Load, alone").
      'load-only': { type: 'boolean', default: false },
      minutes: { type: 'string', default: '10' },
      clients: { type: 'string', default: '50' },
      rate: { type: 'string', default: '2' },
    },
  });
  if (values['load-only']) return loadAlone(Number(values.minutes), Number(values.clients), Number(values.rate));
  const form = values.form as Form;
  if (!(form in FORMS)) throw new Error(`--form must be one of ${Object.keys(FORMS).join(', ')}`);
  const seed = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
  if (!Number.isSafeInteger(seed) || seed < 0) throw new Error('--seed must be a non-negative integer');
  process.stdout.write(`faults: seed ${seed} (replay: npm run test:faults -- --form ${form} --seed ${seed})\n`);
  const result = await runFaultSuite({ seed, form });
  const out = path.join(repoRoot, '.stack', 'logs', 'faults', `result-${form}-${seed}.json`);
  fs.writeFileSync(out, JSON.stringify(result, null, 2));
  process.stdout.write(`\n${resultTable(result)}\n\nfigures: ${out}\n`);
  if (result.violations.length > 0) {
    process.stdout.write(
      `\n${result.violations.length} violation(s):\n${result.violations.map((violation) => `- ${violation}`).join('\n')}\n`,
    );
    process.exitCode = 1;
  } else process.stdout.write('\nno violation\n');
}

async function loadAlone(minutes: number, clients: number, runsPerSecond: number): Promise<void> {
  if (!(minutes > 0) || !Number.isInteger(clients) || clients < 1 || !(runsPerSecond > 0))
    throw new Error('--minutes and --rate must be > 0, --clients a positive integer');
  const result = await runLoadAlone({ minutes, clients, runsPerSecond, slots: 4, lines: 20, everyMs: 100 });
  const out = path.join(repoRoot, '.stack', 'logs', 'faults', `load-alone-${new Date().toISOString().slice(0, 16).replace(/:/g, '')}.json`);
  fs.writeFileSync(out, JSON.stringify(result, null, 2));
  process.stdout.write(`\n${JSON.stringify(result, null, 2)}\n\nfigures: ${out}\n`);
  // Lines that all came by catch-up would hide a live stream that does not work (a socket refused).
  if (result.notCompleted.length > 0 || result.linesLost > 0 || result.linesDoubled > 0 || result.liveChunks.received === 0)
    process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`faults: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
