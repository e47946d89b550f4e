/** Column headers the console's tables share (docs/console.md, "Money and dates"). */
import type { ComponentChildren } from 'preact';

/** The header of a column of figures (counts, amounts): right-aligned like its cells. */
export function NumCol({ children }: { children: ComponentChildren }) {
  return (
    <th scope="col" class="num">
      {children}
    </th>
  );
}

/** The header of a row's buttons: named for screen readers, not shown. */
export function ActionsCol() {
  return (
    <th scope="col">
      <span class="visually-hidden">Actions</span>
    </th>
  );
}
