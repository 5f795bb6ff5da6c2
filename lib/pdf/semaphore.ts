/** The work was refused: every place is taken and the waiting line is at its bound. */
export class QueueFullError extends Error {
  override name = 'QueueFullError';
  constructor(readonly maxWaiting: number) {
    super(`every place is taken and ${maxWaiting} are already waiting`);
  }
}

/**
 * At most `size` pieces of work at once; the others wait in arrival order, at most `maxWaiting` of
 * them: one more is refused at once (QueueFullError) rather than queued without end.
 */
export class Semaphore {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly size: number,
    readonly maxWaiting: number = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`semaphore size must be a positive integer, got ${size}`);
    if (!(maxWaiting >= 0)) throw new RangeError(`semaphore waiting bound must be 0 or more, got ${maxWaiting}`);
  }

  async use<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Work running now and work waiting for a place. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private acquire(): Promise<void> {
    if (this.running < this.size) {
      this.running += 1;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting) return Promise.reject(new QueueFullError(this.maxWaiting));
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the place straight to the next in line, so a newcomer cannot overtake it. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running -= 1;
  }
}
