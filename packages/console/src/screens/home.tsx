/** `/app/`: the first screen of the navigation the role has (the events, or the door); an unknown /app path says so. */
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { useSession } from '../lib/session.ts';
import { useTitle } from '../lib/title.ts';
import { navigationOf } from '../routes.tsx';

export function Home() {
  const { route } = useLocation();
  const { can } = useSession();
  const first = navigationOf(can)[0]?.path ?? '/app/profile';
  useEffect(() => route(first, true), [route, first]);
  return null;
}

export function NotFound() {
  useTitle('Not found');
  const { can } = useSession();
  const first = navigationOf(can)[0];
  return (
    <>
      <h1>Not found</h1>
      <p>
        There is no such screen for your role.{' '}
        {first ? (
          <a href={first.path}>Go to {first.nav?.toLowerCase()}</a>
        ) : (
          <a href="/app/profile">Go to your profile</a>
        )}
        .
      </p>
    </>
  );
}
