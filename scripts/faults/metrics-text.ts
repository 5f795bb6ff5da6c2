/**
 * Reading a process's `/metrics` (the Prometheus text format) for the suite's figures: a sample's
 * value summed over label sets, and a histogram's quantile as Prometheus's `histogram_quantile`
 * computes it (linear inside the bucket). Pure.
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(LABEL))
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_, char: string) => (char === 'n' ? '\n' : char));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

type LabelFilter = (labels: Record<string, string>) => boolean;

/** The sum of a metric's samples whose labels pass `filter`; null when it has none. */
export function total(samples: readonly Sample[], name: string, filter: LabelFilter = () => true): number | null {
  const matching = samples.filter((sample) => sample.name === name && filter(sample.labels));
  return matching.length === 0 ? null : matching.reduce((sum, sample) => sum + sample.value, 0);
}

/** A histogram's cumulative buckets (`le` → count), summed over the label sets that pass `filter`. */
export function buckets(samples: readonly Sample[], histogram: string, filter: LabelFilter = () => true): Map<number, number> {
  const counts = new Map<number, number>();
  for (const sample of samples) {
    if (sample.name !== `${histogram}_bucket` || !filter(sample.labels)) continue;
    const le = sample.labels.le === '+Inf' ? Infinity : Number(sample.labels.le);
    counts.set(le, (counts.get(le) ?? 0) + sample.value);
  }
  return counts;
}

/** What happened between two readings of a histogram: the later buckets minus the earlier ones. */
export function bucketsBetween(before: Map<number, number>, after: Map<number, number>): Map<number, number> {
  return new Map([...after].map(([le, count]) => [le, count - (before.get(le) ?? 0)]));
}

/** The `q` quantile of cumulative buckets, as `histogram_quantile` answers it; null without observations. */
export function quantile(q: number, cumulative: Map<number, number>): number | null {
  const sorted = [...cumulative].sort(([a], [b]) => a - b);
  const count = sorted.at(-1)?.[1] ?? 0;
  if (count === 0) return null;
  const rank = q * count;
  let lowerBound = 0;
  let lowerCount = 0;
  for (const [le, cumulativeCount] of sorted) {
    if (cumulativeCount >= rank) {
      // Above the last finite bucket Prometheus answers that bucket's upper bound.
      if (le === Infinity) return lowerBound;
      const inBucket = cumulativeCount - lowerCount;
      return inBucket === 0 ? le : lowerBound + ((le - lowerBound) * (rank - lowerCount)) / inBucket;
    }
    lowerBound = le;
    lowerCount = cumulativeCount;
  }
  return lowerBound;
}
