/**
 * `/app/events/<id>/report` (permission `read`): an event's sales report (docs/dashboard.md,
 * "Reports"): its totals (tickets, and the money: gross, fees, taxes, refunds, net),
 * revenue by tender, sales over time as a bar chart drawn in the page with the same
 * numbers in a table beside it (by day or by hour, in the event's time zone; the choice
 * is in the address, `?interval=hour`), and per performance a table by ticket type.
 * Amounts are in the report's currency (lib/format.ts).
 */
import { useLocation } from 'preact-iso';
import { BarChart } from '../components/bar-chart.tsx';
import { ErrorNotice } from '../components/error-notice.tsx';
import { dateTime, money } from '../lib/format.ts';
import { getEventReport, type EventReport, type ReportInterval, type ReportPerformance } from '../lib/organizer-api.ts';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import './reports.css';
import { useAsync } from '../lib/use-async.ts';
import { NumCol } from '../components/table-headers.tsx';

const TENDERS: Readonly<Record<string, string>> = {
  cash: 'Cash',
  pay_later: 'Pay later',
  free: 'Free',
  card: 'Card',
};

const tenderLabel = (tender: string) => TENDERS[tender] ?? tender;

/** The start of a period as a person reads it, in the event's zone: "Dec 5, 2026" or "Dec 5, 08:00 PM". */
function periodLabel(iso: string, interval: ReportInterval, timeZone: string, locale?: string): string {
  return new Intl.DateTimeFormat(
    locale,
    interval === 'day'
      ? { year: 'numeric', month: 'short', day: 'numeric', timeZone }
      : { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone },
  ).format(new Date(iso));
}

export function EventReportScreen({ id }: { id: string }) {
  const { client } = useSession();
  const { query, path, route } = useLocation();
  const interval: ReportInterval = query.interval === 'hour' ? 'hour' : 'day';
  const event = useAsync(() => client.events.get(id), [client, id]);
  // The answer keeps the id and interval it was asked for: while another loads, the last one stays shown as what it is.
  const report = useAsync(async () => ({ id, interval, report: await getEventReport(id, interval) }), [id, interval]);
  const title = event.data?.title;
  useTitle(title === undefined ? 'Report' : `Report: ${title}`);

  const loaded = report.data?.id === id ? report.data : undefined;
  return (
    <>
      <div class="screen-head">
        <h1>Report{title !== undefined ? `: ${title}` : ''}</h1>
        <a href={`/app/events/${id}`}>Back to the event</a>
      </div>
      <ErrorNotice error={report.error ?? event.error} />
      {loaded === undefined ? (
        report.error === undefined && <p class="loading">Loading the report…</p>
      ) : (
        <ReportBody
          report={loaded.report}
          interval={loaded.interval}
          chosen={interval}
          onInterval={(next) => route(next === 'day' ? path : `${path}?interval=${next}`, true)}
          refreshing={report.loading}
        />
      )}
    </>
  );
}

function ReportBody({
  report,
  interval,
  chosen,
  onInterval,
  refreshing,
}: {
  report: EventReport;
  /** The interval of `report`. */
  interval: ReportInterval;
  /** The interval asked for (the switch), which `report` is until the next one arrives. */
  chosen: ReportInterval;
  onInterval: (interval: ReportInterval) => void;
  refreshing: boolean;
}) {
  const { totals, currency, timezone } = report;
  const cash = (minor: number) => money(minor, currency);
  return (
    <>
      <p class="hint">
        As of {dateTime(report.generated_at, timezone)}. Times are in {timezone}, the event's time zone; amounts in{' '}
        {currency}.
      </p>
      <section aria-labelledby="totals-heading">
        <h2 id="totals-heading">Totals</h2>
        <div class="row">
          <FigureTable
            class="report-tickets"
            label="Tickets"
            rows={[
              ['Capacity', totals.capacity],
              ['Sold', totals.sold],
              ['Remaining', totals.remaining],
              ['Checked in', totals.checked_in],
              ['Held', totals.held],
              ['Refunded', totals.refunded],
              ['Cancelled', totals.cancelled],
              ['Orders', totals.orders],
            ]}
          />
          <FigureTable
            class="report-money"
            label="Money"
            rows={[
              ['Gross', cash(totals.gross_minor)],
              ['Refunds', cash(totals.refunded_minor)],
              ['Net', cash(totals.net_minor)],
              ['Fees in net', cash(totals.fees_minor)],
              ['Taxes in net', cash(totals.taxes_minor)],
            ]}
          />
        </div>
      </section>

      <section aria-labelledby="tender-heading">
        <h2 id="tender-heading">Revenue by tender</h2>
        {report.by_tender.length === 0 ? (
          <p>No orders yet.</p>
        ) : (
          <table class="report-tenders">
            <thead>
              <tr>
                <th scope="col">Tender</th>
                <NumCol>Orders</NumCol>
                <NumCol>Amount</NumCol>
              </tr>
            </thead>
            <tbody>
              {report.by_tender.map((t) => (
                <tr key={t.tender}>
                  <th scope="row">{tenderLabel(t.tender)}</th>
                  <td class="num">{t.orders}</td>
                  <td class="num">{cash(t.amount_minor)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <SalesOverTime
        report={report}
        interval={interval}
        chosen={chosen}
        onInterval={onInterval}
        refreshing={refreshing}
      />

      <section aria-labelledby="performances-heading">
        <h2 id="performances-heading">Performances</h2>
        {report.performances.map((p) => (
          <PerformanceTable key={p.performance_id} performance={p} currency={currency} timezone={timezone} />
        ))}
      </section>
    </>
  );
}

function SalesOverTime({
  report,
  interval,
  chosen,
  onInterval,
  refreshing,
}: {
  report: EventReport;
  interval: ReportInterval;
  chosen: ReportInterval;
  onInterval: (interval: ReportInterval) => void;
  refreshing: boolean;
}) {
  const { currency, timezone, sales_over_time: periods } = report;
  const unit = interval === 'day' ? 'day' : 'hour';
  const bars = periods.map((p) => ({
    key: p.period_start,
    label: periodLabel(p.period_start, interval, timezone),
    value: p.revenue_minor,
    valueLabel: `${money(p.revenue_minor, currency)}, ${p.tickets} ${p.tickets === 1 ? 'ticket' : 'tickets'}`,
  }));
  const first = bars[0];
  const last = bars.at(-1);
  return (
    <section aria-labelledby="sales-heading">
      <h2 id="sales-heading">Sales over time</h2>
      <fieldset class="interval-switch">
        <legend>Per</legend>
        {(['day', 'hour'] as const).map((value) => (
          <label class="check" key={value}>
            <input
              type="radio"
              name="interval"
              value={value}
              checked={chosen === value}
              onChange={() => onInterval(value)}
            />{' '}
            {value === 'day' ? 'Day' : 'Hour'}
          </label>
        ))}
        <span class="hint" aria-live="polite">
          {refreshing ? 'Loading…' : ''}
        </span>
      </fieldset>
      {periods.length === 0 ? (
        <p>Nothing sold yet.</p>
      ) : (
        <div class="chart-with-table">
          <BarChart
            id="sales-chart"
            title={`Revenue per ${unit}`}
            description={`${bars.length} ${bars.length === 1 ? unit : `${unit}s`} from ${first!.label} to ${last!.label}, in ${timezone}. The table beside the chart lists the same numbers.`}
            bars={bars}
            formatValue={(minor) => money(minor, currency)}
          />
          <table class="report-sales">
            <caption class="visually-hidden">Sales per {unit}</caption>
            <thead>
              <tr>
                <th scope="col">{interval === 'day' ? 'Day' : 'Hour'}</th>
                <NumCol>Orders</NumCol>
                <NumCol>Tickets</NumCol>
                <NumCol>Revenue</NumCol>
              </tr>
            </thead>
            <tbody>
              {periods.map((p, i) => (
                <tr key={p.period_start}>
                  <th scope="row">
                    <time dateTime={p.period_start}>{bars[i]!.label}</time>
                  </th>
                  <td class="num">{p.orders}</td>
                  <td class="num">{p.tickets}</td>
                  <td class="num">{money(p.revenue_minor, currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function PerformanceTable({
  performance: p,
  currency,
  timezone,
}: {
  performance: ReportPerformance;
  currency: string;
  timezone: string;
}) {
  const when = dateTime(p.starts_at, timezone);
  const revenue = p.ticket_types.reduce((sum, t) => sum + t.revenue_minor, 0);
  return (
    <table class="report-performance" data-performance={p.performance_id}>
      <caption>
        {when}
        {p.title !== null && p.title !== '' ? ` · ${p.title}` : ''} · capacity {p.capacity}
      </caption>
      <thead>
        <tr>
          <th scope="col">Ticket type</th>
          <NumCol>Price</NumCol>
          <NumCol>Sold</NumCol>
          <NumCol>Remaining</NumCol>
          <NumCol>Checked in</NumCol>
          <NumCol>Held</NumCol>
          <NumCol>Refunded</NumCol>
          <NumCol>Cancelled</NumCol>
          <NumCol>Revenue</NumCol>
        </tr>
      </thead>
      <tbody>
        {p.ticket_types.map((t) => (
          <tr key={t.ticket_type_id}>
            <th scope="row">{t.name}</th>
            <td class="num">{money(t.price_minor, currency)}</td>
            <td class="num">{t.sold}</td>
            <td class="num">{t.remaining}</td>
            <td class="num">{t.checked_in}</td>
            <td class="num">{t.held ?? '—'}</td>
            <td class="num">{t.refunded}</td>
            <td class="num">{t.cancelled}</td>
            <td class="num">{money(t.revenue_minor, currency)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          {/* The performance's holds include those that name no ticket type. */}
          <th scope="row">All ticket types</th>
          <td class="num" />
          <td class="num">{p.sold}</td>
          <td class="num">{p.remaining}</td>
          <td class="num">{p.checked_in}</td>
          <td class="num">{p.held}</td>
          <td class="num">{p.ticket_types.reduce((sum, t) => sum + t.refunded, 0)}</td>
          <td class="num">{p.ticket_types.reduce((sum, t) => sum + t.cancelled, 0)}</td>
          <td class="num">{money(revenue, currency)}</td>
        </tr>
      </tfoot>
    </table>
  );
}

/** A labelled column of figures: one row per label, its value right-aligned. */
function FigureTable({
  class: className,
  label,
  rows,
}: {
  class: string;
  label: string;
  rows: [string, string | number][];
}) {
  return (
    <table class={className} aria-label={label}>
      <tbody>
        {rows.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td class="num">{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
