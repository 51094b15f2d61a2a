import type {
  AlreadyExists,
  AlreadyRevoked,
  FederationStateConflict,
  Forbidden,
  NotFound,
  ValidationFailed
} from "@timebank/domain"
import type { Effect } from "effect"
import type { ExitCode } from "./ExitCode.js"
import type { Needs } from "./Layers.js"
import type { Progress } from "./Progress.js"
import type { Terminal } from "./Terminal.js"

/** The refusals an operator is told about in words; each carries its HTTP status, which picks the exit status. */
export type CommandError =
  | ValidationFailed
  | AlreadyExists
  | NotFound
  | AlreadyRevoked
  | FederationStateConflict
  | Forbidden

/** What a command produced: the document `--json` prints, and the text printed otherwise (none: nothing). */
export interface Output {
  readonly json: unknown
  readonly text?: string
  /** A check that ran but found problems exits with its report and this status. */
  readonly exitCode?: ExitCode
}

export type Flags = { readonly [name: string]: string | boolean | undefined }

/** An option of a command, as it is parsed and as `--help` shows it. */
export interface OptionSpec {
  readonly name: string
  readonly type: "string" | "boolean"
  /** The value as the usage shows it: `ID|SLUG`. */
  readonly value?: string
  readonly description: string
  readonly required?: boolean
}

export interface Argument {
  readonly name: string
  readonly description: string
}

/** What every command may use besides what it needs: where output goes, and progress bars. */
export type CommandContext = Terminal | Progress

export interface Command<K extends keyof Needs = keyof Needs> {
  /** The words that name it, such as `tenant create`. */
  readonly name: string
  readonly summary: string
  /** More about it, shown by `--help`. */
  readonly details?: string
  readonly positionals: ReadonlyArray<Argument>
  readonly options: ReadonlyArray<OptionSpec>
  /** Command lines shown by `--help`, after `npm run cli -- `. */
  readonly examples: ReadonlyArray<string>
  /** What some exit statuses mean for this command, shown beside the shared table. */
  readonly exits?: ReadonlyArray<readonly [ExitCode, string]>
  /** A usage problem the option types do not catch (two options that exclude each other, ...). */
  readonly check?: (flags: Flags) => string | undefined
  readonly needs: K
  readonly run: (
    positionals: ReadonlyArray<string>,
    flags: Flags
  ) => Effect.Effect<Output, CommandError, Needs[K] | CommandContext>
}

export type AnyCommand =
  | Command<"database">
  | Command<"services">
  | Command<"federation">
  | Command<"jobs">
  | Command<"none">
