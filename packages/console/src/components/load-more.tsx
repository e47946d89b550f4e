/** The foot of a paged list: why the last page failed to load, if it did, and the button for the next. */
import { ErrorNotice } from './error-notice.tsx';

export function LoadMore({
  hasMore,
  error,
  onLoad,
}: {
  hasMore: boolean;
  error: unknown;
  onLoad: () => Promise<void>;
}) {
  return (
    <>
      <ErrorNotice error={error} />
      {hasMore && (
        <button type="button" class="secondary" onClick={() => void onLoad()}>
          Load more
        </button>
      )}
    </>
  );
}
