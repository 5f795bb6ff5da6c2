import { defineQuery } from '@temporalio/workflow';

export type RankingPhase = 'preparando' | 'pontuando' | 'posicionando' | 'concluido';

/** What a running ranking job reports through the `progress` query. */
export interface RankingProgress {
  runId: string;
  origem: 'manual' | 'agendado';
  limparAntes: boolean;
  fase: RankingPhase;
  processados: number;
  total: number;
  /** ISO time the run (its first execution, before any continue-as-new) started. */
  iniciadoEm: string;
}

/** Defined once, used by the workflow and by GET /api/v1/ranking/status. */
export const progressQuery = defineQuery<RankingProgress>('progress');
