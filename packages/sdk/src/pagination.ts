/**
 * A list call: await it for one page, or iterate it for every item of every page.
 *
 *   const page = await client.orders.list({ limit: 50 });          // { data, has_more }
 *   for await (const order of client.orders.list({ status: 'placed' })) { … }
 *
 * Iteration follows the API's cursor: the next page starts after the last item seen (its
 * id, and in the sync order `order: 'updated_asc'` its `updated_at` too, docs/sync.md).
 */
export interface Page<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
}

/** Fetches the page after `last` (an item of the previous page), or the page after the id `startingAfter`. */
type PageFetcher<T> = (startingAfter: string | undefined, last?: T) => Promise<Page<T>>;

export class PageRequest<T extends { id: string }> implements PromiseLike<Page<T>>, AsyncIterable<T> {
  readonly #fetchPage: PageFetcher<T>;
  readonly #startingAfter: string | undefined;
  #first: Promise<Page<T>> | undefined;

  constructor(fetchPage: PageFetcher<T>, startingAfter: string | undefined) {
    this.#fetchPage = fetchPage;
    this.#startingAfter = startingAfter;
  }

  /** The first page, fetched once however often it is awaited. */
  #firstPage(): Promise<Page<T>> {
    this.#first ??= this.#fetchPage(this.#startingAfter);
    return this.#first;
  }

  then<A = Page<T>, B = never>(
    onFulfilled?: ((page: Page<T>) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#firstPage().then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    let page = await this.#firstPage();
    for (;;) {
      yield* page.data;
      const last = page.data.at(-1);
      if (!page.has_more || last === undefined) return;
      page = await this.#fetchPage(last.id, last);
    }
  }
}
