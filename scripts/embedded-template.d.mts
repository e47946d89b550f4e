/** The template's directory, relative to the project root. */
export const TEMPLATE_DIR: string;
/** True when the template exists and was made by the installed PGlite (or PGlite is not installed). */
export function templateIsCurrent(root: string): boolean;
