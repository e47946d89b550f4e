/**
 * A secret shown once: the API never answers it again (a webhook's signing secret,
 * docs/webhooks.md; an API key, docs/dashboard.md, "Developer settings"). With `copyable`,
 * a button copies it to the clipboard.
 */
import { useState } from 'preact/hooks';

export function SecretNotice({
  secret,
  label = 'Signing secret',
  note = 'copy it now, it is not shown again.',
  copyable = false,
}: {
  secret: string;
  label?: string;
  note?: string;
  copyable?: boolean;
}) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('Copied.');
    } catch {
      setCopied('Could not copy: select the text and copy it.');
    }
  };
  return (
    <div class="notice ok" role="status">
      <p>
        <strong>{label}</strong>: {note}
      </p>
      <p class="secret" data-testid="secret">
        {secret}
      </p>
      {copyable && (
        <p>
          <button type="button" class="secondary" onClick={() => void copy()}>
            Copy to clipboard
          </button>{' '}
          <span>{copied}</span>
        </p>
      )}
    </div>
  );
}
