import { Either } from "effect"
import { parseArgs, type ParseArgsConfig } from "node:util"
import type { AnyCommand, Flags } from "./Command.js"

/** Options every command takes. */
export const globalOptions = {
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" }
} as const satisfies ParseArgsConfig["options"]

export type Invocation =
  | { readonly _tag: "Help" }
  /** `tenant --help`: the commands of a group. */
  | { readonly _tag: "GroupHelp"; readonly group: string }
  | { readonly _tag: "CommandHelp"; readonly command: AnyCommand }
  | {
    readonly _tag: "Run"
    readonly command: AnyCommand
    readonly positionals: ReadonlyArray<string>
    readonly flags: Flags
    readonly json: boolean
  }

/** A command line that names no command or does not fit the one it names (exit 2), with where to look next. */
export class UsageError {
  readonly _tag = "UsageError"
  constructor(readonly message: string, readonly hint: string, readonly json: boolean) {}
}

const HELP = "npm run cli -- --help"
const helpOf = (name: string) => `npm run cli -- ${name} --help`

/** The words naming the command: the arguments before the first option. */
const leadingWords = (argv: ReadonlyArray<string>) => {
  const firstOption = argv.findIndex((a) => a.startsWith("-"))
  return firstOption === -1 ? argv : argv.slice(0, firstOption)
}

/** The command whose name is the longest prefix of `words`. */
const findCommand = (words: ReadonlyArray<string>, commands: ReadonlyArray<AnyCommand>) =>
  commands
    .filter((c) => c.name.split(" ").every((word, i) => words[i] === word))
    .sort((a, b) => b.name.length - a.name.length)[0]

/** Commands that start with `words` (the group `tenant`, `federation keys`). */
const inGroup = (words: ReadonlyArray<string>, commands: ReadonlyArray<AnyCommand>) =>
  commands.filter((c) => words.every((word, i) => c.name.split(" ")[i] === word))

/** The longest prefix of `words` that is a group of commands. */
const findGroup = (words: ReadonlyArray<string>, commands: ReadonlyArray<AnyCommand>) => {
  for (let n = words.length; n > 0; n--) {
    if (inGroup(words.slice(0, n), commands).length > 0) return words.slice(0, n).join(" ")
  }
  return undefined
}

/** Reads the command line against the known commands. */
export const parseInvocation = (
  argv: ReadonlyArray<string>,
  commands: ReadonlyArray<AnyCommand>
): Either.Either<Invocation, UsageError> => {
  const json = argv.includes("--json")
  const help = argv.includes("--help") || argv.includes("-h")
  const words = leadingWords(argv)
  const command = findCommand(words, commands)
  if (command !== undefined) return parseFor(command, argv.slice(command.name.split(" ").length), json)
  const group = findGroup(words, commands)
  if (group === undefined) {
    if (words.length === 0 && help) return Either.right({ _tag: "Help" })
    const message = words.length === 0 ? "no command given" : `unknown command: ${words.join(" ")}`
    return Either.left(new UsageError(message, `the commands: ${HELP}`, json))
  }
  if (help && words.length === group.split(" ").length) return Either.right({ _tag: "GroupHelp", group })
  const choices = inGroup(group.split(" "), commands).map((c) => c.name.slice(group.length + 1).split(" ")[0])
  const message = words.length === group.split(" ").length
    ? `${group}: which command? ${[...new Set(choices)].join(", ")}`
    : `unknown command: ${words.join(" ")} (${group} has ${[...new Set(choices)].join(", ")})`
  return Either.left(new UsageError(message, helpOf(group), json))
}

const optionsOf = (command: AnyCommand): ParseArgsConfig["options"] => ({
  ...globalOptions,
  ...Object.fromEntries(command.options.map((o) => [o.name, { type: o.type }]))
})

/** Node's messages name the option in quotes; ours say what is wrong in a few words. */
const parseProblem = (error: unknown): string => {
  const code = (error as { code?: string }).code
  const message = error instanceof Error ? error.message : String(error)
  const option = /'(-[^' ]+)/.exec(message)?.[1]
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${option ?? message}`
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE":
      return message.includes("does not take an argument")
        ? `${option ?? "an option"} takes no value`
        : `${option ?? "an option"} needs a value`
    default:
      return message
  }
}

const parseFor = (
  command: AnyCommand,
  args: ReadonlyArray<string>,
  json: boolean
): Either.Either<Invocation, UsageError> => {
  const refuse = (problem: string) =>
    Either.left(new UsageError(`${command.name}: ${problem}`, helpOf(command.name), json))
  let parsed: { positionals: Array<string>; values: Flags }
  try {
    parsed = parseArgs({ args: [...args], options: optionsOf(command), allowPositionals: true, strict: true })
  } catch (error) {
    return refuse(parseProblem(error))
  }
  const { positionals, values } = parsed
  if (values["help"]) return Either.right({ _tag: "CommandHelp", command })
  const problem = fitProblem(command, positionals, values)
  return problem === undefined
    ? Either.right({ _tag: "Run", command, positionals, flags: values, json })
    : refuse(problem)
}

const fitProblem = (command: AnyCommand, positionals: ReadonlyArray<string>, flags: Flags): string | undefined => {
  const expected = command.positionals.map((p) => p.name)
  if (positionals.length > expected.length) return `unexpected argument ${positionals[expected.length]}`
  if (positionals.length < expected.length) return `expects ${expected.join(" ")}`
  const missing = command.options.find((o) => o.required && flags[o.name] === undefined)
  if (missing !== undefined) return `--${missing.name} is required`
  const empty = command.options.find((o) => o.type === "string" && flags[o.name] === "")
  if (empty !== undefined) return `--${empty.name} needs a value`
  return command.check?.(flags)
}
