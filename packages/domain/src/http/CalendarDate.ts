import { Schema } from "effect"

/** `YYYY-MM-DD` that names a real calendar day. */
export const isCalendarDate = (value: string) => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false
  const date = new Date(`${value}T00:00:00Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value
}

/** A calendar day written `YYYY-MM-DD` (no time, no zone). */
export const CalendarDate = Schema.String.pipe(
  Schema.filter(isCalendarDate, { message: () => "must be a date written YYYY-MM-DD", jsonSchema: { format: "date" } })
)
