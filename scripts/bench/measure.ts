import fs from 'node:fs';
import http from 'node:http';

/** Percentile (nearest rank) of already sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Samples a process's resident memory from /proc until stopped; returns the peak in MiB. */
export function sampleRss(pid: number, everyMs = 100): { stop: () => number } {
  let peakKb = 0;
  const read = () => {
    try {
      const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      const rss = /VmRSS:\s+(\d+) kB/.exec(status);
      peakKb = Math.max(peakKb, Number(hwm?.[1] ?? 0), Number(rss?.[1] ?? 0));
    } catch {
      // the process has exited: keep the last reading
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return {
    stop: () => {
      read();
      clearInterval(timer);
      return peakKb / 1024;
    },
  };
}

export interface LoadResult {
  requests: number;
  errors: number;
  p50: number;
  p99: number;
  perSecond: number;
}

/** Runs `requests` calls with `concurrency` callers in flight; latencies in milliseconds. */
export async function runLoad(concurrency: number, requests: number, call: (i: number) => Promise<boolean>): Promise<LoadResult> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = process.hrtime.bigint();
  const caller = async () => {
    while (next < requests) {
      const i = next;
      next += 1;
      const t0 = process.hrtime.bigint();
      const ok = await call(i).catch(() => false);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (!ok) errors += 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, caller));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return { requests, errors, p50: percentile(latencies, 50), p99: percentile(latencies, 99), perSecond: requests / seconds };
}

export const fmt = (value: number, digits = 1) => value.toFixed(digits).padStart(8);

/** Memory of a process alone (RSS) and with all its descendants (e.g. the API and its Chromium), in MiB. */
export function processTreeMemory(pid: number): { processRssMb: number; treePssMb: number } {
  const readKb = (file: string, field: string) =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(file, 'utf8'))?.[1] ?? 0);
  let treePssKb = 0;
  const visit = (current: number) => {
    try {
      // PSS, not RSS: Chromium's processes share most of their pages, and RSS would count them once per process.
      treePssKb += readKb(`/proc/${current}/smaps_rollup`, 'Pss');
      for (const task of fs.readdirSync(`/proc/${current}/task`)) {
        const children = fs.readFileSync(`/proc/${current}/task/${task}/children`, 'utf8').trim();
        for (const child of children ? children.split(/\s+/) : []) visit(Number(child));
      }
    } catch {
      // the process exited while being read
    }
  };
  visit(pid);
  let processRssKb = 0;
  try {
    processRssKb = readKb(`/proc/${pid}/status`, 'VmRSS');
  } catch {
    // exited
  }
  return { processRssMb: processRssKb / 1024, treePssMb: treePssKb / 1024 };
}

/**
 * Keep-alive connections for the load clients. node:http, not fetch: the client shares the 2 cores
 * with the services it measures, and fetch spends several times more CPU per large body.
 */
const loadAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** GETs `url` and reads the whole body as sent (not decompressed); its status, content type and size. */
export function httpGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; contentType: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: loadAgent, headers }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
      });
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, contentType: String(response.headers['content-type'] ?? ''), bytes }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

/** Whether a GET of `url` answered 2xx with a body of `expectedType`. */
export async function getOk(url: string, expectedType = 'application/json', headers: Record<string, string> = {}): Promise<boolean> {
  const { status, contentType, bytes } = await httpGet(url, headers);
  return status >= 200 && status < 300 && contentType.startsWith(expectedType) && bytes > 0;
}
