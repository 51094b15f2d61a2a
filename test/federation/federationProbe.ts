import { HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { assert } from "@effect/vitest"
import {
  Api,
  DataEnvelope,
  FederationCaller,
  ListingsRead,
  MembersRead,
  reportAllDecodeErrors,
  ReviewsWrite
} from "@timebank/domain"
import { FeaturesLive, makeHttpLive } from "@timebank/server"
import { signedHeaders } from "@timebank/server"
import { Effect, Layer, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { TestApiKey } from "../fixtures/federation.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

/**
 * Probe routes behind the federation gate, so the gate's policies (read, write, another scope) are tested
 * independently of the inbound routes that use them: each answers with the `FederationCaller` it was given.
 */
const Caller = Schema.Struct({
  key_id: Schema.NullOr(Schema.Int),
  tenant_id: Schema.Int,
  partner_id: Schema.NullOr(Schema.Int),
  scopes: Schema.Array(Schema.String),
  method: Schema.String
})

export class FederationProbeGroup extends HttpApiGroup.make("federationProbe")
  .add(
    HttpApiEndpoint.get("listings", "/api/v1/federation/_probe/listings")
      .setUrlParams(Schema.Struct({ q: Schema.optional(Schema.String) }))
      .addSuccess(DataEnvelope(Caller))
      .middleware(ListingsRead)
  )
  .add(
    HttpApiEndpoint.get("members", "/api/v1/federation/_probe/members")
      .addSuccess(DataEnvelope(Caller))
      .middleware(MembersRead)
  )
  .add(
    HttpApiEndpoint.post("review", "/api/v1/federation/_probe/reviews")
      .setPayload(Schema.Struct({ rating: Schema.Int.pipe(Schema.between(1, 5)) }))
      .addSuccess(DataEnvelope(Caller), { status: 201 })
      .middleware(ReviewsWrite)
  )
{}

export const FederationProbeApi = reportAllDecodeErrors(Api.add(FederationProbeGroup))

const answer = Effect.map(FederationCaller, (caller) => ({
  data: {
    key_id: caller.keyId,
    tenant_id: caller.tenant.id,
    partner_id: caller.partnerId,
    scopes: [...caller.scopes],
    method: caller.method
  },
  meta: {}
}))

const ProbeHandlers = HttpApiBuilder.group(
  FederationProbeApi,
  "federationProbe",
  (handlers) => handlers.handle("listings", () => answer).handle("members", () => answer).handle("review", () => answer)
)

const FederationProbeHttpLive = makeHttpLive(
  FederationProbeApi,
  HttpApiBuilder.api(FederationProbeApi).pipe(Layer.provide(ProbeHandlers), Layer.provide(FeaturesLive))
)

/** The whole API plus the probe routes. */
export const FederationProbeApp = () => TestApp({}, FederationProbeHttpLive)

export const PROBE_LISTINGS = "/api/v1/federation/_probe/listings"
export const PROBE_MEMBERS = "/api/v1/federation/_probe/members"
export const PROBE_REVIEWS = "/api/v1/federation/_probe/reviews"

export const errorCode = (body: unknown) => (body as { errors: ReadonlyArray<{ code: string }> }).errors[0]?.code

/**
 * A signed request whose parts may differ from what was signed (`signed*`), to tamper with it after signing, or
 * whose headers are overridden (`headers`).
 */
export const signedCall = (input: {
  readonly key: TestApiKey
  readonly method: "GET" | "POST"
  readonly path: string
  readonly body?: string
  readonly signedPath?: string
  readonly signedBody?: string
  readonly secret?: string
  readonly nonce?: string
  readonly nowMillis?: number
  readonly bearer?: boolean
  readonly headers?: Record<string, string>
}) => {
  const body = input.body ?? (input.method === "GET" ? undefined : "{}")
  const headers = {
    ...(input.bearer === true ? { authorization: `Bearer ${input.key.apiKey}` } : {}),
    ...signedHeaders({
      secret: input.secret ?? input.key.signingSecret ?? input.key.apiKey,
      platformId: input.key.prefix,
      method: input.method,
      path: input.signedPath ?? input.path,
      body: input.signedBody ?? body ?? "",
      nonce: input.nonce ?? randomUUID(),
      nowMillis: input.nowMillis ?? Date.now()
    }),
    ...input.headers
  }
  return rawRequest(input.method, input.path, { headers, ...(body === undefined ? {} : { body }) })
}

export const expectRefusal = (
  res: { readonly status: number; readonly body: unknown },
  status: number,
  code: string
) => assert.deepStrictEqual([res.status, errorCode(res.body)], [status, code])
