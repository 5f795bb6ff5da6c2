import type { OutputPiece } from '../../db/executions-store';
import { RecordOutput } from '../../activities/agents/record-output';

/** A record in memory that follows the store's contract: pieces in order, refused while `down`. */
function memoryRecord() {
  const state = { text: '', seq: 0, down: false, finished: false, refusals: 0 };
  const store = async (piece: OutputPiece): Promise<boolean> => {
    if (state.down) throw new Error('connection refused');
    if (state.finished) return false;
    if (piece.fromSeq !== state.seq + 1) throw new Error(`piece ${piece.fromSeq} after ${state.seq}`);
    state.text += piece.text;
    state.seq = piece.toSeq;
    return true;
  };
  return { state, store };
}

describe('RecordOutput', () => {
  it('stores what was added since the last flush as one piece, in order', async () => {
    const { state, store } = memoryRecord();
    const output = new RecordOutput(store, () => undefined, 1_000);
    output.add('a\n', 1);
    output.add('b\n', 2);
    await output.flush();
    output.add('c\n', 3);
    await output.flush();
    expect(state).toMatchObject({ text: 'a\nb\nc\n', seq: 3 });
    expect(output.settled).toBe(true);
  });

  it('keeps refused pieces and stores them first, in order, once the store accepts again', async () => {
    const { state, store } = memoryRecord();
    const refusals: number[] = [];
    const output = new RecordOutput(store, (_error, unsaved) => refusals.push(unsaved), 1_000);
    output.add('a\n', 1);
    await output.flush();
    state.down = true;
    output.add('b\n', 2);
    await output.flush();
    output.add('c\n', 3);
    await output.flush();
    expect(refusals).toEqual([2, 4]);
    expect(output.settled).toBe(false);
    expect(output.unsavedLength).toBe(4);
    state.down = false;
    output.add('d\n', 4);
    await output.flush();
    expect(state).toMatchObject({ text: 'a\nb\nc\nd\n', seq: 4 });
    expect(output.settled).toBe(true);
  });

  it('while refused keeps at most maxKeptChars of text; later chunks keep only their place', async () => {
    const { state, store } = memoryRecord();
    const output = new RecordOutput(store, () => undefined, 4);
    state.down = true;
    for (const [seq, text] of [
      [1, 'ab'],
      [2, 'cd'],
      [3, 'ef'],
      [4, 'gh'],
    ] as const) {
      output.add(text, seq);
      await output.flush();
    }
    state.down = false;
    await output.flush();
    expect(state).toMatchObject({ text: 'abcd', seq: 4 });
  });

  it('stops once the record takes no more output', async () => {
    const { state, store } = memoryRecord();
    const output = new RecordOutput(store, () => undefined, 1_000);
    state.finished = true;
    output.add('late\n', 1);
    await output.flush();
    output.add('later\n', 2);
    await output.flush();
    expect(output.settled).toBe(true);
    expect(output.unsavedLength).toBe(0);
    expect(state.text).toBe('');
  });
});
