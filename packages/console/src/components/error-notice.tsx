/**
 * An error from the API as a person can act on it: the problem's `detail` and the request
 * id to quote to support (the SDK's MarqueeApiError carries both; docs/sdk.md, "Errors").
 */
import { MarqueeApiError, MarqueeConnectionError } from '@marquee/sdk';

function describeError(error: unknown): { detail: string; requestId: string | undefined } {
  if (error instanceof MarqueeApiError) return { detail: error.detail, requestId: error.requestId };
  if (error instanceof MarqueeConnectionError)
    return { detail: `No answer from Marquee: ${error.message}`, requestId: undefined };
  return { detail: error instanceof Error ? error.message : String(error), requestId: undefined };
}

export function ErrorNotice({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const { detail, requestId } = describeError(error);
  return (
    <div class="notice error" role="alert">
      <p>{detail}</p>
      {requestId !== undefined && (
        <p class="request-id">
          Request id: <code>{requestId}</code>
        </p>
      )}
    </div>
  );
}
