import type { Database } from '../../db';
import { appendOutputPiece, OUTPUT_MAX_CHARS, type Execution } from '../../db/executions-store';
import type { OutputChunk } from '../../lib/live-output';
import type { Logger } from '../../lib/logger';
import { liveOutputLines } from '../../lib/metrics';
import { RecordOutput, recordLineOf } from './record-output';

/** How often output is written to the record, and how often a silent agent is still reported alive. */
export const OUTPUT_FLUSH_MS = 250;
/** After the run, how long output the database refused is tried again (every OUTPUT_RETRY_MS) before it is given up. */
const OUTPUT_STORE_PATIENCE_MS = 60_000;
const OUTPUT_RETRY_MS = 1_000;

export interface ExecutionOutputDeps {
  db: Database;
  logger: Logger;
  /** Publishes one line live (to the requesting client); resolves when it is published or given up. */
  publish: (chunk: OutputChunk) => Promise<void>;
  /** Aborted: what the database refused is not tried again. */
  cancelled: AbortSignal;
}

/** Where a run's terminal lines go: numbered, published live and kept in the record. */
export interface ExecutionOutput {
  /** The number of the last line (the record's `outputSeq` once stored). */
  readonly seq: number;
  /** One terminal line: numbered, counted, added to the record's next write, published. */
  show(chunk: OutputChunk): Promise<void>;
  /** After the run: every line written, trying again what the database refused (for a while). */
  settle(): Promise<void>;
  /** No more timed writes. */
  stop(): void;
}

/**
 * The output sink of one execution's run: each line gets the next `seq` (going on from what an
 * earlier, lost delivery stored), is published live and appended to the record every OUTPUT_FLUSH_MS
 * (RecordOutput; what the database refuses is kept and tried again, its refusals logged at most every 10 s).
 */
export function executionOutput(deps: ExecutionOutputDeps, record: Pick<Execution, 'id' | 'outputSeq'>): ExecutionOutput {
  const { db, logger } = deps;
  let seq = record.outputSeq;
  let lastRefusalLogged = 0;
  const output = new RecordOutput(
    (piece) => appendOutputPiece(db, record.id, piece),
    (error, unsavedChars) => {
      if (Date.now() - lastRefusalLogged < OUTPUT_RETRY_MS * 10) return;
      lastRefusalLogged = Date.now();
      logger.warn({ err: error, executionId: record.id, unsavedChars }, 'execution output not stored yet: kept for the next write');
    },
    OUTPUT_MAX_CHARS,
  );
  const flushTimer = setInterval(() => void output.flush(), OUTPUT_FLUSH_MS);
  return {
    get seq() {
      return seq;
    },
    async show(chunk) {
      seq += 1;
      liveOutputLines.inc();
      output.add(recordLineOf(chunk), seq);
      await deps.publish(chunk);
    },
    // The run goes on while the database refuses its output; what it refused is tried again here.
    async settle() {
      await output.flush();
      const deadline = Date.now() + OUTPUT_STORE_PATIENCE_MS;
      while (!output.settled && Date.now() < deadline && !deps.cancelled.aborted) {
        await new Promise((resolve) => setTimeout(resolve, OUTPUT_RETRY_MS));
        await output.flush();
      }
      if (!output.settled) logger.error({ executionId: record.id, lostChars: output.unsavedLength }, 'execution output not stored');
    },
    stop() {
      clearInterval(flushTimer);
    },
  };
}
