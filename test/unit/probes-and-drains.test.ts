import { Drain } from '../../lib/drain';
import { EventLoopLiveness } from '../../lib/event-loop-liveness';
import { Readiness, READINESS_REUSE_MS, ReadinessProblem, SHUTTING_DOWN_REASON } from '../../lib/readiness';
import { loadConfig } from '../../lib/config';
import { shutdownDeadlineMs } from '../../lib/shutdown';

/** The probes' and drains' parts that need no server (docs/probes-and-drains.md). */

/** Holds the event loop for `ms`: what a stuck process does. */
function blockLoop(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: no timer, no I/O runs meanwhile
  }
}

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('EventLoopLiveness', () => {
  it('is live while the loop turns, stuck once it was held longer than its bound, and says how long', async () => {
    const liveness = new EventLoopLiveness(300, 60_000, 20);
    try {
      await tick(100);
      expect(liveness.state().stuck).toBe(false);
      blockLoop(600);
      // Right after the stall, before any timer ran: the overdue tick says it.
      const now = liveness.state();
      expect(now.stuck).toBe(true);
      expect(now.longestDelayMs).toBeGreaterThanOrEqual(500);
      // Remembered for the window after the timers ran again.
      await tick(100);
      expect(liveness.state()).toMatchObject({ stuck: true });
    } finally {
      liveness.stop();
    }
  });

  it('forgets a stall after two windows', async () => {
    const liveness = new EventLoopLiveness(300, 100, 10);
    try {
      blockLoop(400);
      await tick(20);
      expect(liveness.state().stuck).toBe(true);
      await tick(400);
      expect(liveness.state().stuck).toBe(false);
    } finally {
      liveness.stop();
    }
  });
});

describe('Readiness', () => {
  it('answers ok with each check up, or unavailable naming what is down in words that reveal nothing else', async () => {
    const readiness = new Readiness(50, undefined, 0);
    readiness.add('mysql', async () => undefined);
    expect(await readiness.answer()).toEqual({ status: 'ok', checks: { mysql: 'up' } });
    readiness.add('redis', () => Promise.reject(new Error('connect ECONNREFUSED 10.1.2.3:6379 (user secret-user)')));
    readiness.add('agents-worker', () => Promise.reject(new ReadinessProblem('iniciando')));
    readiness.add('temporal', () => new Promise(() => undefined));
    expect(await readiness.answer()).toEqual({
      status: 'unavailable',
      checks: { mysql: 'up', redis: 'down', 'agents-worker': 'down', temporal: 'down' },
      reasons: ['redis: não respondeu', 'agents-worker: iniciando', 'temporal: sem resposta em 50 ms'],
    });
  });

  it('answers every probe of one round from that round: a flood of probes is not a flood of queries', async () => {
    expect(READINESS_REUSE_MS).toBe(1_000);
    const readiness = new Readiness(50, undefined, 200);
    let asked = 0;
    readiness.add('mysql', async () => void (asked += 1));
    const answers = await Promise.all(Array.from({ length: 50 }, () => readiness.answer()));
    expect(answers.every((answer) => answer.status === 'ok')).toBe(true);
    expect(asked).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 250));
    await readiness.answer();
    expect(asked).toBe(2);
  });

  it('is unavailable from the shutdown on, without asking its checks', async () => {
    const readiness = new Readiness(50, undefined, 0);
    let asked = 0;
    readiness.add('mysql', async () => void (asked += 1));
    readiness.shutDown();
    expect(await readiness.answer()).toEqual({ status: 'unavailable', checks: {}, reasons: [SHUTTING_DOWN_REASON] });
    expect(asked).toBe(0);
  });
});

describe('Drain', () => {
  it('ends after the quiet time when nothing runs, and at once with no quiet time', async () => {
    expect(await new Drain().settle({ timeoutMs: 60_000, quietMs: 0 })).toMatchObject({ stopped: 0 });
    const drain = new Drain();
    const outcome = await drain.settle({ timeoutMs: 60_000, quietMs: 200, pollMs: 10 });
    expect(outcome.stopped).toBe(0);
    expect(outcome.ms).toBeGreaterThanOrEqual(200);
  });

  it('waits for a call that arrives just after the drain started (a task dispatched before the worker stopped taking them)', async () => {
    const drain = new Drain();
    const work = drain.track((ms: number) => tick(ms));
    const events: string[] = [];
    const settled = drain.settle({ timeoutMs: 10_000, quietMs: 300, pollMs: 10 }).then((outcome) => {
      events.push('drained');
      return outcome;
    });
    await tick(50);
    await work(100).then(() => events.push('late run done'));
    expect((await settled).stopped).toBe(0);
    expect(events).toEqual(['late run done', 'drained']);
  });

  it('waits for what runs, then for a quiet time in which a follow-up may still come', async () => {
    const drain = new Drain();
    const work = drain.track((ms: number) => tick(ms));
    const events: string[] = [];
    const first = work(100).then(() => events.push('run done'));
    const settled = drain.settle({ timeoutMs: 10_000, quietMs: 300, pollMs: 10 }).then((outcome) => {
      events.push('drained');
      return outcome;
    });
    await first;
    // A push that comes after the run ended, within the quiet time, is waited for too.
    await tick(50);
    await work(100).then(() => events.push('push done'));
    const outcome = await settled;
    expect(events).toEqual(['run done', 'push done', 'drained']);
    expect(outcome.stopped).toBe(0);
    expect(drain.stopSignal.aborted).toBe(false);
  });

  it('stops what still runs at its timeout, through the signal', async () => {
    const drain = new Drain();
    const endless = drain.track(
      (signal: AbortSignal) => new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('stopped'))),
    );
    const running = endless(drain.stopSignal);
    expect(drain.inFlight).toBe(1);
    expect(await drain.settle({ timeoutMs: 100, quietMs: 1_000, pollMs: 10 })).toMatchObject({ stopped: 1 });
    expect(await running).toBe('stopped');
    expect(drain.inFlight).toBe(0);
  });

  it('ends at once, stopping what runs, when cut short', async () => {
    const drain = new Drain();
    const endless = drain.track((signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve())));
    const running = endless(drain.stopSignal);
    const cutShort = new AbortController();
    const settled = drain.settle({ timeoutMs: 600_000, quietMs: 1_000, pollMs: 10, cutShort: cutShort.signal });
    await tick(50);
    expect(drain.stopSignal.aborted).toBe(false);
    cutShort.abort();
    expect(await settled).toMatchObject({ stopped: 1 });
    await running;
  });
});

describe('shutdownDeadlineMs', () => {
  const shutdown = loadConfig({ DRAIN_DELAY_MS: '5000', AGENT_DRAIN_TIMEOUT_MS: '600000', SHUTDOWN_TIMEOUT_MS: '15000' }).shutdown;

  it('adds the drains of the roles a process runs to SHUTDOWN_TIMEOUT_MS', () => {
    expect(shutdownDeadlineMs(shutdown, ['api'], 2_000)).toBe(20_000);
    expect(shutdownDeadlineMs(shutdown, ['ranking-worker'], 2_000)).toBe(15_000);
    // The agents worker also writes its host's state twice, each write bounded by DEPENDENCY_TIMEOUT_MS.
    expect(shutdownDeadlineMs(shutdown, ['agents-worker'], 2_000)).toBe(619_000);
    expect(shutdownDeadlineMs(shutdown, ['api', 'ranking-worker', 'agents-worker'], 2_000)).toBe(624_000);
  });
});
