/** ANSI styling that collapses to plain text when colour is off (NO_COLOR, pipes). */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  good(text: string): string;
  bad(text: string): string;
  warn(text: string): string;
}

function wrap(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

const identity = (text: string): string => text;

export function createStyle(color: boolean): Style {
  if (!color) return { bold: identity, dim: identity, good: identity, bad: identity, warn: identity };
  return { bold: wrap(1, 22), dim: wrap(2, 22), good: wrap(32, 39), bad: wrap(31, 39), warn: wrap(33, 39) };
}
