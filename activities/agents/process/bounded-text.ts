/** Bounded texts of a run's output: the beginning of the assistant's text, the end of standard error. */

/** Keeps the beginning of a growing text, counting what did not fit. */
export class HeadText {
  private kept = '';
  private dropped = 0;
  constructor(readonly limit: number) {}

  append(text: string): void {
    const room = this.limit - this.kept.length;
    if (room > 0) this.kept += text.slice(0, room);
    this.dropped += Math.max(0, text.length - Math.max(room, 0));
  }

  get truncated(): boolean {
    return this.dropped > 0;
  }

  text(): string {
    return this.truncated ? `${this.kept}\n[output cut: ${this.dropped} more characters not kept]` : this.kept;
  }
}

/** Keeps the end of a growing text. */
export class TailText {
  private kept = '';
  constructor(readonly limit: number) {}

  append(text: string): void {
    this.kept += text;
    if (this.kept.length > 2 * this.limit) this.kept = this.kept.slice(-this.limit);
  }

  text(): string {
    return this.kept.slice(-this.limit);
  }
}

/** The first `limit` characters of a text, with a note of what was cut. */
export function cut(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}\n[cut: ${text.length - limit} more characters not kept]`;
}
