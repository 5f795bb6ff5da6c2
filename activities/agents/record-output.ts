import type { OutputPiece } from '../../db/executions-store';
import type { OutputChunk } from '../../lib/live-output';

/**
 * The record's text of one live line (what a client catching up reads, and what the report shows):
 * one line per chunk, marked as the panel's terminal marks it (`▸ ` a tool, `── Turno N ──` a turn,
 * `[stderr] ` standard error); the model's text and system lines as they are.
 */
export function recordLineOf(chunk: OutputChunk): string {
  const prefix = { tool: '▸ ', stderr: '[stderr] ' }[chunk.type as string] ?? '';
  const text = chunk.type === 'turn' ? `── ${chunk.content} ──` : `${prefix}${chunk.content}`;
  return `${text}\n`;
}

/** Stores one piece; true when stored (now or before), false when the record takes no more output. */
export type StoreOutputPiece = (piece: OutputPiece) => Promise<boolean>;

/**
 * The record's copy of an execution's live output. Chunks are gathered between flushes and stored as
 * one piece, in order; a piece the database refuses (down, connection lost, an error) is kept and
 * tried again first at the next flush, so an outage during the run loses nothing. Each piece is
 * stored exactly once even when an answer is lost (db/executions-store.ts#appendOutputPiece).
 */
export class RecordOutput {
  private pending: OutputPiece | null = null;
  private readonly unsaved: OutputPiece[] = [];
  private unsavedChars = 0;
  private writing: Promise<void> = Promise.resolve();
  private closed = false;

  /**
   * @param maxKeptChars text kept in memory while the database refuses it; past it, later chunks keep
   *   their place in the sequence but not their text (the record caps its output lower anyway).
   */
  constructor(
    private readonly store: StoreOutputPiece,
    private readonly onRefused: (error: unknown, unsavedChars: number) => void,
    private readonly maxKeptChars: number,
  ) {}

  /** Chunk `seq` (1, 2, ... with no gaps). */
  add(text: string, seq: number): void {
    if (this.closed) return;
    const kept = this.unsavedChars + (this.pending?.text.length ?? 0) < this.maxKeptChars ? text : '';
    if (this.pending === null) this.pending = { text: kept, fromSeq: seq, toSeq: seq };
    else this.pending = { ...this.pending, text: this.pending.text + kept, toSeq: seq };
  }

  /** Stores what was added since the last flush, after anything still unsaved. Never rejects. */
  flush(): Promise<void> {
    if (this.pending !== null) {
      this.unsaved.push(this.pending);
      this.unsavedChars += this.pending.text.length;
      this.pending = null;
    }
    this.writing = this.writing.then(() => this.storeUnsaved());
    return this.writing;
  }

  /** Characters not stored yet. */
  get unsavedLength(): number {
    return this.unsavedChars + (this.pending?.text.length ?? 0);
  }

  /** Whether everything added is stored (or the record takes no more). */
  get settled(): boolean {
    return this.closed || (this.pending === null && this.unsaved.length === 0);
  }

  private close(): void {
    this.closed = true;
    this.pending = null;
    this.unsaved.length = 0;
    this.unsavedChars = 0;
  }

  private async storeUnsaved(): Promise<void> {
    while (!this.closed && this.unsaved.length > 0) {
      const piece = this.unsaved[0] as OutputPiece;
      try {
        if (!(await this.store(piece))) {
          this.close(); // finished: nothing more can be appended
          return;
        }
      } catch (error) {
        this.onRefused(error, this.unsavedChars);
        return; // kept, tried again at the next flush
      }
      this.unsaved.shift();
      this.unsavedChars -= piece.text.length;
    }
  }
}
