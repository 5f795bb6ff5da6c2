import {
  CLOSED_WORKFLOW_GRACE_MS,
  interruptedRunOutcome,
  MISSING_WORKFLOW_GRACE_MS,
  strandedExecutionOutcome,
} from '../../domain/workflow-gone';

const now = new Date('2026-03-01T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms);
const closed = (status: string, closedMsAgo = CLOSED_WORKFLOW_GRACE_MS) => ({
  kind: 'closed' as const,
  status,
  closedAt: ago(closedMsAgo),
});

describe('strandedExecutionOutcome', () => {
  it('leaves a record whose workflow is open alone, however old', () => {
    expect(strandedExecutionOutcome({ kind: 'open' }, ago(86_400_000), now)).toBeNull();
  });

  it.each([
    ['TERMINATED', 'error'],
    ['FAILED', 'error'],
    ['TIMED_OUT', 'error'],
    ['COMPLETED', 'error'],
    ['CANCELLED', 'canceled'],
  ])('ends a record whose workflow closed as %s: %s, naming the status', (status, expected) => {
    expect(strandedExecutionOutcome(closed(status), now, now)).toEqual({
      status: expected,
      error: `o workflow da execução terminou como ${status} sem finalizar o registro`,
    });
  });

  it('waits CLOSED_WORKFLOW_GRACE_MS after the close (the agent is being killed meanwhile)', () => {
    expect(strandedExecutionOutcome(closed('TERMINATED', CLOSED_WORKFLOW_GRACE_MS - 1), ago(60_000), now)).toBeNull();
    expect(strandedExecutionOutcome({ kind: 'closed', status: 'TERMINATED', closedAt: null }, now, now)).not.toBeNull();
  });

  it('ends a record without a workflow only once it is older than MISSING_WORKFLOW_GRACE_MS', () => {
    expect(strandedExecutionOutcome({ kind: 'missing' }, ago(MISSING_WORKFLOW_GRACE_MS - 1), now)).toBeNull();
    expect(strandedExecutionOutcome({ kind: 'missing' }, ago(MISSING_WORKFLOW_GRACE_MS), now)).toEqual({
      status: 'error',
      error: 'o workflow da execução não foi encontrado: nunca começou ou não existe mais',
    });
  });
});

describe('interruptedRunOutcome', () => {
  const run = 'run-1';

  it('leaves a run alone while its own chain is open, or an open chain does not say whose it is', () => {
    expect(interruptedRunOutcome(run, { state: { kind: 'open' }, firstRunId: run })).toBeNull();
    expect(interruptedRunOutcome(run, { state: { kind: 'open' }, firstRunId: null })).toBeNull();
  });

  it('records a run whose own chain closed with the status, `cancelado` when cancelled', () => {
    expect(interruptedRunOutcome(run, { state: closed('TERMINATED'), firstRunId: run })).toEqual({
      estado: 'falhou',
      erro: 'processamento interrompido: o workflow terminou como TERMINATED sem registrar o fim',
    });
    expect(interruptedRunOutcome(run, { state: closed('CANCELLED'), firstRunId: run })).toMatchObject({ estado: 'cancelado' });
  });

  it('records a run as interrupted when another run is the latest, or no run exists', () => {
    const gone = { estado: 'falhou', erro: 'processamento interrompido: o workflow não está mais em execução' };
    expect(interruptedRunOutcome(run, { state: { kind: 'open' }, firstRunId: 'run-2' })).toEqual(gone);
    expect(interruptedRunOutcome(run, { state: closed('COMPLETED'), firstRunId: 'run-2' })).toEqual(gone);
    expect(interruptedRunOutcome(run, { state: { kind: 'missing' }, firstRunId: null })).toEqual(gone);
  });
});
