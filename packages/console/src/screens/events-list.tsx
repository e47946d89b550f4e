/**
 * Events: the whole catalog, newest first, drafts and archived events marked, searched by
 * title as you type. The title search and the draft marks come from the list's own
 * filters (`title`, `status=draft`), 100 events a page with "Load more"; docs/console.md.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Event } from '@marquee/sdk';
import { ErrorNotice } from '../components/error-notice.tsx';
import { LoadMore } from '../components/load-more.tsx';
import { dateTime } from '../lib/format.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';

const PAGE = 100;
/** How long typing pauses before the search is sent. */
const SEARCH_DELAY_MS = 250;

export function EventsList() {
  useTitle('Events');
  const { client, can } = useSession();
  const [events, setEvents] = useState<Event[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [query, setQuery] = useState('');
  const [title, setTitle] = useState('');
  const [moreError, setMoreError] = useState<unknown>();
  useEffect(() => {
    const timer = setTimeout(() => setTitle(query.trim()), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [query]);
  const filter = title === '' ? {} : { title };
  const first = useAsync(async () => {
    const page = await client.events.list({ limit: PAGE, ...filter });
    setEvents(page.data);
    setHasMore(page.has_more);
    return page;
  }, [client, title]);
  // Every draft's id (drafts are few: an organizer publishes what it sells).
  const drafts = useAsync(async () => {
    const ids = new Set<string>();
    for await (const draft of client.events.list({ limit: PAGE, status: 'draft' })) ids.add(draft.id);
    return ids;
  }, [client]);

  const loadMore = async () => {
    const last = events.at(-1);
    if (last === undefined) return;
    try {
      const page = await client.events.list({ limit: PAGE, starting_after: last.id, ...filter });
      setEvents([...events, ...page.data]);
      setHasMore(page.has_more);
    } catch (err) {
      setMoreError(err);
    }
  };

  const shown = first.loading ? [] : events;

  return (
    <>
      <div class="screen-head">
        <h1>Events</h1>
        {can('catalog') && (
          <a class="button" href="/app/events/new">
            New event
          </a>
        )}
      </div>
      <form role="search" onSubmit={(e) => e.preventDefault()}>
        <label for="event-search">Search by title</label>
        <input id="event-search" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      </form>
      <ErrorNotice error={first.error ?? drafts.error} />
      {first.loading ? (
        <p class="loading">Loading events…</p>
      ) : (
        <table>
          <caption class="visually-hidden">Events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">State</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((event) => (
              <tr key={event.id}>
                <td>
                  <a href={`/app/events/${event.id}`}>{event.title}</a>
                </td>
                <td>
                  <EventState event={event} draft={drafts.data?.has(event.id) ?? false} />
                </td>
                <td>{dateTime(event.created_at, event.timezone)}</td>
              </tr>
            ))}
            {shown.length === 0 && (
              <tr>
                <td colSpan={3}>{title === '' ? 'No events yet.' : 'No event title matches.'}</td>
              </tr>
            )}
          </tbody>
        </table>
      )}
      <LoadMore hasMore={hasMore} error={moreError} onLoad={loadMore} />
    </>
  );
}

export function EventState({ event, draft }: { event: Event; draft: boolean }) {
  return (
    <span class="states">
      {draft ? <span class="badge draft">Draft</span> : <span class="badge">Published</span>}
      {event.is_archived && (
        <>
          {' '}
          <span class="badge archived">Archived</span>
        </>
      )}
    </span>
  );
}
