import { durationText, runTimeLimitMs, timedOutError } from '../../domain/run-limits';

describe('run time limits (domain/run-limits.ts)', () => {
  it("takes the agent's config.timeout, else the service's default", () => {
    expect(runTimeLimitMs(60_000, 1_800_000)).toBe(60_000);
    expect(runTimeLimitMs(null, 1_800_000)).toBe(1_800_000);
    expect(runTimeLimitMs(undefined, 1_800_000)).toBe(1_800_000);
  });

  it.each([
    [1_000, '1 s'],
    [1_800_000, '30 min'],
    [5_400_000, '1 h 30 min'],
    [125_000, '2 min 5 s'],
    [86_400_000, '24 h'],
    [3_601_000, '1 h 1 s'],
    [1_499, '1 s'],
  ])('writes %i ms as "%s"', (ms, text) => {
    expect(durationText(ms)).toBe(text);
  });

  it('says in the panel language that the run timed out, and after how long', () => {
    expect(timedOutError(1_800_000)).toBe('a execução excedeu o tempo limite de 30 min e foi encerrada');
  });
});
