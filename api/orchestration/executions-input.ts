import { z } from 'zod';
import { EXECUTION_SOURCES, EXECUTION_STATUSES, type HistoryFilters } from '../../services/executions';
import { ACTIVE_STATUSES, historyFilterStatuses } from '../../domain/execution-status';
import { definedEntriesOf } from './strict-body-input';

const EXECUTION_TYPES = ['agent', 'pipeline'] as const;

/** The query strings of the execution history routes, with their bounds (docs/executions.md). */

export const RECENT_LIMIT = { min: 1, max: 100, default: 20 } as const;
export const PAGE_SIZE = { min: 1, max: 100, default: 20 } as const;
/** Largest `offset`: deep enough for any page a person reads, small enough that OFFSET stays cheap. */
export const OFFSET_MAX = 100_000;
/** Longest `search`: a search phrase, not a document. */
export const QUERY_MAX = 200;

/** A query value given once; a repeated parameter (`?a=1&a=2`) is refused rather than guessed. */
const single = z.string({ error: 'Informe uma única vez, como texto' });
const integerIn = (min: number, max: number, fallback: number) =>
  single
    .regex(/^\d+$/, 'Deve ser um número inteiro')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((value) => value ?? fallback);

/** `a,b` or `a`: each value from `allowed`. */
const listOf = <T extends string>(allowed: readonly T[]) =>
  single
    .transform((value) => value.split(',').map((item) => item.trim()))
    .pipe(z.array(z.enum(allowed as [T, ...T[]])).min(1))
    .optional();

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * An ISO date (`2026-11-21`, a whole UTC day) or date-time with its offset. Parsed to the instant it
 * starts and whether it was a whole day, so `to` can include that day.
 */
const instant = single
  .refine(
    (value) => DATE_ONLY.test(value) || DATE_TIME.test(value),
    'Deve ser uma data ISO (AAAA-MM-DD) ou data e hora com fuso (AAAA-MM-DDTHH:MM[:SS[.mmm]]Z)',
  )
  .transform((value, context) => {
    const date = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00.000Z` : value);
    if (Number.isNaN(date.getTime()) || !(DATE_ONLY.test(value) ? date.toISOString().startsWith(value) : true)) {
      context.addIssue({ code: 'custom', message: 'Não é uma data válida' });
      return z.NEVER;
    }
    return { date, wholeDay: DATE_ONLY.test(value) };
  })
  .optional();

const DAY_MS = 86_400_000;

const filterFields = {
  type: single
    .pipe(z.enum(EXECUTION_TYPES))
    .optional()
    .meta({ description: `${EXECUTION_TYPES.join(' or ')}` }),
  status: listOf(EXECUTION_STATUSES).meta({
    description: `One status or several comma-separated: ${EXECUTION_STATUSES.join(', ')}; running (the panel's "Em execução") selects every run not ended: ${ACTIVE_STATUSES.join(', ')}`,
  }),
  source: listOf(EXECUTION_SOURCES).meta({ description: `One source or several comma-separated: ${EXECUTION_SOURCES.join(', ')}` }),
  agentId: single.min(1).max(36).optional().meta({ description: "The agent's id (exact)" }),
  pipelineId: single.min(1).max(36).optional().meta({ description: "The pipeline's id (exact)" }),
  from: instant.meta({ description: 'createdAt >= from: an ISO date (2026-11-21, 00:00 UTC) or a date-time with its offset' }),
  to: instant.meta({ description: 'Inclusive: a date means up to the end of that UTC day, a date-time up to that millisecond' }),
  search: single
    .trim()
    .max(QUERY_MAX)
    .optional()
    .meta({ description: "Case-insensitive substring of the agent's or pipeline's name or of the task" }),
};

type FilterInput = z.output<z.ZodObject<typeof filterFields>>;

/** The query's filters whose HistoryFilters field has the same name and value: passed on as parsed. */
type SameNameFilters = Omit<FilterInput, 'type' | 'status' | 'from' | 'to' | 'search'>;
// A filter added to the query without its HistoryFilters field (or under another name) fails to compile here.
const _sameNamesAreFilters: Required<SameNameFilters> extends Required<Pick<HistoryFilters, keyof SameNameFilters>> ? true : never = true;

/**
 * The filters as the store takes them: every parsed filter, no list of kept keys (a filter added to
 * the query reaches the store); those that change name or shape here. `to` is inclusive: a date means
 * up to the end of that day, a date-time up to that millisecond.
 */
function filtersOf({ type, status, from, to, search, ...sameName }: FilterInput): HistoryFilters {
  return {
    ...(type ? { kind: type } : {}),
    // `running` ("Em execução") selects every active status (domain/execution-status.ts).
    ...(status ? { status: historyFilterStatuses(status) } : {}),
    ...(definedEntriesOf(sameName) as SameNameFilters),
    ...(from ? { from: from.date } : {}),
    ...(to ? { before: new Date(to.date.getTime() + (to.wholeDay ? DAY_MS : 1)) } : {}),
    // '' (a search box left empty) is no filter.
    ...(search ? { search } : {}),
  };
}

const fromNotAfterTo = {
  message: '`from` não pode ser posterior a `to`',
  path: ['from'],
  when: (payload: { issues: unknown[] }) => payload.issues.length === 0,
};

const validRange = (input: FilterInput) => !input.from || !input.to || input.from.date <= input.to.date;

/** GET /executions/export: the history filters. Unknown parameters are refused (a typo would export everything). */
export const exportQuery = z.strictObject(filterFields).refine(validRange, fromNotAfterTo).transform(filtersOf);

/** GET /executions/history: the filters plus `limit` (1..100) and `offset` (0..OFFSET_MAX), as the panel pages. */
export const historyQuery = z
  .strictObject({
    ...filterFields,
    limit: integerIn(PAGE_SIZE.min, PAGE_SIZE.max, PAGE_SIZE.default).meta({
      description: `${PAGE_SIZE.min}..${PAGE_SIZE.max}, default ${PAGE_SIZE.default}`,
    }),
    offset: integerIn(0, OFFSET_MAX, 0).meta({ description: `0..${OFFSET_MAX}, default 0` }),
  })
  .refine(validRange, fromNotAfterTo)
  .transform(({ limit, offset, ...filters }) => ({ filters: filtersOf(filters), page: { limit, offset } }));

export const recentQuery = z.strictObject({
  limit: integerIn(RECENT_LIMIT.min, RECENT_LIMIT.max, RECENT_LIMIT.default).meta({
    description: `${RECENT_LIMIT.min}..${RECENT_LIMIT.max}, default ${RECENT_LIMIT.default}`,
  }),
});
