import Router from '@koa/router';
import { z } from 'zod';
import type { ApiResources } from '../resources';
import { rankingJobStatus, startRankingJob, type JobStarted } from '../../services/ranking';
import { useCaseErrors } from '../use-case-errors';
import { parseInput } from '../validation';
import { jobDepsOf } from '../use-case-deps';

export const processBody = z.object({
  limpar_antes: z.boolean().default(false).meta({ description: 'Clear the stored ranking before processing' }),
});

/** POST /ranking/processar and GET /ranking/status; the use cases are in services/ranking/job.ts. */
export function jobRoutes(resources: ApiResources): Router {
  const deps = jobDepsOf(resources);
  const router = new Router();
  router.use(useCaseErrors());

  router.post('/ranking/processar', async (ctx) => {
    const body = parseInput(processBody, ctx.request.body ?? {}, 'body');
    const { jobId } = await startRankingJob(deps, { limparAntes: body.limpar_antes, origem: 'manual' });
    const started: JobStarted = {
      sucesso: true,
      mensagem: body.limpar_antes
        ? 'Processamento do ranking iniciado em segundo plano; o ranking armazenado será limpo antes'
        : 'Processamento do ranking iniciado em segundo plano',
      job_id: jobId,
    };
    ctx.body = started;
  });

  router.get('/ranking/status', async (ctx) => {
    ctx.body = await rankingJobStatus(deps);
  });

  return router;
}
