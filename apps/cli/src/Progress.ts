import cliProgress from "cli-progress"
import { Context, Effect } from "effect"

/** A bar a command advances as its work goes on. */
export interface ProgressBar {
  readonly advance: (by: number) => Effect.Effect<void>
}

export interface ProgressIo {
  /**
   * Runs `use` with a bar labelled `label`: of `total` units, or a running count when the total is unknown. The bar
   * is drawn only on a terminal's stderr and never with `--json`; elsewhere it does nothing.
   */
  readonly track: <A, E, R>(
    label: string,
    total: number | undefined,
    use: (bar: ProgressBar) => Effect.Effect<A, E, R>
  ) => Effect.Effect<A, E, R>
}

export class Progress extends Context.Tag("cli/Progress")<Progress, ProgressIo>() {}

const silent: ProgressBar = { advance: () => Effect.void }

const formatOf = (label: string, total: number | undefined) =>
  total === undefined
    ? `${label}: {value} | {duration_formatted}`
    : `${label} [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted}`

/** Progress bars on `stream` (stderr when it is a terminal); none when there is no stream. */
export const progressOn = (stream: NodeJS.WritableStream | undefined): ProgressIo => ({
  track: (label, total, use) =>
    stream === undefined ? use(silent) : Effect.acquireUseRelease(
      Effect.sync(() => {
        const bar = new cliProgress.SingleBar({
          stream,
          format: formatOf(label, total),
          hideCursor: true,
          fps: 5,
          etaBuffer: 50
        }, cliProgress.Presets.shades_classic)
        bar.start(total ?? 0, 0)
        return bar
      }),
      (bar) => use({ advance: (by) => Effect.sync(() => bar.increment(by)) }),
      (bar) => Effect.sync(() => bar.stop())
    )
})
