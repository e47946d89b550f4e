/** Loading data for a screen: the value, the error, and a reload; stale answers are dropped. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

interface AsyncState<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useAsync<T>(load: () => Promise<T>, deps: readonly unknown[]): AsyncState<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const generation = useRef(0);
  // The caller's deps decide when to load again (as with useEffect).
  const run = useCallback(load, deps);
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true }));
    run().then(
      (data) => mine === generation.current && setState({ data, error: undefined, loading: false }),
      (error: unknown) => mine === generation.current && setState((s) => ({ ...s, error, loading: false })),
    );
  }, [run]);
  useEffect(() => {
    reload();
    return () => {
      generation.current++;
    };
  }, [reload]);
  return { ...state, reload };
}

/**
 * Calls `tick` every `ms` while the page is visible (and once when it becomes visible
 * again): live numbers without polling a hidden tab.
 */
export function usePolling(tick: () => void, ms: number): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | undefined;
    const start = () => {
      if (timer === undefined) timer = setInterval(() => latest.current(), ms);
    };
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible') {
        latest.current();
        start();
      } else stop();
    };
    if (document.visibilityState === 'visible') start();
    document.addEventListener('visibilitychange', onVisibility);
    return () => {
      stop();
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [ms]);
}
