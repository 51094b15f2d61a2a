/**
 * RFC 4180 CSV, pure: a field holding a comma, a double quote, CR or LF is quoted and its quotes doubled; every
 * record ends with CRLF. Numbers are written as JavaScript writes them (`2.5`), dates as ISO 8601 UTC, `null`
 * as an empty field.
 */
export type CsvValue = string | number | Date | null

const NEEDS_QUOTES = /[",\r\n]/

export const csvField = (value: CsvValue): string => {
  if (value === null) return ""
  const text = value instanceof Date ? value.toISOString() : String(value)
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll("\"", "\"\"")}"` : text
}

/** One record, CRLF included. */
export const csvRecord = (values: ReadonlyArray<CsvValue>): string => `${values.map(csvField).join(",")}\r\n`

/** Several records as one string (a chunk of a streamed file). */
export const csvRecords = (records: ReadonlyArray<ReadonlyArray<CsvValue>>): string => {
  let text = ""
  for (const record of records) text += csvRecord(record)
  return text
}
