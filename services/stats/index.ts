export { chartStats, costStats, statsWindow, type ChartStats, type CostStats, type StatsDeps } from './stats';
