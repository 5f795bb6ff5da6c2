/** Agent schedules (docs/tasks-schedules.md): CRUD, history, the firing's record, the reconciler. */
export {
  countSchedules,
  createSchedule,
  deleteSchedule,
  deleteSchedulesOfAgent,
  listSchedules,
  scheduleHistory,
  updateSchedule,
  SCHEDULES_MAX,
  type ScheduleDeps,
  type ScheduleRequest,
  type ScheduleView,
  scheduleViewSchema,
} from './schedules';
export { reconcileSchedules, type ScheduleReconciliation } from './reconcile-schedules';
export { createScheduledExecution } from './run';
export { validCronExpression, MIN_INTERVAL_MINUTES } from './cron';
