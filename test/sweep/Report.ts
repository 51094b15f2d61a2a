import type { Finding } from "./Recorder.js"
import { EXTRA, FOREIGN_CREDENTIALS, FOREIGN_IDS, FUZZ, type SweepResult } from "./Sweep.js"

/** The sweep's outcome as text: counts, one line per operation, findings with their requests, notes. */

const pad = (text: string, width: number) => (text.length >= width ? text : text + " ".repeat(width - text.length))
const padLeft = (text: string, width: number) => (text.length >= width ? text : " ".repeat(width - text.length) + text)

const statusesOf = (statuses: ReadonlyMap<number, number>) =>
  [...statuses.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(" ")

export const countsLine = (result: SweepResult) => {
  const c = result.recorder.counts
  return `5xx: ${c.fiveXX}   envelope violations: ${c.envelope}   missing/wrong request ids: ${c.requestId}   ` +
    `leaks: ${c.leaks}   status mismatches: ${c.status}   unrefused control input: ${c.unrefused}   ` +
    `no answer: ${c.noAnswer}   429: ${c.rateLimited}   inconclusive (422 before lookup): ${c.inconclusive}   ` +
    `not sendable: ${c.unsendable}   (A's own marker seen in ${c.ownMarkerSeen} of A's responses)`
}

export const describeFinding = (f: Finding) =>
  `[${f.kind}] ${f.pass} ${f.op} — ${f.case} (${f.actor}): ${f.detail}\n  request: ${
    f.request.replace(/\n/g, "\n  ")
  }\n` +
  `  response ${f.status}: ${f.response}`

export const summaryText = (result: SweepResult, options: { readonly table: boolean; readonly findings?: number }) => {
  const lines: Array<string> = []
  const r = result.recorder
  const passTotal = (pass: string) => [...r.operations.values()].reduce((n, t) => n + (t.byPass.get(pass) ?? 0), 0)
  const ops = result.model.operations.length
  const covered = (key: "fuzz" | "foreignIds" | "foreignCredentials") =>
    result.coverage.filter((c) => c[key] > 0).length
  if (options.table) {
    lines.push(
      `${pad("operation", 70)} ${padLeft("fuzz", 6)} ${padLeft("ids", 5)} ${padLeft("creds", 5)} ${
        padLeft("base", 5)
      }  ` +
        "statuses (all passes)"
    )
    for (const c of result.coverage) {
      const tally = r.operations.get(c.op)
      lines.push(
        `${pad(c.op, 70)} ${padLeft(String(c.fuzz), 6)} ${padLeft(String(c.foreignIds), 5)} ${
          padLeft(String(c.foreignCredentials), 5)
        } ${padLeft(String(c.baseline), 5)}  ${tally === undefined ? "" : statusesOf(tally.statuses)}`
      )
    }
    lines.push("")
  }
  lines.push(
    `operations: ${ops} in the document; fuzzed ${covered("fuzz")}, with A's ids on B ${covered("foreignIds")}, ` +
      `with A's credentials on B ${covered("foreignCredentials")}`
  )
  const skipped = result.coverage.filter((c) => c.skipped.length > 0)
  if (skipped.length > 0) {
    lines.push(`skipped by design: ${skipped.map((c) => `${c.op} (${c.skipped.join("; ")})`).join(", ")}`)
  }
  if (result.uncovered.length > 0) lines.push(`NOT COVERED: ${result.uncovered.join(", ")}`)
  lines.push(
    `requests: ${r.counts.requests} (fuzz ${passTotal(FUZZ)}, foreign ids ${
      passTotal(FOREIGN_IDS)
    }, foreign credentials ${passTotal(FOREIGN_CREDENTIALS)}, extra ${passTotal(EXTRA)}, set-up ${
      passTotal("world")
    }) in ${(result.durationMs / 1000).toFixed(1)} s`
  )
  lines.push(countsLine(result))
  if (result.acceptedForeignBodyIds.length > 0) {
    lines.push(`B accepted A's ids in a body (${result.acceptedForeignBodyIds.length}):`)
    for (const a of result.acceptedForeignBodyIds.slice(0, 20)) lines.push(`  ${a.slice(0, 300)}`)
  }
  const shown = r.findings.slice(0, options.findings ?? 40)
  if (shown.length > 0) {
    lines.push("", `findings (${shown.length} of ${r.failures}):`)
    for (const f of shown) lines.push(describeFinding(f))
  }
  if (result.notes.length > 0) {
    lines.push("", `notes (${result.notes.length}):`)
    for (const n of result.notes.slice(0, 40)) lines.push(`  ${n}`)
  }
  return lines.join("\n")
}
