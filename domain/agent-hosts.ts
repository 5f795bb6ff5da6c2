/**
 * Which agents host a run goes to (docs/multi-host.md). Pure: the registry, the load and the clock
 * are read by db/execution-hosts.ts.
 */

export interface AgentHostEntry {
  name: string;
  /** Normalised absolute roots of working directories this host holds. */
  roots: readonly string[];
  /** Seen within AGENT_HOST_LIVE_MS. */
  live: boolean;
  /** Its worker drains (SIGTERM): a new run goes elsewhere when it can. */
  draining: boolean;
  /** Its records `running` now. */
  running: number;
}

/** A host that has not marked itself alive for this long takes no new run. */
export const AGENT_HOST_LIVE_MS = 60_000;
/** How often an agents worker marks its host alive. */
export const AGENT_HOST_BEAT_MS = 10_000;

/** The length of the longest of `roots` that holds `directory` (the root itself or below it); -1: none. */
export function deepestRootHolding(directory: string, roots: readonly string[]): number {
  let deepest = -1;
  for (const root of roots) {
    const holds = directory === root || directory.startsWith(root.endsWith('/') ? root : `${root}/`);
    if (holds && root.length > deepest) deepest = root.length;
  }
  return deepest;
}

export function holds(host: Pick<AgentHostEntry, 'roots'>, directory: string): boolean {
  return deepestRootHolding(directory, host.roots) >= 0;
}

/**
 * A new run's host: among the live hosts holding its directory, one that is not draining (a draining
 * one only when no other holds it: the run then waits for it, or its next start, rather than fail),
 * then the one with the deepest root holding it (a host given `/srv/p/team` beats one given `/srv/p`),
 * then the least busy, then by name (the same answer on every worker). Null: no live host holds it.
 */
export function chooseHost(directory: string, hosts: readonly AgentHostEntry[]): string | null {
  const candidates = hosts
    .filter((host) => host.live)
    .map((host) => ({ host, depth: deepestRootHolding(directory, host.roots) }))
    .filter((candidate) => candidate.depth >= 0)
    .sort(
      (a, b) =>
        Number(a.host.draining) - Number(b.host.draining) ||
        b.depth - a.depth ||
        a.host.running - b.host.running ||
        (a.host.name < b.host.name ? -1 : a.host.name > b.host.name ? 1 : 0),
    );
  return candidates[0]?.host.name ?? null;
}
