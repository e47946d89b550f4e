/** The time filters and order of a polled list (docs/sync.md), from its query to the domain's ListView. */
import type { ListOrder, ListView } from '../domain/sync/lists.ts';

interface ListViewParams {
  created_gte?: string;
  created_lt?: string;
  updated_gte?: string;
  updated_lt?: string;
  order?: ListOrder;
}

/** Validated RFC 3339 texts (docs/validation.md) as instants; `now` is the request's clock. */
export function listView(params: ListViewParams, now: Date): ListView {
  const at = (text: string | undefined) => (text === undefined ? undefined : new Date(text));
  return {
    window: {
      created_gte: at(params.created_gte),
      created_lt: at(params.created_lt),
      updated_gte: at(params.updated_gte),
      updated_lt: at(params.updated_lt),
    },
    order: params.order ?? 'created_desc',
    now,
  };
}
