/** The list object every paginated endpoint returns (schema `*List` of the OpenAPI document). */
import type { Page } from '../../db/pagination.ts';

export function presentList<T, U>(page: Page<T>, present: (row: T) => U) {
  return { object: 'list' as const, data: page.data.map(present), has_more: page.has_more };
}
