import { FAULTS } from '../../scripts/faults/fault-schedule';
import { FORMS, runFaultSuite } from '../../scripts/faults/suite';
import { resultTable } from '../../scripts/faults/table';

/**
 * The fault suite's short form (docs/reliability.md; the long form is `npm run test:faults`): the
 * service split by role on the real stack, the real CLI and the stand-in model, a small load, and
 * each fault once at a moment drawn from a fixed seed. Every accepted run ends with a state that says
 * what happened, none runs twice, every line a client was shown is there once and in order, the
 * pipelines that waited for approval through every fault still wait and complete when approved, the
 * ranking holds every person, and no agent process is left. The stack is whole again afterwards.
 */

const SEED = 20261127;

it(
  'strikes every fault once under load and loses, doubles and strands nothing',
  async () => {
    const result = await runFaultSuite({ seed: SEED, form: 'short', log: (line) => process.stdout.write(`faults: ${line}\n`) });
    process.stdout.write(`${resultTable(result)}\n`);

    expect(result.violations).toEqual([]);
    expect(result.phases.map((phase) => phase.faults.join('+')).sort()).toEqual([...FAULTS].sort());
    for (const phase of result.phases) {
      expect({
        faults: phase.faults,
        lost: phase.lost,
        doubled: phase.doubled,
        linesLost: phase.linesLost,
        linesDoubled: phase.linesDoubled,
      }).toEqual({
        faults: phase.faults,
        lost: 0,
        doubled: 0,
        linesLost: 0,
        linesDoubled: 0,
      });
      // At least the webhook deliveries (sent until accepted), the schedule's firing and the probe; a run asked for while the API was down is not accepted.
      expect(phase.accepted).toBeGreaterThanOrEqual(FORMS.short.webhookCalls + 1 + 1);
      expect(phase.completed + phase.errorWithCause).toBe(phase.accepted);
      expect(phase.recoverMs).not.toBeNull();
    }
    expect(result.final.approvedPipelines).toBe(2);
    expect(result.final.rankingPersons).toBe(FORMS.short.persons);
    expect(result.final.webhookDeliveries).toBe(result.final.webhookTriggerCount);
    expect(result.final.scheduleRecords).toBe(result.final.scheduleFirings);
    expect(result.final.scheduleFirings).toBeGreaterThanOrEqual(result.phases.length);
  },
  45 * 60_000,
);
