import { chooseHost, deepestRootHolding, type AgentHostEntry } from '../../domain/agent-hosts';
import { loadConfig } from '../../lib/config';

/** Which agents host a run goes to (domain/agent-hosts.ts; docs/multi-host.md). */

const host = (name: string, roots: string[], extra: Partial<AgentHostEntry> = {}): AgentHostEntry => ({
  name,
  roots,
  live: true,
  draining: false,
  running: 0,
  ...extra,
});

describe('deepestRootHolding', () => {
  it('is the length of the longest root that is the directory or lies above it; -1 for none', () => {
    expect(deepestRootHolding('/srv/p/a/x', ['/srv/p', '/srv/p/a'])).toBe('/srv/p/a'.length);
    expect(deepestRootHolding('/srv/p', ['/srv/p'])).toBe('/srv/p'.length);
    // A sibling whose name starts like the root is not under it.
    expect(deepestRootHolding('/srv/projects/x', ['/srv/p'])).toBe(-1);
    expect(deepestRootHolding('/srv/x', ['/'])).toBe(1);
  });
});

describe('chooseHost', () => {
  it('picks the live host whose root holds the directory', () => {
    const hosts = [host('a', ['/srv/a']), host('b', ['/srv/b'])];
    expect(chooseHost('/srv/b/projeto', hosts)).toBe('b');
    expect(chooseHost('/srv/a/projeto', hosts)).toBe('a');
    expect(chooseHost('/srv/c/projeto', hosts)).toBeNull();
  });

  it('never picks a host that is not live', () => {
    expect(chooseHost('/srv/b/x', [host('b', ['/srv/b'], { live: false })])).toBeNull();
    expect(chooseHost('/srv/b/x', [host('b', ['/srv/b'], { live: false }), host('all', ['/srv'])])).toBe('all');
  });

  it('leaves a draining host for another live one holding the directory, and takes it when none does', () => {
    const draining = host('a', ['/srv/p/team'], { draining: true });
    // Before depth and load: the draining host's runs are ending, a new one would hold its drain open.
    expect(chooseHost('/srv/p/team/x', [draining, host('b', ['/srv/p'], { running: 5 })])).toBe('b');
    expect(chooseHost('/srv/p/team/x', [draining, host('b', ['/srv/p'], { live: false })])).toBe('a');
    expect(chooseHost('/srv/p/team/x', [draining])).toBe('a');
  });

  it('prefers the deepest root, then the least busy host, then the first name', () => {
    expect(chooseHost('/srv/b/x', [host('all', ['/srv']), host('b', ['/srv/b'], { running: 9 })])).toBe('b');
    expect(chooseHost('/srv/x', [host('one', ['/srv'], { running: 3 }), host('two', ['/srv'], { running: 1 })])).toBe('two');
    expect(chooseHost('/srv/x', [host('zeta', ['/srv']), host('alfa', ['/srv'])])).toBe('alfa');
  });
});

describe('AGENT_HOST', () => {
  it('defaults to a name made of the machine host name; a name that cannot be a queue name is refused', () => {
    expect(loadConfig({}).orchestration.host).toMatch(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/);
    expect(loadConfig({ AGENT_HOST: 'maquina-2.local' }).orchestration.host).toBe('maquina-2.local');
    expect(() => loadConfig({ AGENT_HOST: 'com espaço' })).toThrow(/AGENT_HOST: letters, digits/);
    expect(() => loadConfig({ AGENT_HOST: 'x'.repeat(101) })).toThrow(/AGENT_HOST/);
  });
});
