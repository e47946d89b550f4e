/**
 * The frame of the pages open without a session (the sign-in and the one-time links of
 * docs/dashboard.md): the console's name, the page's heading, and a way back to the sign-in.
 */
import type { ComponentChildren } from 'preact';
import { useTitle } from '../lib/title.ts';

export function PublicPage({ title, children }: { title: string; children: ComponentChildren }) {
  useTitle(title);
  return (
    <main id="main" class="sign-in">
      <p class="brand">Marquee console</p>
      <h1>{title}</h1>
      {children}
    </main>
  );
}

/** The rules of docs/dashboard.md, "Passwords", said before they are checked. */
export const PASSWORD_HINT = 'At least 12 characters; not a common password and not your e-mail address.';
