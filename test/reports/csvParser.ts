/**
 * A small RFC 4180 parser for the tests: records separated by CRLF (LF accepted), fields by commas, a quoted field
 * may hold commas, CR, LF and doubled quotes. Incremental: `push` text as it arrives (any split, even inside a
 * quoted field or between CR and LF), each complete record goes to `onRecord`; `end` finishes the last one. A
 * stray quote inside an unquoted field, or text after a closing quote, is an error: the exports must be strict.
 */
export class CsvParser {
  private field = ""
  private record: Array<string> = []
  private quoted = false
  private inQuotes = false
  /** A quote seen inside a quoted field: either a doubled quote or the field's end, decided by the next char. */
  private quotePending = false
  private crPending = false
  private started = false

  constructor(private readonly onRecord: (record: ReadonlyArray<string>) => void) {}

  push(text: string): void {
    for (const ch of text) this.char(ch)
  }

  end(): void {
    if (this.inQuotes && !this.quotePending) throw new Error("CSV ends inside a quoted field")
    this.quotePending = false
    this.inQuotes = false
    if (this.crPending) throw new Error("CSV ends with a lone CR")
    if (this.started) this.finishRecord()
  }

  private char(ch: string): void {
    if (this.crPending) {
      if (ch !== "\n") throw new Error("CR not followed by LF outside a quoted field")
      this.crPending = false
      this.finishRecord()
      return
    }
    if (this.quotePending) {
      this.quotePending = false
      if (ch === "\"") {
        this.field += "\""
        return
      }
      this.inQuotes = false
    }
    if (this.inQuotes) {
      if (ch === "\"") this.quotePending = true
      else this.field += ch
      return
    }
    this.started = true
    if (ch === ",") {
      this.finishField()
    } else if (ch === "\r") {
      this.crPending = true
    } else if (ch === "\n") {
      this.finishRecord()
    } else if (ch === "\"") {
      if (this.field !== "" || this.quoted) throw new Error(`stray quote in field ${JSON.stringify(this.field)}`)
      this.quoted = true
      this.inQuotes = true
    } else {
      if (this.quoted) throw new Error(`text after a closing quote: ${JSON.stringify(ch)}`)
      this.field += ch
    }
  }

  private finishField(): void {
    this.record.push(this.field)
    this.field = ""
    this.quoted = false
  }

  private finishRecord(): void {
    this.finishField()
    this.onRecord(this.record)
    this.record = []
    this.started = false
  }
}

/** Every record of a whole CSV text. */
export const parseCsv = (text: string): ReadonlyArray<ReadonlyArray<string>> => {
  const records: Array<ReadonlyArray<string>> = []
  const parser = new CsvParser((record) => records.push(record))
  parser.push(text)
  parser.end()
  return records
}

/** The records of a CSV as objects keyed by its header row (which must be `header`). */
export const csvObjects = (text: string, header: ReadonlyArray<string>): ReadonlyArray<Record<string, string>> => {
  const [first, ...rows] = parseCsv(text)
  if (JSON.stringify(first) !== JSON.stringify(header)) {
    throw new Error(`header ${JSON.stringify(first)} is not ${JSON.stringify(header)}`)
  }
  return rows.map((row) => {
    if (row.length !== header.length) throw new Error(`record of ${row.length} fields: ${JSON.stringify(row)}`)
    return Object.fromEntries(header.map((name, i) => [name, row[i]!]))
  })
}
