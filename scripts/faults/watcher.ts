import WebSocket from 'ws';
import { recordLineOf } from '../../activities/agents/record-output';
import type { OutputChunk } from '../../lib/live-output';
import { FINAL_EXECUTION_MESSAGE_TYPES } from '../../lib/live-output';

/**
 * A client of the fault suite: one WebSocket per client id, opened again one second after it closes
 * (as the panel's terminal does), that follows the catch-up of docs/websocket.md for the runs it
 * started: the live lines in `seq` order; on a jump in `seq`, on a final message whose `lastSeq` is
 * ahead, and after every reconnection, the record's output and its `outputSeq`, then the live lines
 * after it. What it shows per run is what a person watching would have seen, and the suite checks it
 * line by line.
 */

/** What a client shows for one run. */
export interface RunView {
  executionId: string;
  /** The lines shown, as the record writes them ("<tag> line 3 of 40"). */
  lines: string[];
  /** The `seq` of the last line shown. */
  shownSeq: number;
  /** Live lines not shown yet, by `seq` (after a jump). */
  pending: Map<number, string[]>;
  /** The record was read final and its whole output shown. */
  final: boolean;
  /** Live messages of this run received twice for one `seq` (the live stream's own duplicates; the catch-up drops them). */
  liveRepeats: number;
  /** Catch-ups made (record reads). */
  catchUps: number;
  /** Live messages of this run received on the socket (each `seq` once). */
  liveChunks: number;
}

export interface Watcher {
  clientId: string;
  /** Starts following a run this client started (its id from the 202 answer). */
  follow(executionId: string): void;
  views(): RunView[];
  /** Connections the service accepted (its `connected` message); 0 means every line came from catch-ups. */
  connections(): number;
  /** Reconnections after the first connection. */
  reconnections(): number;
  /** Catches up every run not yet final (the record must be final by then). */
  settle(): Promise<void>;
  close(): void;
}

export interface WatcherOptions {
  wsUrl: () => string;
  /** GET /api/executions/history/{id}: the record's status, output and outputSeq; throws when the API does not answer. */
  readRecord: (executionId: string) => Promise<{ status: string; output: string | null; outputSeq: number }>;
}

const FINAL_STATUSES = new Set(['completed', 'error', 'canceled', 'rejected']);

export function startWatcher(clientId: string, options: WatcherOptions): Watcher {
  const views = new Map<string, RunView>();
  /** Live lines of a run whose 202 answer has not arrived yet. */
  const early = new Map<string, Array<{ seq: number; lines: string[] }>>();
  const seenSeqs = new Map<string, Set<number>>();
  let socket: WebSocket | null = null;
  let closed = false;
  let connections = 0;
  const catchingUp = new Map<string, Promise<void>>();

  const linesOf = (data: OutputChunk): string[] => recordLineOf(data).replace(/\n$/, '').split('\n');

  const applyPending = (view: RunView) => {
    for (let next = view.pending.get(view.shownSeq + 1); next !== undefined; next = view.pending.get(view.shownSeq + 1)) {
      view.pending.delete(view.shownSeq + 1);
      view.lines.push(...next);
      view.shownSeq += 1;
    }
    for (const seq of view.pending.keys()) if (seq <= view.shownSeq) view.pending.delete(seq);
  };

  /** Steps 2 and 3 of the catch-up: the record's output replaces what is shown, then the later live lines. */
  const catchUp = (view: RunView): Promise<void> => {
    const running = catchingUp.get(view.executionId);
    if (running) return running;
    const done = (async () => {
      for (let attempt = 0; ; attempt += 1) {
        try {
          const record = await options.readRecord(view.executionId);
          view.catchUps += 1;
          const text = record.output ?? '';
          view.lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
          view.shownSeq = record.outputSeq;
          applyPending(view);
          if (FINAL_STATUSES.has(record.status)) view.final = true;
          return;
        } catch {
          // The API is down (a fault): the panel would try again; so does this client, until closed.
          if (closed) return;
          await new Promise((resolve) => setTimeout(resolve, Math.min(5_000, 250 * 2 ** Math.min(attempt, 4))));
        }
      }
    })().finally(() => catchingUp.delete(view.executionId));
    catchingUp.set(view.executionId, done);
    return done;
  };

  const onOutput = (executionId: string, seq: number, data: OutputChunk) => {
    const seen = seenSeqs.get(executionId) ?? new Set<number>();
    seenSeqs.set(executionId, seen);
    const repeated = seen.has(seq);
    seen.add(seq);
    const view = views.get(executionId);
    if (!view) {
      const kept = early.get(executionId) ?? [];
      kept.push({ seq, lines: linesOf(data) });
      early.set(executionId, kept);
      return;
    }
    if (repeated) view.liveRepeats += 1;
    else view.liveChunks += 1;
    if (seq <= view.shownSeq) return;
    view.pending.set(seq, linesOf(data));
    applyPending(view);
    if (view.pending.size > 0) void catchUp(view);
  };

  const onFinal = (executionId: string, lastSeq: number) => {
    const view = views.get(executionId);
    if (!view) return;
    // A final message says how many lines there were: fewer shown means lines were lost on the way.
    if (lastSeq > view.shownSeq || view.pending.size > 0) void catchUp(view);
    else view.final = true;
  };

  const connect = () => {
    if (closed) return;
    const url = new URL(options.wsUrl());
    url.searchParams.set('clientId', clientId);
    const opened = new WebSocket(url);
    socket = opened;
    opened.on('message', (raw) => {
      let message: any;
      try {
        message = JSON.parse(raw.toString());
      } catch {
        return;
      }
      if (message.type === 'connected') {
        connections += 1;
        // After a reconnection anything may have been missed: catch up every run still open.
        if (connections > 1) for (const view of views.values()) if (!view.final) void catchUp(view);
        return;
      }
      if (message.type === 'execution_output' && typeof message.seq === 'number') onOutput(message.executionId, message.seq, message.data);
      else if (FINAL_EXECUTION_MESSAGE_TYPES.includes(message.type)) onFinal(message.executionId, Number(message.lastSeq ?? 0));
    });
    opened.on('error', () => undefined);
    opened.on('close', () => {
      if (socket === opened) socket = null;
      if (!closed) setTimeout(connect, 1_000);
    });
  };
  connect();

  return {
    clientId,
    follow(executionId) {
      if (views.has(executionId)) return;
      const view: RunView = {
        executionId,
        lines: [],
        shownSeq: 0,
        pending: new Map(),
        final: false,
        liveRepeats: 0,
        catchUps: 0,
        liveChunks: 0,
      };
      views.set(executionId, view);
      for (const { seq, lines } of early.get(executionId) ?? []) {
        view.liveChunks += 1;
        if (seq > view.shownSeq) view.pending.set(seq, lines);
      }
      early.delete(executionId);
      applyPending(view);
      if (view.pending.size > 0) void catchUp(view);
    },
    views: () => [...views.values()],
    connections: () => connections,
    reconnections: () => Math.max(0, connections - 1),
    async settle() {
      for (const view of views.values()) if (!view.final) await catchUp(view);
    },
    close() {
      closed = true;
      socket?.close();
    },
  };
}
