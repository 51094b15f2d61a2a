import { randomBytes } from "node:crypto"
import { EXTRA, extraRoutes } from "./ExtraRoutes.js"
import { HttpSender, type RawRequest, type RawResponse, Unsendable } from "./HttpSender.js"
import { fetchDocument, type OpenApiModel, type Operation } from "./OpenApiModel.js"
import { isTokenRoute } from "./PartnerCalls.js"
import {
  crossTenant,
  FOREIGN_CREDENTIALS,
  FOREIGN_IDS,
  foreignCredentialsPass,
  foreignIdsPass,
  FUZZ,
  fuzzPass,
  type SweepContext,
  type Who
} from "./Passes.js"
import { type Expectation, firstCode, Recorder } from "./Recorder.js"
import type { CaseEnv } from "./Requests.js"
import type { IdSource, ValueContext } from "./Values.js"
import { createWorld, type Credentials, type World } from "./World.js"

/**
 * The sweep: every operation of the server's OpenAPI document (a) fuzzed as tenant A, (b) called on tenant B with
 * A's record ids, (c) called on tenant B with A's credentials; plus the routes outside the document. The same code
 * runs bounded in the test suite (a deterministic sample of fuzz cases per operation) and in full from
 * `npm run sweep`.
 */

export { EXTRA, FOREIGN_CREDENTIALS, FOREIGN_IDS, FUZZ }

export interface SweepOptions {
  readonly baseUrl: string
  readonly superAdmin: Credentials
  /** Fuzz cases per operation besides the baseline; undefined: every case. */
  readonly casesPerOperation?: number
  readonly seed?: string
  readonly concurrency?: number
  /** A random X-Forwarded-For per request (no rate limit is hit on servers with TRUST_PROXY=true). */
  readonly forwardedFor?: boolean
  /** How long to wait for an answer before counting the request as unanswered. */
  readonly timeoutMs?: number
  readonly log?: (line: string) => void
}

export interface Coverage {
  readonly op: string
  readonly fuzz: number
  readonly foreignIds: number
  readonly foreignCredentials: number
  /** Passes that do not apply, with the reason. */
  readonly skipped: ReadonlyArray<string>
  /** Status of the fuzz baseline (how deep valid-looking input gets), 0 when it was not answered. */
  readonly baseline: number
}

export interface SweepResult {
  readonly model: OpenApiModel
  readonly recorder: Recorder
  readonly coverage: ReadonlyArray<Coverage>
  /** Operations that a pass which applies to them never reached: a silent skip, which fails the sweep. */
  readonly uncovered: ReadonlyArray<string>
  /** Requests on tenant B with A's ids in the body (not the path) that B accepted with a 2xx. */
  readonly acceptedForeignBodyIds: ReadonlyArray<string>
  readonly notes: ReadonlyArray<string>
  readonly durationMs: number
  readonly world: World
}

export const runSweep = async (options: SweepOptions): Promise<SweepResult> => {
  const started = Date.now()
  const log = options.log ?? (() => {})
  const concurrency = options.concurrency ?? 8
  const sender = new HttpSender(options.baseUrl, {
    forwardedFor: options.forwardedFor ?? true,
    maxSockets: concurrency,
    timeoutMs: options.timeoutMs ?? 30_000
  })
  const recorder = new Recorder()
  try {
    const model = await fetchDocument((path) => sender.send({ method: "GET", path, headers: {} }))
    log(`document: ${model.operations.length} operations`)
    const world = await createWorld(sender, model, options.superAdmin, log)
    for (const e of world.exchanges) {
      recorder.check("world", `world ${e.name}`, e.name, "set-up", e.request, e.response)
    }
    const a = world.a
    const runId = randomBytes(3).toString("hex")
    const probe = sessionProbe(model)
    const ownIds: IdSource = {
      ids: (kind) => kind === "user" ? [a.spare.userId, ...(a.ids.get("user") ?? [])] : a.ids.get(kind) ?? []
    }
    const ctx: SweepContext = {
      model,
      sender,
      recorder,
      world,
      concurrency,
      markers: [a.marker],
      foreignIds: { ids: (kind) => a.ids.get(kind) ?? [] },
      ownIds,
      ownPathIds: {
        ids: (kind) => {
          const managed = a.managed.get(kind)
          return managed === undefined ? ownIds.ids(kind) : [managed, ...ownIds.ids(kind)]
        }
      },
      contextFor: (op: Operation, ids: IdSource, overrides: Record<string, unknown> = {}): ValueContext => ({
        model,
        ids,
        unique: `${runId}${model.operations.indexOf(op)}`,
        // The token route's form: a grant it supports, so that the baseline gets a token.
        overrides: isTokenRoute(op.path) ? { grant_type: "client_credentials", ...overrides } : overrides
      }),
      exchange: (pass, op, name, who, build, expectation) =>
        exchange(sender, recorder, probe, pass, op, name, who, build, expectation),
      log
    }

    log("pass: A's ids on tenant B")
    const acceptedForeignBodyIds = await foreignIdsPass(ctx)
    log("pass: A's credentials on tenant B")
    await foreignCredentialsPass(ctx)
    const notes = [...world.notes]
    if (probe !== undefined) {
      const still = await sender.send({ method: "GET", path: probe.path, headers: a.admin.headers() })
      if (still.status !== 200) {
        notes.push(`A admin's session answers ${still.status} on its own tenant after the foreign-credentials pass`)
      }
    }
    // Before the fuzz, which deletes A's records (and the files they own).
    log("pass: routes outside the document")
    await extraRoutes(model, sender, recorder, world, ctx.ownPathIds, ctx.contextFor)
    const sample = options.casesPerOperation
    log(`pass: fuzz${sample === undefined ? "" : ` (${sample} cases per operation)`}`)
    const baselines = await fuzzPass(ctx, { casesPerOperation: sample, seed: options.seed ?? "sweep" })

    const coverage = model.operations.map((op): Coverage => {
      const byPass = recorder.operations.get(op.key)?.byPass
      return {
        op: op.key,
        fuzz: byPass?.get(FUZZ) ?? 0,
        foreignIds: byPass?.get(FOREIGN_IDS) ?? 0,
        foreignCredentials: byPass?.get(FOREIGN_CREDENTIALS) ?? 0,
        skipped: crossTenant(op) ? [] : ["cross-tenant passes: the route has no tenant"],
        baseline: baselines.get(op.key) ?? 0
      }
    })
    const uncovered = coverage.filter((c) =>
      c.fuzz === 0 || (c.skipped.length === 0 && (c.foreignIds === 0 || c.foreignCredentials === 0))
    ).map((c) => c.op)
    notes.push(...recorder.notes)
    const renewals = [a.admin, a.member, world.b.admin, world.b.member, world.superAdmin]
      .filter((x) => x.renewals > 0).map((x) => `${x.label} ${x.renewals}`)
    if (renewals.length > 0) notes.push(`sessions renewed after the sweep ended them: ${renewals.join(", ")}`)
    for (const x of [a.admin, a.member, world.b.admin, world.b.member, world.superAdmin]) {
      for (const failure of x.failedRenewals) notes.push(`${x.label}: no new session: ${failure}`)
    }
    return {
      model,
      recorder,
      coverage,
      uncovered,
      acceptedForeignBodyIds,
      notes,
      durationMs: Date.now() - started,
      world
    }
  } finally {
    sender.close()
  }
}

/** A GET that needs a caller and nothing else (`/users/me`): tells a dead session from a route's own 401. */
const sessionProbe = (model: OpenApiModel) => {
  const plain = model.operations.filter((o) =>
    o.method === "GET" && o.auth === "required" && o.tenant && !o.path.includes("{") &&
    !o.parameters.some((p) => p.required && p.in !== "path")
  )
  return plain.find((o) => /\/me$/.test(o.path)) ?? plain[0]
}

/**
 * Sends one case and checks it. A 401 AUTH_REQUIRED caused by a session the sweep itself ended (logout, password
 * change, a ban) moves the actor to a fresh session and sends the case again.
 */
const exchange = async (
  sender: HttpSender,
  recorder: Recorder,
  probe: Operation | undefined,
  pass: string,
  op: Operation,
  name: string,
  who: Who,
  build: (env: CaseEnv) => RawRequest,
  expectation: Expectation
): Promise<RawResponse | undefined> => {
  for (let attempt = 0;; attempt++) {
    const generation = who.actor?.generation ?? 0
    const env = who.env()
    let request: RawRequest
    let response: RawResponse
    try {
      request = build(env)
      response = await sender.send(request)
    } catch (error) {
      if (!(error instanceof Unsendable)) throw error
      recorder.unsendable(pass, op.key, name, error.message)
      return undefined
    }
    const token = env.auth["authorization"]
    const usedSession = who.actor !== undefined && token !== undefined && request.headers["authorization"] === token
    if (attempt === 0 && usedSession && response.status === 401 && firstCode(response.text) === "AUTH_REQUIRED") {
      const lost = probe === undefined ||
        (await sender.send({ method: "GET", path: probe.path, headers: { ...env.auth } })).status === 401
      if (lost) {
        await who.actor!.renew(generation)
        continue
      }
    }
    recorder.check(pass, op.key, name, who.label, request, response, expectation)
    return response
  }
}
