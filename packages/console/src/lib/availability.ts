/** Live availability of performances: read now, then every few seconds while the page is visible. */
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Availability, Marquee } from '@marquee/sdk';
import { usePolling } from './use-async.ts';

/** How often the numbers refresh on their own (docs/console.md, "Events"). */
const AVAILABILITY_REFRESH_MS = 5000;

export function useAvailability(client: Marquee, performanceIds: readonly string[]) {
  const [byPerformance, setByPerformance] = useState<Record<string, Availability>>({});
  const [error, setError] = useState<unknown>();
  const [refreshedAt, setRefreshedAt] = useState<Date | undefined>();
  const ids = performanceIds.join(',');
  const refresh = useCallback(() => {
    if (ids === '') return;
    Promise.all(ids.split(',').map((id) => client.performances.availability(id))).then(
      (all) => {
        setByPerformance(Object.fromEntries(all.map((a) => [a.performance_id, a])));
        setError(undefined);
        setRefreshedAt(new Date());
      },
      (err: unknown) => setError(err),
    );
  }, [client, ids]);
  // The first read at once (and whenever the performances change), the next ones on the timer.
  useEffect(refresh, [refresh]);
  usePolling(refresh, AVAILABILITY_REFRESH_MS);
  return { byPerformance, error, refreshedAt, refresh };
}
