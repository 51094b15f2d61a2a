import { ConfigProvider, Effect, Logger, LogLevel } from "effect"
import pg from "pg"
import { cli } from "../../apps/cli/src/Cli.js"
import { Terminal, type TerminalIo } from "../../apps/cli/src/Terminal.js"

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * `npm run cli -- ...argv` run inside the test process, on the database at `databaseUrl` (none: commands that need
 * one fail as they would without DATABASE_URL): the same program main.ts runs, with a terminal that records what
 * goes to stdout and stderr. Starting a process costs seconds; test/cli.test.ts covers the real process.
 */
export const runInProcess = (databaseUrl: string | undefined, ...argv: Array<string>) =>
  Effect.gen(function*() {
    let stdout = ""
    let stderr = ""
    const decoder = new TextDecoder()
    const terminal: TerminalIo = {
      out: (text) => Effect.sync(() => (stdout += `${text}\n`)),
      err: (text) => Effect.sync(() => (stderr += `${text}\n`)),
      write: (bytes) => Effect.sync(() => (stdout += decoder.decode(bytes, { stream: true }))),
      progressStream: undefined
    }
    const env = new Map<string, string>([["LOG_LEVEL", "WARN"]])
    if (databaseUrl !== undefined) env.set("DATABASE_URL", databaseUrl)
    const code = yield* cli(argv).pipe(
      Effect.provideService(Terminal, terminal),
      Effect.withConfigProvider(ConfigProvider.fromMap(env)),
      // As main.ts does: below warnings only when LOG_LEVEL asks.
      Logger.withMinimumLogLevel(LogLevel.Warning)
    )
    return { code, stdout, stderr } satisfies CliRun
  })

/** The one JSON document the command printed (fails when stdout holds anything else). */
export const jsonOf = <A>(run: CliRun): A => JSON.parse(run.stdout) as A

export type Errors = { readonly errors: ReadonlyArray<{ code: string; message: string; field?: string }> }

/** One query on the database at `url`, on a connection of its own. */
export const query = <A = Record<string, unknown>>(url: string, text: string, values: Array<unknown> = []) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      return (await client.query(text, values)).rows as Array<A>
    } finally {
      await client.end()
    }
  })
