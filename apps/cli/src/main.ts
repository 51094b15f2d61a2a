import { NodeRuntime } from "@effect/platform-node"
import { Cause, Config, ConfigProvider, Effect, Exit, Layer, Logger, LogLevel } from "effect"
import { cli } from "./Cli.js"
import { ExitCode } from "./ExitCode.js"
import { processTerminal, Terminal } from "./Terminal.js"

const exitCode = <A, E>(exit: Exit.Exit<A, E>) =>
  Exit.match(exit, {
    onSuccess: (code) => (typeof code === "number" ? code : ExitCode.ok),
    onFailure: (cause) => (Cause.isInterruptedOnly(cause) ? ExitCode.interrupted : ExitCode.failed)
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

cli(process.argv.slice(2)).pipe(
  Effect.provideService(Terminal, processTerminal),
  Effect.provide(Layer.merge(CliLogging, CliConfig)),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(exitCode(exit))
  })
)
