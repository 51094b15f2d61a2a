/**
 * The exit statuses of every command (decisions-cli): one table, so that scripts can branch on them. A domain error
 * maps by the HTTP status it carries (404 → not found, 400/422 → bad input, any other 4xx → refused); a check that
 * ran and found problems is 4; anything unexpected is 1.
 */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  notFound: 3,
  checkFailed: 4,
  refused: 5,
  interrupted: 130
} as const

export type ExitCode = typeof ExitCode[keyof typeof ExitCode]

/** The table as `--help` prints it. */
export const exitCodeTable: ReadonlyArray<readonly [ExitCode, string]> = [
  [ExitCode.ok, "done"],
  [ExitCode.failed, "failed: unexpected error, database unreachable, a job run that failed"],
  [ExitCode.usage, "bad input: unknown command or option, missing argument, a value refused (VALIDATION_ERROR)"],
  [ExitCode.notFound, "not found: the tenant, user, job, key, partner or delivery named does not exist"],
  [ExitCode.checkFailed, "check failed: ledger verify found problems, migrations pending, a diagnosis failed"],
  [ExitCode.refused, "refused: conflicts with the current state (ALREADY_EXISTS, ALREADY_REVOKED, FORBIDDEN, ...)"],
  [ExitCode.interrupted, "interrupted (Ctrl-C, SIGTERM)"]
]

/** The exit status of a refusal that carries an HTTP status. */
export const exitCodeOfStatus = (status: number): ExitCode =>
  status === 404
    ? ExitCode.notFound
    : status === 400 || status === 422
    ? ExitCode.usage
    : status >= 400 && status < 500
    ? ExitCode.refused
    : ExitCode.failed
