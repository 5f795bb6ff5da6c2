import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import { orchestrationRouter } from './router';
import { WorkflowNotFoundError } from '@temporalio/client';
import { findAgent, type Agent } from '../../db/agents-store';
import { readExecutionSettings } from '../../db/execution-settings';
import {
  activeExecutions,
  cancelQueuedExecution,
  createExecution,
  finishExecution,
  getExecution,
  latestExecutionOfSession,
  type Execution,
  type ExecutionSummary,
  type NewExecution,
} from '../../db/executions-store';
import { ExecutionLiveStream, liveTargetOf } from '../../lib/live-output';
import type { Services } from '../../lib/services';
import { agentExecutionStartOptions, agentExecutionWorkflowId } from '../../temporal/agent-execution';
import type { agentExecutionWorkflow } from '../../workflows/agents/execution';
import { CANCELLED_ERROR } from '../../workflows/agents/execution-errors';
import { HttpError } from '../errors';
import { parseInput } from '../validation';
import { clientIdOf } from '../websocket';
import { continueBody, executeBody, taskWithContextFiles } from './execution-control-input';
import { confinedInput } from './working-directory-input';

const ACTIVE = new Set(['queued', 'running']);

/** The client whose live output an execution goes to: the `X-Client-Id` header (trimmed, at most 128 characters). */
function requestClientId(header: string): string | null {
  return clientIdOf({}, header || undefined);
}

/**
 * Starting, cancelling, continuing and retrying agent executions (docs/agent-executions.md). Each
 * execution is a record created `queued` here and a workflow on the `agents` queue that runs it.
 */
export function executionControlRoutes(services: Services): Router {
  const { db } = services.database;
  const { client } = services.temporal;
  const { workdirRoots } = services.config.orchestration;
  const router = orchestrationRouter();

  async function existingAgent(id: string): Promise<Agent> {
    const agent = await findAgent(db, id);
    if (!agent) throw new HttpError(404, `agent ${id} not found`);
    return agent;
  }

  /**
   * Stores a new execution of `agent` for the requesting client, tells the client it is queued, starts
   * its workflow; answers 202 with its id. Whatever its origin (the request, the agent, the settings, a
   * parent execution stored before the roots existed), the working directory must lie under the roots
   * (400 otherwise, nothing stored).
   */
  async function launch(
    agent: Agent,
    clientIdHeader: string,
    input: Omit<NewExecution, 'id' | 'kind' | 'agentId' | 'agentName' | 'clientId'>,
    resumeSessionId: string | null,
  ): Promise<{ executionId: string; status: 'queued' }> {
    const workingDirectory = await confinedInput(input.workingDirectory, workdirRoots, 'workingDirectory');
    const record = {
      id: randomUUID(),
      kind: 'agent' as const,
      agentId: agent.id,
      agentName: agent.name,
      clientId: requestClientId(clientIdHeader),
      ...input,
      workingDirectory,
    };
    const execution = await createExecution(db, record);
    // Before the start, so the client always hears `queued` before the worker's `started`.
    const live = liveStreamOf(execution);
    await published(live?.queued());
    try {
      await client.workflow.start<typeof agentExecutionWorkflow>(
        'agentExecutionWorkflow',
        agentExecutionStartOptions({ executionId: execution.id, resumeSessionId }),
      );
    } catch (error) {
      services.logger.error({ err: error, executionId: execution.id }, 'agent execution workflow not started');
      const reason = 'the execution could not be started (workflow engine unavailable)';
      await finishExecution(db, execution.id, { status: 'failed', error: reason });
      await published(live?.finished({ status: 'failed', costUsd: null, durationMs: null, sessionId: execution.sessionId, error: reason }));
      throw new HttpError(503, 'the execution could not be started: the workflow engine is unavailable');
    }
    return { executionId: execution.id, status: 'queued' };
  }

  function liveStreamOf(execution: Pick<Execution, 'id' | 'agentId' | 'agentName' | 'source' | 'clientId' | 'outputSeq'>) {
    const target = liveTargetOf({ source: execution.source, clientId: execution.clientId });
    if (!target) return null;
    const identity = { executionId: execution.id, agentId: execution.agentId ?? '', agentName: execution.agentName, pipelineExecutionId: null, source: execution.source };
    return new ExecutionLiveStream(services.redis, target, identity, execution.outputSeq + 1);
  }

  const published = (promise: Promise<unknown> | undefined) =>
    promise?.catch((error: unknown) => services.logger.warn({ err: error }, 'live output not published'));

  /**
   * Cancels an execution. A queued record is ended `cancelled` here at once (so it can no longer take
   * a slot freed meanwhile); then the workflow is cancelled: its activity kills a running agent and
   * the workflow ends the record `cancelled`, writes the report and the notification. A record
   * without a workflow (never started, or the workflow is gone) is ended here.
   */
  async function cancel(execution: ExecutionSummary): Promise<void> {
    if (execution.status === 'queued' && (await cancelQueuedExecution(db, execution.id, CANCELLED_ERROR))) {
      const ended = await getExecution(db, execution.id);
      if (ended) {
        await published(
          liveStreamOf(ended)?.finished({ status: 'cancelled', costUsd: null, durationMs: null, sessionId: ended.sessionId, error: CANCELLED_ERROR }),
        );
      }
    }
    try {
      await client.workflow.getHandle(agentExecutionWorkflowId(execution.id)).cancel();
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      await finishExecution(db, execution.id, { status: 'cancelled', error: CANCELLED_ERROR });
    }
  }

  router.post('/agents/:id/execute', async (ctx) => {
    const agent = await existingAgent(ctx.params.id ?? '');
    const body = parseInput(executeBody, ctx.request.body, 'body');
    if (body.repoName !== undefined || body.repoBranch !== undefined) throw new HttpError(400, 'repositories are not supported yet');
    const settings = await readExecutionSettings(db, workdirRoots);
    ctx.status = 202;
    ctx.body = await launch(
      agent,
      ctx.get('x-client-id'),
      {
        source: 'manual',
        task: taskWithContextFiles(body.task, body.contextFiles),
        instructions: body.instructions ?? agent.instructions,
        workingDirectory: body.workingDirectory ?? agent.workingDirectory ?? settings.workingDirectory,
        model: agent.model ?? settings.defaultModel,
      },
      null,
    );
  });

  router.post('/agents/:id/cancel/:executionId', async (ctx) => {
    const agentId = ctx.params.id ?? '';
    const executionId = ctx.params.executionId ?? '';
    const execution = await getExecution(db, executionId);
    if (!execution || execution.agentId !== agentId) throw new HttpError(404, `execution ${executionId} of agent ${agentId} not found`);
    if (!ACTIVE.has(execution.status)) throw new HttpError(409, `execution ${executionId} already finished (${execution.status})`);
    await cancel(execution);
    ctx.status = 202;
    ctx.body = { executionId, status: 'cancelling' };
  });

  router.post('/agents/:id/continue', async (ctx) => {
    const agent = await existingAgent(ctx.params.id ?? '');
    const body = parseInput(continueBody, ctx.request.body, 'body');
    const parent = await latestExecutionOfSession(db, agent.id, body.sessionId);
    if (!parent) throw new HttpError(404, `agent ${agent.id} has no session ${body.sessionId}`);
    ctx.status = 202;
    ctx.body = await launch(
      agent,
      ctx.get('x-client-id'),
      {
        source: 'continue',
        task: body.message,
        // The session already holds the instructions; the message is the whole prompt.
        instructions: '',
        // A session belongs to the directory it ran in.
        workingDirectory: parent.workingDirectory,
        model: parent.model,
        sessionId: body.sessionId,
        parentExecutionId: parent.id,
      },
      body.sessionId,
    );
  });

  router.get('/executions/active', async (ctx) => {
    ctx.body = await activeExecutions(db);
  });

  router.post('/executions/cancel-all', async (ctx) => {
    const active = await activeExecutions(db);
    // Queued ones first, so none of them takes a slot freed by cancelling a running one.
    const queuedFirst = [...active.filter((execution) => execution.status === 'queued'), ...active.filter((execution) => execution.status !== 'queued')];
    for (const execution of queuedFirst) await cancel(execution);
    ctx.status = 202;
    ctx.body = { cancelled: active.map((execution) => execution.id) };
  });

  router.post('/executions/:id/retry', async (ctx) => {
    const id = ctx.params.id ?? '';
    const parent = await getExecution(db, id);
    if (!parent) throw new HttpError(404, `execution ${id} not found`);
    if (ACTIVE.has(parent.status)) throw new HttpError(409, `execution ${id} is still active`);
    if (parent.kind !== 'agent' || !parent.agentId) throw new HttpError(400, `execution ${id} is not an agent execution`);
    const agent = await existingAgent(parent.agentId);
    ctx.status = 202;
    ctx.body = await launch(
      agent,
      ctx.get('x-client-id'),
      {
        source: 'retry',
        task: parent.task,
        instructions: parent.instructions,
        workingDirectory: parent.workingDirectory,
        model: parent.model,
        parentExecutionId: parent.id,
      },
      null,
    );
  });

  return router;
}
