import { NodeRuntime } from "@effect/platform-node"
import {
  ApiKeysService,
  AppConfig,
  CorePlatformLive,
  DeliveriesService,
  EmbeddedPostgresError,
  FeatureJobsLive,
  JobsOperator,
  PartnersService,
  ServicesLive,
  SqlLive
} from "@timebank/server"
import { Cause, Config, ConfigProvider, Console, Effect, Either, Exit, Layer, Logger, LogLevel, Option } from "effect"
import { type Invocation, parseInvocation, type UsageError } from "./Arguments.js"
import type { AnyCommand, Output } from "./Command.js"
import { federationCommands } from "./commands/federation.js"
import { jobsList, jobsRun } from "./commands/jobs.js"
import { ledgerVerify } from "./commands/ledger.js"
import { migrate } from "./commands/migrate.js"
import { pushVapidKeys } from "./commands/push.js"
import { seedDemo } from "./commands/seed.js"
import { tenantCreate, tenantList, tenantUpdate } from "./commands/tenant.js"
import { userCreate } from "./commands/user.js"
import { errorEntries, errorLine, isCommandError } from "./Render.js"

const commands: ReadonlyArray<AnyCommand> = [
  migrate,
  seedDemo,
  tenantCreate,
  tenantList,
  tenantUpdate,
  userCreate,
  ledgerVerify,
  pushVapidKeys,
  jobsList,
  jobsRun,
  ...federationCommands
]

const commandUsage = (c: AnyCommand) => {
  const synopsis = c.synopsis.replaceAll("\n", `\n${" ".repeat(c.name.length + 3)}`)
  return `  ${c.name} ${synopsis}`.trimEnd() + `\n      ${c.summary}`
}

const usage = [
  "Usage: npm run cli -- <command> [--json]",
  "",
  "Commands:",
  ...commands.map(commandUsage),
  "",
  "Options:",
  "  --json      print one JSON document on stdout; errors as {\"errors\": [{code, message, field?}]}",
  "  -h, --help  show this text",
  "",
  "--features takes {\"<feature>\": true|false}, --settings takes {\"<setting>\": value} (decisions D3).",
  "Exit status: 0 done, 1 refused or failed, 2 bad command line."
].join("\n")

/**
 * Only `migrate` needs the database unmigrated: the platform migrates while it starts. With DATABASE_URL unset, a
 * command shares the embedded PostgreSQL of DATA_DIR (EmbeddedPostgresRole's default): the one a running `npm start`
 * serves (its URL is in DATA_DIR/database-url), else one it starts for itself and stops when done.
 */
const DatabaseOnly = SqlLive.pipe(Layer.provide(AppConfig.Default))
const Services = ServicesLive.pipe(Layer.provide(CorePlatformLive))
// Federation's services need the secrets key (SecretBox, made in DATA_DIR when unset); one that cannot be read stops
// the command. None of them needs the cluster: a retried delivery goes out over node:http from this process.
const FederationServices = Layer.mergeAll(
  ServicesLive,
  Layer.orDie(Layer.mergeAll(ApiKeysService.Default, PartnersService.Default, DeliveriesService.Default))
).pipe(Layer.provide(CorePlatformLive))

// Every feature's jobs, registered in this process's registry, and their runner (no cluster: runs happen here).
const JobsServices = Layer.merge(JobsOperator.Default, FeatureJobsLive).pipe(
  Layer.provideMerge(ServicesLive),
  Layer.provide(CorePlatformLive)
)

const execute = (invocation: Extract<Invocation, { _tag: "Run" }>): Effect.Effect<Output, unknown> => {
  const { command, flags, positionals } = invocation
  return command.needs === "none"
    ? command.run(positionals, flags)
    : command.needs === "database"
    ? Effect.provide(command.run(positionals, flags), DatabaseOnly)
    : command.needs === "federation"
    ? Effect.provide(command.run(positionals, flags), FederationServices)
    : command.needs === "jobs"
    ? Effect.provide(command.run(positionals, flags), JobsServices)
    : Effect.provide(command.run(positionals, flags), Services)
}

const printJson = (document: unknown) => Console.log(JSON.stringify(document, null, 2))

const reportFailure = (cause: Cause.Cause<unknown>, json: boolean) => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && isCommandError(failure.value)) {
    const errors = errorEntries(failure.value)
    return json ? printJson({ errors }) : Effect.forEach(errors, (e) => Console.error(errorLine(e)), { discard: true })
  }
  // No database to work on, for a reason the operator can fix: one line that says what to set.
  if (Option.isSome(failure) && failure.value instanceof EmbeddedPostgresError) {
    const unavailable = { code: "DATABASE_UNAVAILABLE", message: failure.value.message }
    return Effect.zipRight(
      Console.error(errorLine(unavailable)),
      json ? printJson({ errors: [unavailable] }) : Effect.void
    )
  }
  const internal = { code: "INTERNAL_ERROR", message: "unexpected failure, details on stderr" }
  return Effect.all([
    Console.error(errorLine(internal)),
    Console.error(Cause.pretty(cause)),
    json ? printJson({ errors: [internal] }) : Effect.void
  ], { discard: true })
}

const run = (invocation: Extract<Invocation, { _tag: "Run" }>) =>
  execute(invocation).pipe(
    Effect.matchCauseEffect({
      onSuccess: (output) =>
        Effect.as(invocation.json ? printJson(output.json) : Console.log(output.text), output.exitCode ?? 0),
      onFailure: (cause) => Effect.as(reportFailure(cause, invocation.json), 1)
    })
  )

const refuse = (error: UsageError) =>
  Effect.gen(function*() {
    yield* Console.error(`error: ${error.message}\n\n${usage}`)
    if (error.json) yield* printJson({ errors: [{ code: "USAGE_ERROR", message: error.message }] })
    return 2
  })

const program = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  Either.match(parseInvocation(argv, commands), {
    onLeft: refuse,
    onRight: (invocation) => invocation._tag === "Help" ? Effect.as(Console.log(usage), 0) : run(invocation)
  })

const exitCode = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.match(exit, {
    onSuccess: (code) => (typeof code === "number" ? code : 0),
    onFailure: (cause) => (Cause.isInterruptedOnly(cause) ? 130 : 1)
  })

// stdout carries results only: logs go to stderr, and below warnings only when LOG_LEVEL asks for them.
const CliConfig = Layer.setConfigProvider(
  ConfigProvider.fromEnv().pipe(ConfigProvider.orElse(() => ConfigProvider.fromMap(new Map([["LOG_LEVEL", "WARN"]]))))
)
const CliLogging = Layer.merge(
  Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true })),
  Layer.unwrapEffect(
    Effect.map(Config.logLevel("LOG_LEVEL").pipe(Effect.orElseSucceed(() => LogLevel.Warning)), Logger.minimumLogLevel)
  )
).pipe(Layer.provide(CliConfig))

// A closed terminal (SIGHUP) interrupts as Ctrl-C does, so an embedded PostgreSQL the command started stops too.
process.once("SIGHUP", () => process.kill(process.pid, "SIGTERM"))

program(process.argv.slice(2)).pipe(
  Effect.provide(Layer.merge(CliLogging, CliConfig)),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(exitCode(exit))
  })
)
