/** The fixed workflow id of the ranking job: Temporal's id-conflict check makes it single-flight. */
export const RANKING_JOB_WORKFLOW_ID = 'ranking_job';

/** The Temporal Schedule that runs the ranking job every day. */
export const RANKING_SCHEDULE_ID = 'ranking_job_daily';
