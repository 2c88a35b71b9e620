const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?Z?)?$/;

/** Parses an ISO-8601 date or date-time (UTC) as sent by the storefront. */
export function parse(text: string): Date {
  const match = ISO_DATE.exec(text.trim());
  if (match === null) {
    throw new RangeError(`not an ISO-8601 date: ${text}`);
  }
  const [, y, m, d, hh = "0", mm = "0", ss = "0"] = match;
  return new Date(Date.UTC(+y, +m - 1, +d, +hh, +mm, +ss));
}

export function formatDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
