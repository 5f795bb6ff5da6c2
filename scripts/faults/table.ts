import type { SuiteResult } from './suite';

/** The suite's figures as the Markdown table of docs/reliability.md: a row per phase, then the causes of the errors. */
export function resultTable(result: SuiteResult): string {
  const header = '| fault | accepted | completed | error with cause | lost | doubled | lines lost | lines doubled | time to recover (s) |';
  const rows = result.phases.map((phase) =>
    [
      phase.faults.join(' + '),
      phase.accepted,
      phase.completed,
      phase.errorWithCause,
      phase.lost,
      phase.doubled,
      phase.linesLost,
      phase.linesDoubled,
      phase.recoverMs === null ? 'never' : (phase.recoverMs / 1000).toFixed(1),
    ].join(' | '),
  );
  const causes = new Map<string, number>();
  for (const phase of result.phases)
    for (const [cause, times] of Object.entries(phase.causes)) causes.set(`${phase.faults.join(' + ')}: ${cause}`, times);
  return [
    `Seed ${result.seed}, ${result.form} form, ${result.seconds.toFixed(0)} s.`,
    '',
    header,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
    '',
    'Errors, by cause:',
    '',
    ...(causes.size === 0 ? ['- none'] : [...causes].map(([cause, times]) => `- ${cause} (${times})`)),
  ].join('\n');
}
