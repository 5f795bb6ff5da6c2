/** The ranking service's use cases (docs/application-layer.md). */
export type { RankingDeps } from './deps';
export { assessmentAreas, consultantCurriculum, consultantDetail, consultantDocument, CONSULTANT_NOT_FOUND_DETAIL } from './consultants';
export { suggestConsultants } from './suggestions';
export {
  rankingDetailed,
  rankingList,
  rankingPage,
  rankingPosition,
  rankingStatistics,
  sealList,
  searchRanking,
  type JsonBytes,
} from './reads';
export {
  consultantSheetPdf,
  CONSULTANT_NOT_FOUND,
  SheetGenerationError,
  SheetQueueFullError,
  teamSheetPdf,
  type SheetDeps,
} from './sheets';
export { rankingJobStatus, startRankingJob, type JobDeps, type JobStarted } from './job';
