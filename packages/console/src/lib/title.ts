/** The document title of a screen, so a screen reader and the tab bar say where one is. */
import { useEffect } from 'preact/hooks';

export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Marquee console`;
  }, [title]);
}
