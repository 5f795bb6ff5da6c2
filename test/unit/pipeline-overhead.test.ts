import { stepOverheadsSeconds } from '../../domain/pipeline-overhead';

const at = (seconds: number) => new Date(Date.UTC(2026, 10, 26, 12, 0, 0) + seconds * 1000);
const step = (stepIndex: number, startedAt: number | null, finishedAt: number | null) => ({
  stepIndex,
  startedAt: startedAt === null ? null : at(startedAt),
  finishedAt: finishedAt === null ? null : at(finishedAt),
});
const never = () => false;

describe('stepOverheadsSeconds', () => {
  it("splits a run's wall time less its steps' own time into one share per step, as bench:pipeline defines it", () => {
    // Run 0 → 20 s; steps 1-5 and 6.5-15; the run ends at 20.
    const shares = stepOverheadsSeconds({ createdAt: at(0), finishedAt: at(20) }, [step(0, 1, 5), step(1, 6.5, 15)], never);
    expect(shares).toEqual([1, 1.5 + 5]);
    // Their sum is the bench's overhead: wall 20 − own (4 + 8.5).
    expect(shares.reduce((sum, share) => sum + share, 0)).toBeCloseTo(20 - 12.5, 9);
  });

  it("leaves out the gap before a step that waited for an approval, keeping the last step's tail", () => {
    const run = { createdAt: at(0), finishedAt: at(100) };
    expect(stepOverheadsSeconds(run, [step(0, 1, 5), step(1, 90, 99), step(2, 99.5, 99.8)], (index) => index === 1)).toEqual([
      1,
      0.5 + 0.2,
    ]);
    expect(stepOverheadsSeconds(run, [step(0, 1, 5), step(1, 90, 99)], (index) => index === 1)).toEqual([1, 1]);
  });

  it('skips a step that never started or ended, and the gap after it', () => {
    const shares = stepOverheadsSeconds(
      { createdAt: at(0), finishedAt: at(30) },
      [step(0, 1, null), step(1, 10, 20), step(2, 21, 29)],
      never,
    );
    expect(shares).toEqual([1 + 1]);
  });

  it('never reports a negative share (clocks of two hosts a little apart)', () => {
    expect(stepOverheadsSeconds({ createdAt: at(2), finishedAt: at(9) }, [step(0, 1, 10)], never)).toEqual([0]);
  });
});
