/**
 * The keyboard's focus on what an action did, or on why it was refused: each new outcome
 * (`outcome` changes while `shown`) moves it to the returned element, so a screen reader
 * reads the line out. It moves in a layout effect, in the same commit as the line and
 * before the browser paints: the line never shows without the focus on it.
 */
import { useLayoutEffect, useRef } from 'preact/hooks';

export function useOutcomeFocus(outcome: unknown, shown: boolean) {
  const element = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    if (shown) element.current?.focus();
  }, [outcome, shown]);
  return element;
}
