/** The ranking service's use cases (docs/application-layer.md). */
export type { RankingDeps } from './deps';
export { assessmentAreas, consultantCurriculum, consultantDetail, consultantDocument, CONSULTANT_NOT_FOUND_DETAIL } from './consultants';
export { suggestConsultants } from './suggestions';
export {
  NOT_PROCESSED_DETAIL,
  rankingDetailed,
  rankingList,
  rankingPage,
  rankingPosition,
  rankingStatistics,
  sealList,
  searchRanking,
  type JsonBytes,
  type PageQuery,
} from './reads';
export {
  consultantSheetPdf,
  CONSULTANT_NOT_FOUND,
  SheetGenerationError,
  SheetQueueFullError,
  teamSheetPdf,
  type SheetDeps,
} from './sheets';
export {
  ALREADY_RUNNING_DETAIL,
  percentOf,
  rankingJobStatus,
  startRankingJob,
  WORKFLOWS_UNAVAILABLE_DETAIL,
  type JobDeps,
  type JobStarted,
  type JobStatus,
} from './job';
