/** Trace tensor id of a tfjs tensor: its engine id (unique per process, never reused), prefixed. */
export function tensorLabel(tensorId: number): string {
  return `t${tensorId}`;
}
