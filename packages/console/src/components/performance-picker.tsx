/**
 * Picking a performance: an event, then one of its performances, as the box office
 * (screens/sell.tsx) and the door (screens/door.tsx) both do.
 */
import type { Event, Performance } from '@marquee/sdk';
import { dateTime } from '../lib/format.ts';

/** "May 1, 2027, 07:00 PM EDT · Late show": a performance in its event's zone. */
export function performanceName(performance: Performance, timeZone: string): string {
  const when = dateTime(performance.starts_at, timeZone);
  return performance.title ? `${when} · ${performance.title}` : when;
}

interface SelectProps<T> {
  id: string;
  items: readonly T[];
  value: string;
  /** The empty choice's text: "Choose an event…", "Loading…". */
  placeholder: string;
  disabled?: boolean;
  onChange: (id: string) => void;
}

function Select<T extends { id: string }>({
  label,
  name,
  id,
  items,
  value,
  placeholder,
  disabled = false,
  onChange,
}: SelectProps<T> & { label: string; name: (item: T) => string }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">{placeholder}</option>
        {items.map((item) => (
          <option key={item.id} value={item.id}>
            {name(item)}
          </option>
        ))}
      </select>
    </div>
  );
}

export function EventSelect(props: SelectProps<Event>) {
  return <Select {...props} label="Event" name={(event) => event.title} />;
}

export function PerformanceSelect(props: SelectProps<Performance> & { timeZone: string }) {
  return <Select {...props} label="Performance" name={(p) => performanceName(p, props.timeZone)} />;
}
