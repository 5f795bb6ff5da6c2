/**
 * What a client showed of one run's tagged lines (`stand-in:lines tag=<tag>`, each line
 * "<tag> line <i> of <count>"), judged against what the run's record says happened. Pure.
 */

export interface LineFigures {
  /** Lines of the run shown, once each. */
  shown: number;
  /** Lines missing before the last one shown, or after it in a run that completed. */
  lost: number;
  /** Lines shown more than once. */
  doubled: number;
  /** Times a line came after a later one. */
  outOfOrder: number;
  /** Lines after the last one shown that a run ended by a fault never wrote (allowed). */
  neverWritten: number;
}

export function judgeRunLines(lines: readonly string[], tag: string, count: number, status: string): LineFigures {
  const pattern = new RegExp(`^${tag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} line (\\d+) of ${count}$`);
  const seen = new Map<number, number>();
  let outOfOrder = 0;
  let previous = 0;
  for (const line of lines) {
    const match = pattern.exec(line);
    if (!match) continue;
    const index = Number(match[1]);
    if (index < previous) outOfOrder += 1;
    previous = index;
    seen.set(index, (seen.get(index) ?? 0) + 1);
  }
  const last = seen.size === 0 ? 0 : Math.max(...seen.keys());
  let lost = 0;
  for (let index = 1; index < last; index += 1) if (!seen.has(index)) lost += 1;
  const after = count - last;
  const completed = status === 'completed';
  let doubled = 0;
  for (const times of seen.values()) doubled += times - 1;
  return {
    shown: seen.size,
    lost: lost + (completed ? after : 0),
    doubled,
    outOfOrder,
    neverWritten: completed ? 0 : after,
  };
}
