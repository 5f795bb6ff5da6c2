import { z } from 'zod';
import { agentCreateBody, agentUpdateBody } from '../../api/orchestration/agent-input';
import { historyQuery } from '../../api/orchestration/executions-input';
import {
  PIPELINE_IGNORED_KEYS,
  pipelineCreateBody,
  pipelineFields,
  pipelineStepFields,
  pipelineUpdateBody,
  STEP_IGNORED_KEYS,
} from '../../api/orchestration/pipelines-input';
import { optionalShape, strictBody, withoutDefaults } from '../../api/orchestration/strict-body-input';
import { storedSteps, type PipelineStepInput } from '../../db/pipelines-store';

/**
 * Issue 38: a request parser cannot drop a field. The kept keys are the schema's own, so an optional
 * field added to a schema is in the parsed value (and, for pipelines, in what the store writes);
 * the keys declared ignored are accepted and dropped; anything else is refused.
 */

const step = { agentId: 'agent-1', inputTemplate: 'Revise {{input}}', description: 'Revise', requiresApproval: false };

describe('pipeline bodies built from an extended schema keep the new field', () => {
  const extendedStep = strictBody({ ...pipelineStepFields, retries: z.number().int().optional() }, STEP_IGNORED_KEYS);
  const extended = { ...pipelineFields, priority: z.number().int().optional(), steps: z.array(extendedStep).min(1) };
  const create = strictBody(extended, PIPELINE_IGNORED_KEYS);
  const update = strictBody(optionalShape(withoutDefaults(extended)), PIPELINE_IGNORED_KEYS);

  it('create: the new field is kept, at the top and in a step; ignored keys are dropped', () => {
    const parsed = create.parse({
      name: 'Revisão',
      priority: 3,
      id: 'ignored',
      created_at: 'ignored',
      steps: [{ ...step, retries: 2, agentName: 'ignored', promptMode: 'ignored' }],
    });
    expect(parsed).toEqual({
      name: 'Revisão',
      description: '',
      workingDirectory: null,
      status: 'active',
      priority: 3,
      steps: [{ ...step, retries: 2 }],
    });
  });

  it('create: left out, the new optional field stays out', () => {
    expect(create.parse({ name: 'Revisão', steps: [step] })).not.toHaveProperty('priority');
  });

  it('update: only the keys given, the new field among them; no create default applies', () => {
    expect(update.parse({ priority: 5 })).toEqual({ priority: 5 });
    expect(update.parse({ name: 'x', updated_at: 'ignored' })).toEqual({ name: 'x' });
  });

  it('an unknown key is still refused', () => {
    expect(create.safeParse({ name: 'Revisão', steps: [step], unknown: 1 }).success).toBe(false);
  });

  it('the store keeps a step field it does not name (storedSteps)', () => {
    const given: PipelineStepInput[] = [
      { ...step, requiresApproval: true, retries: 2 } as PipelineStepInput,
      { ...step, description: 'Resuma' },
    ];
    const [first, second] = storedSteps(given);
    // Kept, and the store's own rules still apply: step 0 never waits.
    expect(first).toMatchObject({ order: 0, retries: 2, requiresApproval: false });
    // The stored key order of before.
    expect(Object.keys(second!)).toEqual(['id', 'agentId', 'order', 'inputTemplate', 'description', 'requiresApproval']);
  });
});

describe('the pipeline parsers keep every field of their schema', () => {
  it('create: every key of pipelineFields is in the parsed value, no other', () => {
    const parsed = pipelineCreateBody.parse({ name: 'Revisão', steps: [step], createdAt: 'ignored' });
    expect(Object.keys(parsed).sort()).toEqual(Object.keys(pipelineFields).sort());
  });

  it('update: every key given is kept', () => {
    const body = { name: 'n', description: 'd', workingDirectory: '', status: 'inactive', steps: [step] };
    expect(Object.keys(pipelineUpdateBody.parse(body)).sort()).toEqual(Object.keys(pipelineFields).sort());
    expect(pipelineUpdateBody.parse({})).toEqual({});
  });
});

describe('the other parsers pass on every parsed field', () => {
  it('agents: every config field reaches the data, renamed where the data names it otherwise', () => {
    const parsed = agentUpdateBody.parse({ agent_name: 'a', id: 'ignored', config: { systemPrompt: 'p', timeout: 60_000, maxTurns: 3 } });
    expect(parsed).toEqual({ name: 'a', instructions: 'p', timeoutMs: 60_000, maxTurns: 3 });
    expect(agentCreateBody.parse({ agent_name: 'a', config: { dailyBudgetUsd: 2 } })).toMatchObject({ name: 'a', dailyBudgetUsd: 2 });
  });

  it('agents: an update with nothing but ignored keys is refused with the same message', () => {
    const result = agentUpdateBody.safeParse({ id: 'x' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe('Informe ao menos um de agent_name, description, tags, status, config');
  });

  it('history: every filter reaches HistoryFilters', () => {
    const parsed = historyQuery.parse({
      type: 'pipeline',
      status: 'error,completed',
      agentId: 'a',
      pipelineId: 'p',
      search: '',
      to: '2026-01-01',
    });
    expect(parsed.filters).toEqual({
      kind: 'pipeline',
      status: ['error', 'completed'],
      agentId: 'a',
      pipelineId: 'p',
      before: new Date('2026-01-02T00:00:00.000Z'),
    });
  });
});
