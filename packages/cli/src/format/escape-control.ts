// Control characters in a path or a name would let a crafted file name move the cursor, recolour
// the terminal or start a new line that forges output (a fake "valid, trusted" line). Everything
// printed that came from outside goes through here.

// C0 controls, DEL, C1 controls, and the bidirectional overrides and isolates that reorder text.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

function escapeOne(character: string): string {
  const named = NAMED[character];
  if (named !== undefined) return named;
  const code = character.charCodeAt(0);
  return code <= 0xff
    ? `\\x${code.toString(16).padStart(2, "0")}`
    : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** `text` with every control character written as a visible escape (`\n`, `\x1b`, `\u202e`). */
export function escapeControl(text: string): string {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text) ? text.replace(CONTROL, escapeOne) : text;
}

// The colour codes of format/style.ts: SGR sequences only, which can colour but not move or clear.
const SGR = /(\u001b\[[0-9;]*m)/;

/** Like escapeControl, but keeps colour (SGR) sequences: for table cells that may be styled. */
export function escapeControlKeepingColour(text: string): string {
  if (!text.includes("\u001b")) return escapeControl(text);
  return text
    .split(SGR)
    .map((part, index) => (index % 2 === 1 ? part : escapeControl(part)))
    .join("");
}
