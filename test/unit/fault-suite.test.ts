import { FAULTS, faultSchedule } from '../../scripts/faults/fault-schedule';
import { judgePhase, type RecordRow } from '../../scripts/faults/checks';
import { judgeRunLines } from '../../scripts/faults/run-lines';

describe('the fault schedule (docs/reliability.md)', () => {
  const options = { seed: 20261127, pairs: 5, strikeWindowMs: [2_000, 14_000] as [number, number] };

  it('is the same for the same seed, and another for another seed', () => {
    expect(faultSchedule(options)).toEqual(faultSchedule(options));
    expect(faultSchedule({ ...options, seed: 1 })).not.toEqual(faultSchedule(options));
  });

  it('strikes every fault alone once, then the pairs of two different faults, each inside the window', () => {
    const phases = faultSchedule(options);
    expect(phases).toHaveLength(FAULTS.length + 5);
    expect(
      phases
        .slice(0, FAULTS.length)
        .map((phase) => phase.faults[0])
        .sort(),
    ).toEqual([...FAULTS].sort());
    for (const phase of phases.slice(0, FAULTS.length)) expect(phase.faults).toHaveLength(1);
    for (const phase of phases.slice(FAULTS.length)) {
      expect(phase.faults).toHaveLength(2);
      expect(phase.faults[0]).not.toBe(phase.faults[1]);
    }
    for (const phase of phases) {
      expect(phase.delaysMs).toHaveLength(phase.faults.length);
      for (const delay of phase.delaysMs) {
        expect(delay).toBeGreaterThanOrEqual(2_000);
        expect(delay).toBeLessThanOrEqual(14_000);
      }
    }
  });
});

describe("a client's lines of a run, judged (docs/reliability.md)", () => {
  const line = (i: number) => `p1c0r0 line ${i} of 5`;

  it('a completed run shown whole, with the other lines of the terminal around it: nothing lost or doubled', () => {
    expect(judgeRunLines(['── Turno 1 ──', ...[1, 2, 3, 4, 5].map(line), 'Resultado: 1 turno'], 'p1c0r0', 5, 'completed')).toEqual({
      shown: 5,
      lost: 0,
      doubled: 0,
      outOfOrder: 0,
      neverWritten: 0,
    });
  });

  it('a gap is lost whatever the status; the missing end is lost only when the run completed', () => {
    expect(judgeRunLines([1, 2, 4].map(line), 'p1c0r0', 5, 'error')).toMatchObject({ shown: 3, lost: 1, neverWritten: 1 });
    expect(judgeRunLines([1, 2, 4].map(line), 'p1c0r0', 5, 'completed')).toMatchObject({ shown: 3, lost: 2, neverWritten: 0 });
    expect(judgeRunLines([], 'p1c0r0', 5, 'completed')).toMatchObject({ shown: 0, lost: 5 });
  });

  it('counts a line shown twice and a line after a later one', () => {
    expect(judgeRunLines([1, 2, 2, 3, 5, 4].map(line), 'p1c0r0', 5, 'completed')).toMatchObject({
      shown: 5,
      lost: 0,
      doubled: 1,
      outOfOrder: 1,
    });
  });

  it("reads only this run's tag and count: another run's lines are not its own", () => {
    expect(judgeRunLines(['p1c0r01 line 1 of 5', 'p1c0r0 line 1 of 50', line(1)], 'p1c0r0', 5, 'error')).toMatchObject({
      shown: 1,
      lost: 0,
      neverWritten: 4,
    });
  });
});

describe('a phase judged (docs/reliability.md, "The checks")', () => {
  const at = (seconds: number) => 1_800_000_000_000 + seconds * 1_000;
  const record = (id: string, status: string, error: string | null, finishedAt: number): RecordRow =>
    ({
      id,
      kind: 'agent',
      status,
      source: 'manual',
      error,
      attempt: 1,
      agent_started_attempt: 1,
      pipeline_execution_id: null,
      started_at: new Date(at(0)),
      finished_at: new Date(finishedAt),
    }) as RecordRow;
  const lostWorker = 'o worker que executava esta execução parou (sem heartbeat por 30 s)';
  const judge = (records: RecordRow[], starts: Array<{ executionId: string; at: number }>) =>
    judgePhase({
      faults: ['redis-restart', 'agents-worker-kill'],
      load: {
        runs: [],
        pipelineRuns: [],
        deliveries: [],
        probes: records.map((row) => row.id),
        refused: 0,
        scheduleTriggers: 0,
        rankingJob: false,
      },
      records,
      // Redis restarted at 10 s (back at 13 s), the agents worker killed at 12 s.
      strikes: [
        { fault: 'redis-restart', target: 'redis', struckAt: at(10), backAt: at(13) },
        { fault: 'agents-worker-kill', target: 'agents-a', struckAt: at(12), backAt: at(12) },
      ],
      watchers: [],
      starts: starts.map((start) => ({ ...start, attempt: 1, pid: 1 })),
      scheduleFirings: 0,
    });

  it('lets the second fault end a run started between the two strikes, not one started after both', () => {
    const verdict = judge(
      [
        record('between', 'error', lostWorker, at(44)),
        record('after', 'error', lostWorker, at(45)),
        record('probe', 'completed', null, at(20)),
      ],
      [
        { executionId: 'between', at: at(11) },
        { executionId: 'after', at: at(12.5) },
        { executionId: 'probe', at: at(14) },
      ],
    );
    expect(verdict.violations).toEqual([
      `agent after had not started when redis-restart + agents-worker-kill struck and ended error: ${lostWorker}`,
    ]);
    expect(verdict.figures).toMatchObject({ accepted: 3, completed: 1, errorWithCause: 2, lost: 0, doubled: 0, recoverMs: 10_000 });
  });

  it('lets the fault end a run whose start the killed worker claimed before its process wrote a line, and no other', () => {
    const unclaimed = { ...record('unclaimed', 'error', lostWorker, at(44)), agent_started_attempt: null } as RecordRow;
    const verdict = judge(
      [
        record('claimed', 'error', lostWorker, at(44)),
        unclaimed,
        record('failed', 'error', 'exit 1', at(44)),
        record('probe', 'completed', null, at(20)),
      ],
      [{ executionId: 'probe', at: at(14) }],
    );
    expect(verdict.violations).toEqual([
      `agent unclaimed had not started when redis-restart + agents-worker-kill struck and ended error: ${lostWorker}`,
      'agent failed had not started when redis-restart + agents-worker-kill struck and ended error: exit 1',
    ]);
  });

  it('counts an agent process started twice for one attempt as a run doubled', () => {
    const verdict = judge(
      [record('probe', 'completed', null, at(20))],
      [
        { executionId: 'probe', at: at(14) },
        { executionId: 'probe', at: at(15) },
      ],
    );
    expect(verdict.figures.doubled).toBe(1);
    expect(verdict.violations).toEqual(['agent process of probe#1 started 2 times']);
  });
});
