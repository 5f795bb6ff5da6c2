import { Random } from '../sample-data/random';

/**
 * The fault suite's schedule (docs/reliability.md): which faults, in which order, alone or two at
 * once, and when in each phase's load they strike. Everything comes from one seed, printed at the
 * start, so a failing schedule is replayed with `npm run test:faults -- --seed <seed>`. Pure.
 */

export const FAULTS = [
  'agents-worker-kill',
  'second-host-kill',
  'ranking-worker-kill',
  'api-kill',
  'temporal-restart',
  'mariadb-restart',
  'redis-restart',
  'cli-kill',
  'disk-full',
] as const;

export type Fault = (typeof FAULTS)[number];

export interface Phase {
  /** One fault, or two struck at once. */
  faults: Fault[];
  /** When each fault strikes after the phase's load started, in ms (same order as `faults`). */
  delaysMs: number[];
}

export interface ScheduleOptions {
  seed: number;
  /** Pairs of faults struck at once, after every fault alone. */
  pairs: number;
  /** The window of the load in which a fault strikes, in ms after the load started. */
  strikeWindowMs: [number, number];
}

export function faultSchedule(options: ScheduleOptions): Phase[] {
  // mulberry32 (the sample data's generator): the same seed gives the same schedule everywhere.
  const generator = new Random(options.seed);
  const random = () => generator.next();
  const [from, to] = options.strikeWindowMs;
  const delay = () => Math.round(from + random() * (to - from));
  const shuffled = [...FAULTS];
  for (let i = shuffled.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  const phases: Phase[] = shuffled.map((fault) => ({ faults: [fault], delaysMs: [delay()] }));
  for (let pair = 0; pair < options.pairs; pair += 1) {
    const first = FAULTS[Math.floor(random() * FAULTS.length)]!;
    const others = FAULTS.filter((fault) => fault !== first);
    const second = others[Math.floor(random() * others.length)]!;
    phases.push({ faults: [first, second], delaysMs: [delay(), delay()] });
  }
  return phases;
}
