/**
 * The ordered delivery of a run's events and terminal lines to the caller (onEvent, onOutput): each
 * waits for the one before. The first failure stops the deliveries after it and is kept: the run then
 * ends with that same error (docs/agent-process.md).
 */
export class DeliveryQueue {
  private tail: Promise<void> = Promise.resolve();
  private failure: { error: unknown } | null = null;

  /** `onFailure`: called at every failed delivery (the run's process group is terminated). */
  constructor(private readonly onFailure: () => void) {}

  enqueue(work: () => void | Promise<void>): void {
    this.tail = this.tail
      .then(async () => {
        if (this.failure === null) await work();
      })
      .catch((error: unknown) => {
        if (this.failure === null) this.failure = { error };
        this.onFailure();
      });
  }

  /** Settles once everything enqueued so far was delivered (or skipped after a failure). */
  drained(): Promise<void> {
    return this.tail;
  }

  /** The first delivery's failure, null when none failed. */
  get failed(): { error: unknown } | null {
    return this.failure;
  }
}
