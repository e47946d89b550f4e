/**
 * A bar chart drawn as SVG in the page (no chart library; the CSP allows no inline
 * script or style either way): one bar per value, the largest reaching the top of a
 * rounded scale; a negative value (a period whose refunds exceed its sales) hangs below
 * the zero line. It is one image to assistive technology (`role="img"`, named by its
 * `<title>`, described by its `<desc>`), each bar carries its own `<title>` (shown on
 * hover), and the screen shows the same numbers in a table beside it.
 */
import './bar-chart.css';

interface Bar {
  /** Unique among the bars (the period's start, say). */
  key: string;
  /** What the bar stands for: "Dec 5, 2026". */
  label: string;
  value: number;
  /** The value in words: "€75.00". */
  valueLabel: string;
}

const WIDTH = 640;
const HEIGHT = 240;
const LEFT = 72;
const RIGHT = 8;
const TOP = 12;
const BOTTOM = 36;

/** The smallest 1, 2 or 5 × 10^n at or above `max` (at least 1): the top of the scale. */
function niceCeiling(max: number): number {
  if (max <= 1) return 1;
  const magnitude = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * magnitude >= max) return step * magnitude;
  return 10 * magnitude;
}

export function BarChart({
  id,
  title,
  description,
  bars,
  formatValue,
}: {
  id: string;
  title: string;
  description: string;
  bars: readonly Bar[];
  /** A value of the scale in words (the axis labels): the same unit as `valueLabel`. */
  formatValue: (value: number) => string;
}) {
  const highest = Math.max(0, ...bars.map((b) => b.value));
  const lowest = Math.min(0, ...bars.map((b) => b.value));
  const top = highest > 0 || lowest === 0 ? niceCeiling(highest) : 0;
  const bottom = lowest < 0 ? -niceCeiling(-lowest) : 0;
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const slot = plotWidth / Math.max(1, bars.length);
  const barWidth = Math.max(1, Math.min(48, slot * 0.8));
  const y = (value: number) => TOP + ((top - value) / (top - bottom)) * plotHeight;
  const ticks = [...new Set(bottom < 0 ? [bottom, 0, top] : [0, top / 2, top])];
  const first = bars[0];
  const last = bars.at(-1);
  return (
    <figure class="bar-chart">
      <svg
        role="img"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-desc`}
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="xMidYMid meet"
      >
        <title id={`${id}-title`}>{title}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {ticks.map((tick) => (
          <g key={tick} class="tick">
            <line x1={LEFT} x2={WIDTH - RIGHT} y1={y(tick)} y2={y(tick)} />
            <text x={LEFT - 6} y={y(tick)} dy="0.32em" text-anchor="end">
              {formatValue(tick)}
            </text>
          </g>
        ))}
        <g class="bars">
          {bars.map((bar, i) => {
            const height = bar.value === 0 ? 0 : Math.max(1, Math.abs(y(bar.value) - y(0)));
            return (
              <rect
                key={bar.key}
                data-key={bar.key}
                x={LEFT + i * slot + (slot - barWidth) / 2}
                y={bar.value >= 0 ? y(0) - height : y(0)}
                width={barWidth}
                height={height}
              >
                <title>{`${bar.label}: ${bar.valueLabel}`}</title>
              </rect>
            );
          })}
        </g>
        {first !== undefined && (
          <text class="axis-label" x={LEFT} y={HEIGHT - 10} text-anchor="start">
            {first.label}
          </text>
        )}
        {last !== undefined && last !== first && (
          <text class="axis-label" x={WIDTH - RIGHT} y={HEIGHT - 10} text-anchor="end">
            {last.label}
          </text>
        )}
      </svg>
    </figure>
  );
}
