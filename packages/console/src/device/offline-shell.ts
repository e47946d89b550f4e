/**
 * Registers the console's service worker (docs/console.md, "Offline shell") so a door
 * device can load /app/device again with no network (docs/door.md, "Offline start").
 * A browser without service workers, or a failed registration, only loses that: the
 * device app works online as before, so the failure is logged, never thrown.
 */
export function registerOfflineShell(): void {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register('/app/service-worker.js', { scope: '/app/' }).catch((err: unknown) => {
    console.warn('The door device cannot load offline: its service worker was not registered.', err);
  });
}
