// The head every page of this package opens with: offline (nothing may be fetched; the page's
// Content-Security-Policy says what may run), light and dark, and its own style inline.
import { escapeHtml } from "./escape-html.js";

/** From `<!doctype html>` to `<body>`, as lines; `scriptSource` is the CSP source list for scripts, if any run. */
export function pageHead(title: string, style: string, scriptSource?: string): string[] {
  const scripts = scriptSource === undefined ? "" : `; script-src ${scriptSource}`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'${scripts}">`,
    '<meta name="color-scheme" content="light dark">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${style}</style>`,
    "</head>",
    "<body>",
  ];
}
