import { Either } from "effect"
import { parseArgs, type ParseArgsConfig } from "node:util"
import type { AnyCommand, Flags } from "./Command.js"

const options = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  slug: { type: "string" },
  name: { type: "string" },
  domain: { type: "string" },
  // Node 20's parseArgs has no `allowNegative`, so the negation is an option of its own.
  "no-domain": { type: "boolean" },
  status: { type: "string" },
  timezone: { type: "string" },
  features: { type: "string" },
  settings: { type: "string" },
  tenant: { type: "string" },
  email: { type: "string" },
  "first-name": { type: "string" },
  "last-name": { type: "string" },
  password: { type: "string" },
  role: { type: "string" },
  scopes: { type: "string" },
  partner: { type: "string" },
  "rate-limit": { type: "string" },
  signing: { type: "boolean" },
  "expires-at": { type: "string" }
} as const satisfies ParseArgsConfig["options"]

const globalFlags = new Set(["json", "help"])

export type Invocation =
  | { readonly _tag: "Help" }
  | {
    readonly _tag: "Run"
    readonly command: AnyCommand
    readonly positionals: ReadonlyArray<string>
    readonly flags: Flags
    readonly json: boolean
  }

/** A command line that names no command or does not fit the one it names (exit 2). */
export class UsageError {
  readonly _tag = "UsageError"
  constructor(readonly message: string, readonly json: boolean) {}
}

/** Reads the command line against the known commands; the longest command name that matches wins. */
export const parseInvocation = (
  argv: ReadonlyArray<string>,
  commands: ReadonlyArray<AnyCommand>
): Either.Either<Invocation, UsageError> => {
  const json = argv.includes("--json")
  return Either.try({
    try: () => parseArgs({ args: [...argv], options, allowPositionals: true, strict: true }),
    catch: (error) => new UsageError(error instanceof Error ? error.message : String(error), json)
  }).pipe(Either.flatMap(({ positionals, values }): Either.Either<Invocation, UsageError> => {
    if (values.help) return Either.right({ _tag: "Help" })
    const command = findCommand(positionals, commands)
    if (command === undefined) {
      const words = positionals.join(" ")
      return Either.left(new UsageError(words === "" ? "no command given" : `unknown command: ${words}`, json))
    }
    const rest = positionals.slice(command.name.split(" ").length)
    const problem = checkFits(command, rest, values)
    return problem === undefined
      ? Either.right({ _tag: "Run", command, positionals: rest, flags: values, json })
      : Either.left(new UsageError(`${command.name}: ${problem}`, json))
  }))
}

const findCommand = (words: ReadonlyArray<string>, commands: ReadonlyArray<AnyCommand>) =>
  commands
    .filter((c) => c.name.split(" ").every((word, i) => words[i] === word))
    .sort((a, b) => b.name.length - a.name.length)[0]

const checkFits = (command: AnyCommand, positionals: ReadonlyArray<string>, flags: Flags): string | undefined => {
  if (positionals.length !== command.positionals.length) {
    return command.positionals.length === 0
      ? `unexpected argument ${positionals[0]}`
      : `expects ${command.positionals.join(" ")}`
  }
  const foreign = Object.keys(flags).find((flag) => !globalFlags.has(flag) && !command.flags.includes(flag))
  if (foreign !== undefined) return `--${foreign} does not apply`
  const missing = (command.requiredFlags ?? []).find((flag) => flags[flag] === undefined)
  if (missing !== undefined) return `--${missing} is required`
  if (flags["domain"] !== undefined && flags["no-domain"]) return "--domain and --no-domain exclude each other"
  return undefined
}
