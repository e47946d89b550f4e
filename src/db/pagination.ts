/**
 * Keyset pagination, the one helper every list uses: order by (sort key, id), fetch one
 * row more than asked to know `has_more` exactly, and continue after a cursor row with
 * a row comparison. Never OFFSET, so the 200th page costs what the first does.
 */
import { sql, type SelectQueryBuilder } from 'kysely';
import { invalid } from '../errors/domain-error.ts';
import type { Executor } from './transaction.ts';
import type { Database } from './schema.ts';

export interface PageRequest {
  limit: number;
  starting_after?: string;
}

/** One page of rows; the HTTP layer presents it as a list object. */
export interface Page<T> {
  data: T[];
  has_more: boolean;
}

type TenantTable = {
  [K in keyof Database]: Database[K] extends { organizer_id: string; id: unknown } ? K : never;
}[keyof Database];

type KeysetOptions = {
  sortColumn: string;
  direction: 'asc' | 'desc';
  /**
   * The cursor's sort key as the caller knows it, instead of the cursor row's current one:
   * a list ordered by a key that changes (updated_at) continues after the position the
   * client saw, even when the cursor row has moved since (docs/sync.md).
   */
  cursorSortValue?: Date;
  /**
   * A list of one parent's rows (an event's performances, an endpoint's deliveries, a
   * performance's holds): the
   * cursor must be a row of that parent too, not only of the organizer.
   */
  parent?: { column: 'event_id' | 'endpoint_id' | 'performance_id'; id: string };
} & (
  | {
      /** The listed table; the query must select from it unaliased. */
      table: TenantTable;
      /** The cursor must be a row of this organizer. */
      organizerId: string;
    }
  | { table: 'organizers'; organizerId?: undefined }
);

export async function keysetPage<DB, TB extends keyof DB, O>(
  db: Executor,
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  opts: KeysetOptions,
): Promise<Page<O>> {
  const sortRef = sql.ref(`${opts.table}.${opts.sortColumn}`);
  const idRef = sql.ref(`${opts.table}.id`);
  let q = query;
  if (page.starting_after !== undefined) {
    const sameTenant = opts.organizerId === undefined ? sql`` : sql`AND organizer_id = ${opts.organizerId}`;
    const sameParent = opts.parent === undefined ? sql`` : sql`AND ${sql.ref(opts.parent.column)} = ${opts.parent.id}`;
    const cursor =
      await sql`SELECT 1 FROM ${sql.table(opts.table)} WHERE id = ${page.starting_after} ${sameTenant} ${sameParent}`.execute(
        db,
      );
    if (cursor.rows.length === 0) {
      throw invalid(
        'invalid_cursor',
        `starting_after \`${page.starting_after}\` is not the id of an item in this list.`,
        'starting_after',
      );
    }
    // The cursor's sort key is read in SQL, at full timestamp precision, unless given.
    const after =
      opts.cursorSortValue === undefined
        ? sql`(SELECT ${sql.ref(opts.sortColumn)}, id FROM ${sql.table(opts.table)} WHERE id = ${page.starting_after})`
        : sql`(${opts.cursorSortValue}::timestamptz, ${page.starting_after}::uuid)`;
    const op = sql.raw(opts.direction === 'desc' ? '<' : '>');
    q = q.where(sql<boolean>`(${sortRef}, ${idRef}) ${op} ${after}` as never);
  }
  const rows = await q
    .orderBy(sortRef as never, opts.direction)
    .orderBy(idRef as never, opts.direction)
    .limit(page.limit + 1)
    .execute();
  const has_more = rows.length > page.limit;
  return { data: has_more ? rows.slice(0, page.limit) : rows, has_more };
}
