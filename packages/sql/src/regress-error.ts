import { brandCheck, type CgErrorOptions, cgErrorWithDetails } from "@cg/schema/core";

export type RegressErrorCode = "too_few_runs" | "not_comparable" | "missing_order_tag" | "bad_option";

export interface RegressErrorOptions extends CgErrorOptions {
  code: RegressErrorCode;
  /** For `too_few_runs`: the runs a verdict needs, and the usable runs there are. */
  needed?: number;
  available?: number;
}

/** A fleet on which no verdict can be given: too few runs, runs that are not comparable, bad windows. */
export class RegressError extends cgErrorWithDetails<RegressErrorOptions>() {
  override readonly name = "RegressError";
  static override isInstance = brandCheck<RegressError>("RegressError");
}
