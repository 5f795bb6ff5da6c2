export { chartStats, chartStatsSchema, costStats, costStatsSchema, statsWindow } from './stats';
