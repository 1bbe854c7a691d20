import { brandCheck, type CgErrorOptions, cgErrorWithDetails } from "@cg/schema/core";

export type ComparisonInputErrorCode =
  /** A `--fail-on` rule that does not parse. */
  | "bad_rule"
  /** A rule whose span or op selector names nothing in either trace. */
  | "rule_matches_nothing"
  /** A comparison side built without attribution inputs. */
  | "no_attribution_inputs"
  /** The attribution's parts do not add up (a bug, never expected). */
  | "attribution_sum"
  /** More distinct span paths and signatures than the attribution's numeric keys can tell apart (about 54 million). */
  | "attribution_size";

export interface ComparisonInputErrorOptions extends CgErrorOptions {
  code: ComparisonInputErrorCode;
  /** The rule's text, for rule errors. */
  rule?: string | undefined;
  /** 1-based position of the rule in the rule list. */
  ruleIndex?: number | undefined;
  /** 1-based character of the whole rule list where parsing failed. */
  column?: number | undefined;
}

/** Bad input to a comparison's gate or attribution; the message says what and where. */
export class ComparisonInputError extends cgErrorWithDetails<ComparisonInputErrorOptions>() {
  override readonly name = "ComparisonInputError";
  static override isInstance = brandCheck<ComparisonInputError>("ComparisonInputError");
}
