import { readFileSync } from 'node:fs';

/** Running: the process exists and is not a zombie (one whose parent died waits for init to reap it). */
export function processRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}
