// `meta.timestamp` (spec §14): YYYY-MM-DDTHH:MM:SS.mmmZ, proleptic Gregorian, milliseconds truncated.

const MS_PER_DAY = 86_400_000;
/** 0000-01-01T00:00:00.000Z and 10000-01-01T00:00:00.000Z in Unix milliseconds. */
const MIN_EPOCH_MS = -62_167_219_200_000;
const END_EPOCH_MS = 253_402_300_800_000;

function pad(value: number, width: number): string {
  return String(value).padStart(width, "0");
}

/** Civil date of a day count since 1970-01-01 (Hinnant's days-to-civil, exact for the whole range). */
function civilFromDays(days: number): { year: number; month: number; day: number } {
  const shifted = days + 719_468;
  const era = Math.floor(shifted / 146_097);
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/**
 * UTC time as `YYYY-MM-DDTHH:MM:SS.mmmZ` (spec §14). `epochMs` defaults to `Date.now()`; a fractional
 * value is truncated towards the past (999.9 ms → `.999`), never rounded. Years 0–9999 only.
 * @throws RangeError outside 0000-01-01 … 9999-12-31T23:59:59.999Z or for a non-finite value.
 */
export function utcTimestamp(epochMs: number = Date.now()): string {
  if (typeof epochMs !== "number" || !Number.isFinite(epochMs)) {
    throw new RangeError(
      `utcTimestamp: epochMs must be a finite number of milliseconds, got ${String(epochMs)}`,
    );
  }
  const milliseconds = Math.floor(epochMs);
  if (milliseconds < MIN_EPOCH_MS || milliseconds >= END_EPOCH_MS) {
    throw new RangeError(
      `utcTimestamp: ${epochMs} ms since 1970 is outside years 0000-9999 (${MIN_EPOCH_MS} ≤ ms < ${END_EPOCH_MS})`,
    );
  }
  const days = Math.floor(milliseconds / MS_PER_DAY);
  const msOfDay = milliseconds - days * MS_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  const hours = Math.floor(msOfDay / 3_600_000);
  const minutes = Math.floor(msOfDay / 60_000) % 60;
  const seconds = Math.floor(msOfDay / 1000) % 60;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}.${pad(msOfDay % 1000, 3)}Z`;
}
