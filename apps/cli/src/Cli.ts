import { SqlError } from "@effect/sql/SqlError"
import { EmbeddedPostgresError } from "@timebank/server"
import { Cause, Effect, Either, Option } from "effect"
import { type Invocation, parseInvocation, type UsageError } from "./Arguments.js"
import type { AnyCommand, Output } from "./Command.js"
import { federationCommands } from "./commands/federation.js"
import { jobsCommands } from "./commands/jobs.js"
import { ledgerCommands } from "./commands/ledger.js"
import { migrateCommands } from "./commands/migrate.js"
import { pushCommands } from "./commands/push.js"
import { reportCommands } from "./commands/report.js"
import { seedCommands } from "./commands/seed.js"
import { tenantCommands } from "./commands/tenant.js"
import { userCommands } from "./commands/user.js"
import { ExitCode } from "./ExitCode.js"
import { commandHelp, globalHelp, groupHelp } from "./Help.js"
import { CommandLayers } from "./Layers.js"
import { Progress, progressOn } from "./Progress.js"
import { errorEntries, errorExitCode, errorLine, isCommandError } from "./Render.js"
import { Terminal } from "./Terminal.js"

export const commands: ReadonlyArray<AnyCommand> = [
  ...migrateCommands,
  ...seedCommands,
  ...tenantCommands,
  ...userCommands,
  ...ledgerCommands,
  ...reportCommands,
  ...jobsCommands,
  ...pushCommands,
  ...federationCommands
]

type Run = Extract<Invocation, { _tag: "Run" }>

const execute = ({ command, flags, positionals }: Run): Effect.Effect<Output, unknown, Terminal | Progress> => {
  switch (command.needs) {
    case "none":
      return command.run(positionals, flags)
    case "database":
      return Effect.provide(command.run(positionals, flags), CommandLayers.database)
    case "services":
      return Effect.provide(command.run(positionals, flags), CommandLayers.services)
    case "federation":
      return Effect.provide(command.run(positionals, flags), CommandLayers.federation)
    case "jobs":
      return Effect.provide(command.run(positionals, flags), CommandLayers.jobs)
  }
}

const printJson = (document: unknown) => Effect.flatMap(Terminal, (t) => t.out(JSON.stringify(document, null, 2)))
const printErr = (line: string) => Effect.flatMap(Terminal, (t) => t.err(line))

/**
 * The database could not be had: the embedded one would not start, or the server at DATABASE_URL refused the
 * connection (services turn any later SQL failure into a defect, so a failing SqlError is the connection).
 */
const databaseUnavailable = (error: unknown) => {
  if (error instanceof EmbeddedPostgresError) {
    return Option.some({ code: "DATABASE_UNAVAILABLE", message: error.message })
  }
  if (!(error instanceof SqlError)) return Option.none()
  const reason = error.cause instanceof Error ? `: ${error.cause.message}` : ""
  return Option.some({ code: "DATABASE_UNAVAILABLE", message: `${error.message}${reason} (check DATABASE_URL)` })
}

/** Tells what went wrong (stderr; with `--json` also as the error envelope on stdout) and picks the exit status. */
const reportFailure = (cause: Cause.Cause<unknown>, json: boolean) =>
  Effect.gen(function*() {
    const failure = Cause.failureOption(cause)
    if (Option.isSome(failure) && isCommandError(failure.value)) {
      const errors = errorEntries(failure.value)
      if (json) yield* printJson({ errors })
      else yield* Effect.forEach(errors, (e) => printErr(errorLine(e)), { discard: true })
      return errorExitCode(failure.value)
    }
    // No database to work on, for a reason the operator can fix: one line that says what to set.
    const unavailable = Option.flatMap(failure, databaseUnavailable)
    const entry = Option.getOrElse(
      unavailable,
      () => ({ code: "INTERNAL_ERROR", message: "unexpected failure, details on stderr" })
    )
    yield* printErr(errorLine(entry))
    if (Option.isNone(unavailable)) yield* printErr(Cause.pretty(cause))
    if (json) yield* printJson({ errors: [entry] })
    return ExitCode.failed
  })

const run = (invocation: Run) =>
  Effect.flatMap(Terminal, (terminal) =>
    execute(invocation).pipe(
      // Bars only for people: never with --json, and only where stderr is a terminal.
      Effect.provideService(Progress, progressOn(invocation.json ? undefined : terminal.progressStream)),
      Effect.matchCauseEffect({
        onSuccess: (output) =>
          Effect.as(
            invocation.json
              ? printJson(output.json)
              : output.text === undefined
              ? Effect.void
              : terminal.out(output.text),
            output.exitCode ?? ExitCode.ok
          ),
        onFailure: (cause) => reportFailure(cause, invocation.json)
      })
    ))

/** One line that says what is wrong and one that says where to look (stderr), exit 2. */
const refuse = (error: UsageError) =>
  Effect.gen(function*() {
    yield* printErr(`error: ${error.message}`)
    yield* printErr(`hint: ${error.hint}`)
    if (error.json) yield* printJson({ errors: [{ code: "USAGE_ERROR", message: error.message }] })
    return ExitCode.usage
  })

const help = (text: string) => Effect.as(Effect.flatMap(Terminal, (t) => t.out(text)), ExitCode.ok)

/** The CLI: runs the command line `argv` and answers its exit status. */
export const cli = (argv: ReadonlyArray<string>): Effect.Effect<number, never, Terminal> =>
  Either.match(parseInvocation(argv, commands), {
    onLeft: refuse,
    onRight: (invocation) => {
      switch (invocation._tag) {
        case "Help":
          return help(globalHelp(commands))
        case "GroupHelp":
          return help(groupHelp(invocation.group, commands))
        case "CommandHelp":
          return help(commandHelp(invocation.command))
        case "Run":
          return run(invocation)
      }
    }
  })
