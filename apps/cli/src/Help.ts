import type { AnyCommand, OptionSpec } from "./Command.js"
import { exitCodeTable } from "./ExitCode.js"

const PREFIX = "npm run cli --"
const WIDTH = 110

/** `text` with each line broken at spaces before {@link WIDTH} columns (a continuation keeps the indent). */
const wrap = (text: string) =>
  text.split("\n").flatMap((line) => {
    const indent = /^ */.exec(line)![0]
    const lines: Array<string> = []
    let current = ""
    for (const word of line.trim().split(" ")) {
      if (current !== "" && indent.length + current.length + 1 + word.length > WIDTH) {
        lines.push(indent + current)
        current = word
      } else current = current === "" ? word : `${current} ${word}`
    }
    return [...lines, indent + current]
  }).join("\n")

const optionUsage = (o: OptionSpec) => o.type === "boolean" ? `--${o.name}` : `--${o.name} ${o.value ?? "VALUE"}`

/** `tenant update ID [--name N] ...`: arguments, then required options, then the others in brackets. */
export const synopsis = (c: AnyCommand) =>
  [
    c.name,
    ...c.positionals.map((p) => p.name),
    ...c.options.filter((o) => o.required).map(optionUsage),
    ...c.options.filter((o) => !o.required).map((o) => `[${optionUsage(o)}]`)
  ].join(" ")

/** Two columns: the left padded to its widest cell. */
const columns = (rows: ReadonlyArray<readonly [string, string]>, indent = "  ") => {
  const width = Math.max(...rows.map(([left]) => left.length))
  return rows.map(([left, right]) => `${indent}${left.padEnd(width)}  ${right}`.trimEnd())
}

const JSON_OPTION = [
  "--json",
  "print one JSON document on stdout and nothing else there (errors: {\"errors\": [{code, message, field?}]})"
] as const
const HELP_OPTION = ["-h, --help", "show this text"] as const

const exitLines = (c?: AnyCommand) => {
  const own = new Map(c?.exits ?? [])
  return columns(exitCodeTable.map(([code, meaning]) => [String(code), own.get(code) ?? meaning]))
}

/** `npm run cli -- --help`: every command, the shared options and the exit statuses. */
export const globalHelp = (commands: ReadonlyArray<AnyCommand>) =>
  [
    `Usage: ${PREFIX} <command> [arguments] [options]`,
    "",
    "Commands:",
    ...columns(commands.map((c) => [c.name, c.summary])),
    "",
    "Options of every command:",
    ...columns([JSON_OPTION, ["-h, --help", `show a command's usage, options and examples (${PREFIX} tenant --help)`]]),
    "",
    "Exit status:",
    ...exitLines(),
    "",
    "Environment: DATABASE_URL (unset: the embedded PostgreSQL of DATA_DIR, shared with a running npm start),",
    "LOG_LEVEL (default WARN; logs go to stderr). Progress bars show on stderr when it is a terminal, never with --json."
  ].join("\n")

/** `npm run cli -- tenant --help`: the commands of a group. */
export const groupHelp = (group: string, commands: ReadonlyArray<AnyCommand>) =>
  [
    `Usage: ${PREFIX} ${group} <command> [options]`,
    "",
    "Commands:",
    ...columns(commands.filter((c) => c.name.startsWith(`${group} `)).map((c) => [c.name, c.summary])),
    "",
    `See ${PREFIX} ${group} <command> --help for one command's options, and ${PREFIX} --help for the exit statuses.`
  ].join("\n")

/** `npm run cli -- tenant create --help`: usage, what it does, arguments, options, examples, exit statuses. */
export const commandHelp = (c: AnyCommand) =>
  [
    `Usage: ${PREFIX} ${synopsis(c)}`,
    "",
    c.summary,
    ...(c.details === undefined ? [] : ["", wrap(c.details)]),
    ...(c.positionals.length === 0
      ? []
      : ["", "Arguments:", ...columns(c.positionals.map((p) => [p.name, p.description]))]),
    "",
    "Options:",
    ...columns([
      ...c.options.map((o): readonly [string, string] => [
        optionUsage(o),
        o.required ? `${o.description} (required)` : o.description
      ]),
      JSON_OPTION,
      HELP_OPTION
    ]),
    "",
    "Examples:",
    ...c.examples.map((e) => `  ${PREFIX} ${e}`),
    "",
    "Exit status:",
    ...exitLines(c)
  ].join("\n")
