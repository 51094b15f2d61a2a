import { Context, Effect } from "effect"

/**
 * Where a command's output goes. stdout carries results only (text, one JSON document, or a CSV file's bytes);
 * errors, hints, logs and progress bars go to stderr. Tests run the CLI in-process with a terminal that records.
 */
export interface TerminalIo {
  /** One line of results on stdout. */
  readonly out: (text: string) => Effect.Effect<void>
  /** One line on stderr. */
  readonly err: (text: string) => Effect.Effect<void>
  /** Raw bytes on stdout (a streamed file), written as fast as stdout takes them. */
  readonly write: (bytes: Uint8Array) => Effect.Effect<void>
  /** Where progress bars draw: stderr when it is a terminal, else nowhere. */
  readonly progressStream: NodeJS.WritableStream | undefined
}

export class Terminal extends Context.Tag("cli/Terminal")<Terminal, TerminalIo>() {}

/** Waits until the stream took the chunk, so a large file never piles up in memory. */
const writeTo = (stream: NodeJS.WritableStream, chunk: string | Uint8Array) =>
  Effect.async<void>((resume) => {
    stream.write(chunk, () => resume(Effect.void))
  })

/** The process's own stdout and stderr. */
export const processTerminal: TerminalIo = {
  out: (text) => writeTo(process.stdout, `${text}\n`),
  err: (text) => writeTo(process.stderr, `${text}\n`),
  write: (bytes) => writeTo(process.stdout, bytes),
  progressStream: process.stderr.isTTY ? process.stderr : undefined
}
