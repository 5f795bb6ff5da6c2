import { QueueFullError, Semaphore } from '../../lib/pdf/semaphore';

/** A piece of work that runs until `finish` or `fail` is called. */
function pending() {
  let finish!: () => void;
  let fail!: (error: Error) => void;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { done, finish, fail };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('Semaphore', () => {
  it('runs at most `size` at once and the rest in arrival order', async () => {
    const semaphore = new Semaphore(2);
    const works = [pending(), pending(), pending(), pending()];
    const started: number[] = [];
    const results = works.map((work, i) =>
      semaphore.use(async () => {
        started.push(i);
        await work.done;
        return i;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect(semaphore.load).toEqual({ running: 2, waiting: 2 });

    works[1]?.finish();
    await tick();
    expect(started).toEqual([0, 1, 2]);
    expect(semaphore.load).toEqual({ running: 2, waiting: 1 });

    works[0]?.finish();
    works[2]?.finish();
    works[3]?.finish();
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3]);
    expect(semaphore.load).toEqual({ running: 0, waiting: 0 });
  });

  it('frees the place of work that fails, and passes the failure on', async () => {
    const semaphore = new Semaphore(1);
    const failing = pending();
    const first = semaphore.use(() => failing.done);
    const second = semaphore.use(async () => 'second');
    failing.fail(new Error('render failed'));
    await expect(first).rejects.toThrow('render failed');
    await expect(second).resolves.toBe('second');
    expect(semaphore.load).toEqual({ running: 0, waiting: 0 });
  });

  it('refuses work at once when `maxWaiting` already wait, running nothing of it; takes work again once a place frees', async () => {
    const semaphore = new Semaphore(1, 2);
    const works = [pending(), pending(), pending()];
    const results = works.map((work) => semaphore.use(() => work.done));
    let ran = false;
    const refused = semaphore.use(async () => {
      ran = true;
    });
    await expect(refused).rejects.toThrow(QueueFullError);
    await expect(refused).rejects.toThrow('every place is taken and 2 are already waiting');
    expect(ran).toBe(false);
    expect(semaphore.load).toEqual({ running: 1, waiting: 2 });

    works[0]?.finish();
    await tick();
    expect(semaphore.load).toEqual({ running: 1, waiting: 1 });
    const accepted = semaphore.use(async () => 'accepted');
    for (const work of works) work.finish();
    await Promise.all(results);
    await expect(accepted).resolves.toBe('accepted');
    expect(semaphore.load).toEqual({ running: 0, waiting: 0 });
  });

  it('with `maxWaiting` 0 runs `size` at once and refuses the next', async () => {
    const semaphore = new Semaphore(1, 0);
    const work = pending();
    const running = semaphore.use(() => work.done);
    await expect(semaphore.use(async () => 'x')).rejects.toThrow(QueueFullError);
    work.finish();
    await running;
  });

  it.each([0, -1, 1.5])('refuses size %p', (size) => {
    expect(() => new Semaphore(size)).toThrow(RangeError);
  });
});
