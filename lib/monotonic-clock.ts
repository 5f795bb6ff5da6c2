/** Seconds on the monotonic clock (not wall time: never jumps), for measuring how long work takes. */
export function monotonicSeconds(): number {
  return Number(process.hrtime.bigint()) / 1e9;
}
