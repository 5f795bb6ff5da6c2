import { agentLaunch, SETPRIV, setprivStartFailure } from '../../activities/agents/parent-death';

describe('agentLaunch', () => {
  it('starts the agent through setpriv with the parent-death signal, the agent and its arguments unchanged', () => {
    expect(agentLaunch('claude', ['-p', '--model', 'a b'], true)).toEqual({
      command: SETPRIV,
      args: ['--pdeathsig', 'KILL', '--', 'claude', '-p', '--model', 'a b'],
      throughSetpriv: true,
    });
  });

  it('as a pool user: switches uid, gid and groups, sets no_new_privs and the parent-death signal, and execs through the umask trampoline', () => {
    expect(agentLaunch('claude', ['-p', '--model', 'a b'], true, { uid: 995, gid: 994 })).toEqual({
      command: SETPRIV,
      args: [
        '--reuid=995',
        '--regid=994',
        '--groups=994',
        '--no-new-privs',
        '--pdeathsig',
        'KILL',
        '--',
        '/bin/sh',
        '-c',
        'umask 0007 && exec "$@"',
        'agent',
        'claude',
        '-p',
        '--model',
        'a b',
      ],
      throughSetpriv: true,
    });
  });

  it('refuses to start as another user without setpriv', () => {
    expect(() => agentLaunch('claude', [], false, { uid: 995, gid: 994 })).toThrow(
      '/usr/bin/setpriv is missing: cannot start the agent as uid 995',
    );
  });

  it('starts the agent directly without setpriv', () => {
    expect(agentLaunch('claude', ['-p'], false)).toEqual({ command: 'claude', args: ['-p'], throughSetpriv: false });
  });
});

describe('setprivStartFailure', () => {
  it("reads setpriv's own failure to execute the agent", () => {
    expect(setprivStartFailure('/opt/agent', 127, 'setpriv: failed to execute /opt/agent: No such file or directory\n')).toBe(
      'No such file or directory',
    );
    expect(setprivStartFailure('/opt/agent', 126, 'setpriv: failed to execute /opt/agent: Permission denied')).toBe('Permission denied');
  });

  it("reads the umask trampoline's failure to execute the agent", () => {
    expect(setprivStartFailure('/opt/agent', 127, 'agent: 1: exec: /opt/agent: not found\n')).toBe('No such file or directory');
    expect(setprivStartFailure('/opt/agent', 126, 'agent: 1: exec: /opt/agent: Permission denied\n')).toBe('Permission denied');
  });

  it('leaves the exit codes and messages of an agent that ran alone', () => {
    expect(setprivStartFailure('/opt/agent', 127, 'agent: command not found')).toBeNull();
    expect(setprivStartFailure('/opt/agent', 1, 'setpriv: failed to execute /opt/agent: No such file or directory')).toBeNull();
    expect(setprivStartFailure('/opt/agent', 127, 'setpriv: failed to execute /opt/other: No such file or directory')).toBeNull();
  });
});
