/** A signing secret, shown once: the API never answers it again (docs/webhooks.md). */
export function SecretNotice({ secret }: { secret: string }) {
  return (
    <div class="notice ok" role="status">
      <p>
        <strong>Signing secret</strong>: copy it now, it is not shown again.
      </p>
      <p class="secret" data-testid="secret">
        {secret}
      </p>
    </div>
  );
}
