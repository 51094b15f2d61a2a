import { Email, type ImportRowError, PersonName, Role } from "@timebank/domain"
import { Either, ParseResult, Schema } from "effect"

/** Columns of the import file; `role` may be left out (or empty) and then means `member`. */
export const IMPORT_COLUMNS = ["email", "first_name", "last_name", "role"] as const
export const IMPORT_REQUIRED_COLUMNS = ["email", "first_name", "last_name"] as const
export const IMPORT_TEMPLATE = `${IMPORT_COLUMNS.join(",")}\r\n`
/** More rows than this in one file are refused as a whole: split the file. */
export const IMPORT_MAX_ROWS = 1000

/** A CSV record and the line of the file it starts on (1-based; the header is line 1). */
export interface CsvRecord {
  readonly line: number
  readonly fields: ReadonlyArray<string>
}

/**
 * Parses RFC 4180 CSV: comma separated, fields optionally in double quotes (`""` is a quote inside them, and
 * they may span lines), CRLF or LF line ends, an optional UTF-8 byte order mark. Lines with only empty fields are
 * skipped.
 * Fails with a message on a quote that is never closed or stray text after a closing quote.
 */
export const parseCsv = (text: string): Either.Either<ReadonlyArray<CsvRecord>, string> => {
  const input = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  const records: Array<CsvRecord> = []
  let fields: Array<string> = []
  let field = ""
  let line = 1
  let recordLine = 1
  let i = 0
  const endRecord = () => {
    fields.push(field)
    // Spreadsheets write empty rows as ",,,"; they are not records.
    if (fields.some((f) => f.trim() !== "")) records.push({ line: recordLine, fields })
    fields = []
    field = ""
  }
  while (i < input.length) {
    const c = input[i]!
    if (c === "\"" && field.trim() === "") {
      const quoteLine = line
      field = ""
      i++
      for (;;) {
        if (i >= input.length) return Either.left(`line ${quoteLine}: a quoted field is never closed`)
        const q = input[i]!
        if (q === "\"") {
          if (input[i + 1] === "\"") {
            field += "\""
            i += 2
            continue
          }
          i++
          break
        }
        if (q === "\n") line++
        field += q
        i++
      }
      while (input[i] === " " || input[i] === "\t") i++
      const next = input[i]
      if (next !== undefined && next !== "," && next !== "\n" && next !== "\r") {
        return Either.left(`line ${line}: unexpected text after a closing quote`)
      }
      continue
    }
    if (c === ",") {
      fields.push(field)
      field = ""
    } else if (c === "\r" || c === "\n") {
      endRecord()
      if (c === "\r" && input[i + 1] === "\n") i++
      line++
      recordLine = line
    } else {
      field += c
    }
    i++
  }
  if (field !== "" || fields.length > 0) endRecord()
  return Either.right(records)
}

/** A row that passed every check and may be created. */
export interface ImportCandidate {
  readonly row: number
  readonly email: string
  readonly firstName: string
  readonly lastName: string
  readonly role: Role
}

export interface ImportPlan {
  readonly candidates: ReadonlyArray<ImportCandidate>
  readonly errors: ReadonlyArray<ImportRowError>
}

const fieldProblem = <A, I>(schema: Schema.Schema<A, I>, value: unknown) =>
  Either.mapLeft(
    Schema.decodeUnknownEither(schema)(value),
    (error) => ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "is not valid"
  )

/**
 * Checks an import file row by row: the header must name the required columns (any order, any case; unknown
 * columns are ignored), each row needs a valid e-mail, first and last name, and an optional known role. An e-mail
 * that appears twice in the file is refused on its later rows. Whether e-mails already exist in the community is
 * for the caller to check.
 *
 * Fails (the whole file is refused) with a message when the file is not CSV, has no header, lacks a required
 * column, has no rows, or has more than `IMPORT_MAX_ROWS` rows.
 */
export const planImport = (text: string): Either.Either<ImportPlan, string> =>
  Either.flatMap(parseCsv(text), (records) => {
    const [header, ...rows] = records
    if (header === undefined) return Either.left("the file is empty; the first line must be the header row")
    const names = header.fields.map((name) => name.trim().toLowerCase())
    const missing = IMPORT_REQUIRED_COLUMNS.filter((column) => !names.includes(column))
    if (missing.length > 0) return Either.left(`the header row lacks the column(s) ${missing.join(", ")}`)
    if (rows.length === 0) return Either.left("the file has a header but no rows")
    if (rows.length > IMPORT_MAX_ROWS) {
      return Either.left(`the file has ${rows.length} rows; at most ${IMPORT_MAX_ROWS} are accepted at once`)
    }
    const column = (name: string) => names.indexOf(name)
    const at = (record: CsvRecord, name: string) => {
      const index = column(name)
      return index < 0 ? "" : (record.fields[index] ?? "")
    }
    const candidates: Array<ImportCandidate> = []
    const errors: Array<ImportRowError> = []
    const seen = new Map<string, number>()
    for (const record of rows) {
      const rowErrors: Array<ImportRowError> = []
      const check = <A, I>(field: string, schema: Schema.Schema<A, I>, value: string): A | undefined =>
        Either.match(fieldProblem(schema, value), {
          onLeft: (message) => {
            rowErrors.push({ row: record.line, field, message })
            return undefined
          },
          onRight: (a) => a
        })
      const email = check("email", Email, at(record, "email"))
      const firstName = check("first_name", PersonName, at(record, "first_name"))
      const lastName = check("last_name", PersonName, at(record, "last_name"))
      const roleText = at(record, "role").trim().toLowerCase()
      const role = roleText === "" ? "member" : check("role", Role, roleText)
      if (email !== undefined) {
        const earlier = seen.get(email.toLowerCase())
        if (earlier !== undefined) {
          rowErrors.push({ row: record.line, field: "email", message: `repeats the e-mail of line ${earlier}` })
        } else {
          seen.set(email.toLowerCase(), record.line)
        }
      }
      if (rowErrors.length > 0 || email === undefined || !firstName || !lastName || !role) {
        errors.push(...rowErrors)
      } else {
        candidates.push({ row: record.line, email, firstName, lastName, role })
      }
    }
    return Either.right({ candidates, errors })
  })
