import type { SqlClient } from "@effect/sql"
import type {
  AlreadyExists,
  AlreadyRevoked,
  FederationStateConflict,
  NotFound,
  ValidationFailed
} from "@timebank/domain"
import type {
  ApiKeysService,
  DeliveriesService,
  JobsOperator,
  LedgerVerify,
  PartnersService,
  TenantService,
  UserAccounts
} from "@timebank/server"
import type { Effect } from "effect"

/** The failures an operator is told about in words (exit 1); anything else is a bug. */
export type CommandError = ValidationFailed | AlreadyExists | NotFound | AlreadyRevoked | FederationStateConflict

/** What a command produced: the document `--json` prints, and the text printed otherwise. */
export interface Output {
  readonly json: unknown
  readonly text: string
  /** A check that ran but found problems exits non-zero with its report. */
  readonly exitCode?: number
}

export type Flags = { readonly [name: string]: string | boolean | undefined }

/**
 * What a command runs on: `database` is the bare SQL client (so `migrate` can see which migrations it ran itself),
 * `services` the migrated platform with the shared services, `none` nothing.
 */
export interface Needs {
  readonly database: SqlClient.SqlClient
  readonly services: TenantService | UserAccounts | LedgerVerify
  /** The shared services and federation's, which read the secrets key (so only these commands touch it). */
  readonly federation:
    | TenantService
    | UserAccounts
    | LedgerVerify
    | ApiKeysService
    | PartnersService
    | DeliveriesService
  /** The shared services, every feature's registered jobs and their runner (`jobs list`, `jobs run`). */
  readonly jobs: TenantService | UserAccounts | LedgerVerify | JobsOperator
  /** No database at all (key generation and the like). */
  readonly none: never
}

export interface Command<K extends keyof Needs = keyof Needs> {
  /** The words that name it, such as `tenant create`. */
  readonly name: string
  readonly summary: string
  /** Its arguments and flags as the usage text shows them. */
  readonly synopsis: string
  readonly positionals: ReadonlyArray<string>
  readonly flags: ReadonlyArray<string>
  readonly requiredFlags?: ReadonlyArray<string>
  readonly needs: K
  readonly run: (positionals: ReadonlyArray<string>, flags: Flags) => Effect.Effect<Output, CommandError, Needs[K]>
}

export type AnyCommand =
  | Command<"database">
  | Command<"services">
  | Command<"federation">
  | Command<"jobs">
  | Command<"none">
