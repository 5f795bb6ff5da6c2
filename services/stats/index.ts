export {
  chartStats,
  chartStatsSchema,
  costStats,
  costStatsSchema,
  statsWindow,
  tokenTotalsSchema,
  type ChartStats,
  type CostStats,
  type StatsDeps,
} from './stats';
