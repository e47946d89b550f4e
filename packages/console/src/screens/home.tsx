/** `/app/`: the events list is home; an unknown /app path says so. */
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useTitle } from '../lib/title.ts';

export function Home() {
  const { route } = useLocation();
  useEffect(() => route('/app/events', true), [route]);
  return null;
}

export function NotFound() {
  useTitle('Not found');
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is no such screen for this key. <a href="/app/events">Go to the events</a>.
      </p>
    </>
  );
}
