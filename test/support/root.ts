/**
 * Fails the suite, loudly, unless the tests run as root: they prove what a root service does, whose
 * agents (the real CLI among them) run as the pool's users (docs/agent-process.md). Never a skip: a
 * suite that did not run must not look like one that passed. Call it first in the suite's `beforeAll`.
 */
export function requireRoot(suite: string): void {
  if (process.getuid?.() !== 0) {
    throw new Error(
      `${suite}: these tests prove what a root service does (agents run as the pool's users): run them as root (sudo), with the stack's pool (scripts/stack/agent-users.sh)`,
    );
  }
}
