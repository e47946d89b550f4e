/**
 * `/app/audit` (permission `team`: owners): the organizer's audit log (docs/dashboard.md,
 * "Audit log"), newest first, 50 a page with "Load more": when (to the second, in the
 * organizer's time zone), who (a person, an API key or an operator), the action (the operation's id),
 * its target, what changed ("title: A → B") and the IP address. The filters (actor type
 * and id, action, target type and id, a range of days in the organizer's zone) are the page's
 * address (`/app/audit?actor_type=user&from=2026-11-01`), so a filtered view can be
 * reloaded and shared; "Download CSV" links to the export with the same filters.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ErrorNotice } from '../components/error-notice.tsx';
import { LoadMore } from '../components/load-more.tsx';
import { dateTime, zonedInputToIso } from '../lib/format.ts';
import {
  auditExportHref,
  listAuditLog,
  type ActorType,
  type AuditEntry,
  type AuditFilters,
} from '../lib/organizer-api.ts';
import { useSession } from '../lib/session.ts';
import './reports.css';
import { useTitle } from '../lib/title.ts';
import { useAsync } from '../lib/use-async.ts';

const PAGE = 50;

const ACTOR_TYPES: readonly { type: ActorType; label: string }[] = [
  { type: 'user', label: 'Person' },
  { type: 'api_key', label: 'API key' },
  { type: 'operator', label: 'Operator' },
];

const actorTypeLabel = (type: string) => ACTOR_TYPES.find((a) => a.type === type)?.label ?? type;

/** The screens a target type has, to link a target to it. */
const TARGET_SCREENS: Readonly<Record<string, string>> = {
  event: '/app/events/',
  order: '/app/orders/',
  webhook_endpoint: '/app/webhooks/',
};

/** The filters as the page's address holds them: the API's names, days as `YYYY-MM-DD` in the organizer's zone. */
interface UrlFilters {
  actor_type: string;
  actor_id: string;
  action: string;
  target_type: string;
  target_id: string;
  from: string;
  to: string;
}

const URL_KEYS = ['actor_type', 'actor_id', 'action', 'target_type', 'target_id', 'from', 'to'] as const;
const NO_FILTERS: UrlFilters = {
  actor_type: '',
  actor_id: '',
  action: '',
  target_type: '',
  target_id: '',
  from: '',
  to: '',
};
const DAY = /^\d{4}-\d{2}-\d{2}$/;

function urlFiltersOf(query: Record<string, string | undefined>): UrlFilters {
  const out = {} as UrlFilters;
  for (const key of URL_KEYS) out[key] = (query[key] ?? '').trim();
  return out;
}

/** The day after `YYYY-MM-DD`, as `YYYY-MM-DD`. */
function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** The API's query for the address's filters: a day range becomes instants (from midnight, to the next midnight). */
function apiFiltersOf(f: UrlFilters, timeZone: string): AuditFilters {
  const gte = DAY.test(f.from) ? zonedInputToIso(`${f.from}T00:00`, timeZone) : undefined;
  const lt = DAY.test(f.to) ? zonedInputToIso(`${nextDay(f.to)}T00:00`, timeZone) : undefined;
  return {
    ...(ACTOR_TYPES.some((a) => a.type === f.actor_type) ? { actor_type: f.actor_type as ActorType } : {}),
    ...(f.actor_id !== '' ? { actor_id: f.actor_id } : {}),
    ...(f.action !== '' ? { action: f.action } : {}),
    ...(f.target_type !== '' ? { target_type: f.target_type } : {}),
    ...(f.target_id !== '' ? { target_id: f.target_id } : {}),
    ...(gte !== undefined ? { occurred_gte: gte } : {}),
    ...(lt !== undefined ? { occurred_lt: lt } : {}),
  };
}

function addressOf(f: UrlFilters): string {
  const search = new URLSearchParams();
  for (const key of URL_KEYS) if (f[key] !== '') search.set(key, f[key]);
  const text = search.toString();
  return text === '' ? '/app/audit' : `/app/audit?${text}`;
}

/** A value of a change as a person reads it: a list of plain values comma-separated, a structure as JSON. */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string' || typeof v === 'number'))
    return value.length === 0 ? '—' : value.join(', ');
  return JSON.stringify(value);
}

/** `{title: {before: "A", after: "B"}}` → `["title: A → B"]`. */
function changeLines(changes: AuditEntry['changes']): string[] {
  return Object.entries(changes).map(([field, { before, after }]) => `${field}: ${shown(before)} → ${shown(after)}`);
}

export function AuditLog() {
  useTitle('Audit log');
  const { organizer } = useSession();
  const { query, route } = useLocation();
  const applied = urlFiltersOf(query);
  const key = addressOf(applied);
  const filters = apiFiltersOf(applied, organizer.timezone);

  const [more, setMore] = useState<AuditEntry[]>([]);
  const [hasMore, setHasMore] = useState(false);
  const [moreError, setMoreError] = useState<unknown>();
  const first = useAsync(async () => {
    const page = await listAuditLog(filters, { limit: PAGE });
    setMore([]);
    setMoreError(undefined);
    setHasMore(page.has_more);
    return page.data;
  }, [key, organizer.timezone]);
  const entries = [...(first.data ?? []), ...more];

  // A page that arrives after the filters changed belongs to the old list: it is dropped.
  const current = useRef(key);
  current.current = key;
  const loadMore = async () => {
    setMoreError(undefined);
    const asked = key;
    try {
      const page = await listAuditLog(filters, { limit: PAGE, starting_after: entries.at(-1)!.id });
      if (current.current !== asked) return;
      setMore([...more, ...page.data]);
      setHasMore(page.has_more);
    } catch (err) {
      if (current.current === asked) setMoreError(err);
    }
  };

  return (
    <>
      <div class="screen-head">
        <h1>Audit log</h1>
        <a class="button secondary" href={auditExportHref(filters)} download>
          Download CSV
        </a>
      </div>
      <p>
        Every change made in the console or with an API key, newest first. Times are in {organizer.timezone}, the
        organizer's time zone.
      </p>
      <FilterForm applied={applied} onApply={(next) => route(addressOf(next))} />
      <ErrorNotice error={first.error} />
      {first.loading && first.data === undefined ? (
        <p class="loading">Loading…</p>
      ) : (
        <>
          <p class="hint" aria-live="polite">
            {first.loading
              ? 'Loading…'
              : `${entries.length}${hasMore ? '+' : ''} ${entries.length === 1 ? 'entry' : 'entries'}`}
          </p>
          <AuditTable entries={entries} timeZone={organizer.timezone} />
          <LoadMore hasMore={hasMore} error={moreError} onLoad={loadMore} />
        </>
      )}
    </>
  );
}

/** A free-text filter of the form, its hint (if any) tied to it. */
function TextFilter({
  field,
  label,
  hint,
  value,
  onInput,
}: {
  field: keyof UrlFilters;
  label: string;
  hint?: string;
  value: string;
  onInput: (e: { currentTarget: { value: string } }) => void;
}) {
  const id = `audit-${field.replaceAll('_', '-')}`;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        autoComplete="off"
        {...(hint !== undefined ? { 'aria-describedby': `${id}-hint` } : {})}
        value={value}
        onInput={onInput}
      />
      {hint !== undefined && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

function FilterForm({ applied, onApply }: { applied: UrlFilters; onApply: (filters: UrlFilters) => void }) {
  const { organizer } = useSession();
  const [draft, setDraft] = useState(applied);
  useEffect(() => setDraft(applied), [addressOf(applied)]);
  const set = (name: keyof UrlFilters) => (e: { currentTarget: { value: string } }) =>
    setDraft({ ...draft, [name]: e.currentTarget.value });
  const any = URL_KEYS.some((k) => applied[k] !== '');
  return (
    <form
      role="search"
      aria-label="Filter the audit log"
      onSubmit={(e) => {
        e.preventDefault();
        onApply(urlFiltersOf({ ...draft }));
      }}
    >
      <div class="row">
        <div class="field">
          <label for="audit-actor-type">Actor type</label>
          <select id="audit-actor-type" value={draft.actor_type} onChange={set('actor_type')}>
            <option value="">Anyone</option>
            {ACTOR_TYPES.map(({ type, label }) => (
              <option key={type} value={type}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <TextFilter
          field="actor_id"
          label="Actor id"
          hint="A person's or an API key's: choose an actor in the log to fill it."
          value={draft.actor_id}
          onInput={set('actor_id')}
        />
        <TextFilter
          field="action"
          label="Action"
          hint="The operation, as the log names it: updateEvent."
          value={draft.action}
          onInput={set('action')}
        />
        <TextFilter
          field="target_type"
          label="Target type"
          hint="Such as order, event or api_key."
          value={draft.target_type}
          onInput={set('target_type')}
        />
        <TextFilter field="target_id" label="Target id" value={draft.target_id} onInput={set('target_id')} />
      </div>
      <div class="row">
        <div class="field">
          <label for="audit-from">From</label>
          <input
            id="audit-from"
            type="date"
            aria-describedby="audit-days-hint"
            value={draft.from}
            onInput={set('from')}
          />
        </div>
        <div class="field">
          <label for="audit-to">To</label>
          <input id="audit-to" type="date" aria-describedby="audit-days-hint" value={draft.to} onInput={set('to')} />
        </div>
      </div>
      <p class="hint" id="audit-days-hint">
        Days in {organizer.timezone}, both included.
      </p>
      <div class="actions">
        <button type="submit">Filter</button>
        {any && (
          <a class="button secondary" href="/app/audit">
            Clear filters
          </a>
        )}
      </div>
    </form>
  );
}

function AuditTable({ entries, timeZone }: { entries: AuditEntry[]; timeZone: string }) {
  return (
    <table class="audit-log">
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Actor</th>
          <th scope="col">Action</th>
          <th scope="col">Target</th>
          <th scope="col">Changes</th>
          <th scope="col">IP address</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => {
          const lines = changeLines(entry.changes);
          const screen = TARGET_SCREENS[entry.target.type];
          return (
            <tr key={entry.id} data-entry={entry.id}>
              <td>
                <time dateTime={entry.occurred_at}>
                  {dateTime(entry.occurred_at, timeZone, undefined, { seconds: true })}
                </time>
              </td>
              <td>
                {entry.actor.id === null ? (
                  entry.actor.label
                ) : (
                  <a href={addressOf({ ...NO_FILTERS, actor_id: entry.actor.id })} title="Only this actor's entries">
                    {entry.actor.label}
                  </a>
                )}{' '}
                <span class="badge">{actorTypeLabel(entry.actor.type)}</span>
              </td>
              <td>
                <code>{entry.action}</code>
              </td>
              <td>
                {entry.target.type}
                {entry.target.id !== null && (
                  <>
                    {' '}
                    {screen !== undefined ? (
                      <a href={`${screen}${entry.target.id}`}>
                        <code class="target-id">{entry.target.id}</code>
                      </a>
                    ) : (
                      <code class="target-id">{entry.target.id}</code>
                    )}
                  </>
                )}
              </td>
              <td>
                {lines.length === 0 ? (
                  '—'
                ) : (
                  <ul class="changes">
                    {lines.map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                )}
              </td>
              <td>{entry.ip ?? '—'}</td>
            </tr>
          );
        })}
        {entries.length === 0 && (
          <tr>
            <td colSpan={6}>No entry matches.</td>
          </tr>
        )}
      </tbody>
    </table>
  );
}
