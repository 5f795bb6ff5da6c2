/** Agent schedules (docs/tasks-schedules.md): CRUD, history, the firing's record, the reconciler. */
export {
  createSchedule,
  deleteSchedule,
  deleteSchedulesOfAgent,
  listSchedules,
  scheduleHistory,
  updateSchedule,
  type ScheduleDeps,
  scheduleViewSchema,
} from './schedules';
export { reconcileSchedules } from './reconcile-schedules';
