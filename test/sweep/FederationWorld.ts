import type { Actor, TenantRef } from "./Actor.js"
import type { RawRequest } from "./HttpSender.js"
import { isObject, type OpenApiModel } from "./OpenApiModel.js"
import { keyAuthorization, type PartnerKey, signRequest } from "./PartnerCalls.js"
import type { SetUpSteps } from "./SetUpSteps.js"

/**
 * Federation in the sweep's world (decisions D13, D13a), through the HTTP API only: the platform switch on, A and B
 * whitelisted with every toggle on, A's members opted in, and on each side a partner made `active` by a real test
 * call. The test call goes to this same server's `webhooks/test` with a signing key the other community issued (the
 * server checks that key's community, which is whitelisted too). Each side gets an API key with every scope, bound
 * to its partner, and A gets federation records for the id pools: a federated transaction, messages, a review,
 * partners' listing, event and group received by webhook, and webhook deliveries when the outbox made some.
 */

export interface PartnerSide {
  /** Every scope, bound to the side's partner, 10000 requests a minute, no signing. */
  readonly key: PartnerKey
  readonly partnerId: number | undefined
}

export interface FederationOfWorld {
  readonly a: PartnerSide
  readonly b: PartnerSide
  /** The path the server lives under, which signatures cover. */
  readonly basePath: string
}

interface Side {
  readonly letter: string
  readonly tenant: TenantRef
  readonly marker: string
  readonly admin: Actor
  /** Members who opt in (the admin first). */
  readonly members: ReadonlyArray<Actor>
}

const SCOPES = [
  "members:read",
  "listings:read",
  "events:read",
  "groups:read",
  "reviews:read",
  "reviews:write",
  "messages:write",
  "transactions:read",
  "transactions:write"
]
const TOGGLES = ["profiles", "messaging", "transactions", "listings", "events", "groups", "reviews", "volunteering"]

const RATE_LIMIT = 10_000
const WEBHOOK_TEST = "/api/v1/federation/webhooks/test"

/** The properties of an operation's JSON body, from the document (`names` when it does not say). */
const bodyProperties = (model: OpenApiModel, method: string, path: string) => {
  const op = model.operations.find((o) => o.method === method && o.path === path)
  const schema = model.resolve(op?.body?.schema)
  return isObject(schema["properties"]) ? schema["properties"] : undefined
}

/** Every scope the key route takes (its `scopes` items' enum), else D13's nine. */
const scopesOf = (model: OpenApiModel) => {
  const scopes = bodyProperties(model, "POST", "/api/v2/admin/federation/api-keys")?.["scopes"]
  const items = model.resolve(model.resolve(scopes)["items"])
  const values = model.members(items).flatMap((m) => (Array.isArray(m["enum"]) ? m["enum"] : []))
  return values.length > 0 ? values.map(String) : SCOPES
}

/** Every toggle (boolean property) of the settings route, switched on; the currency code keeps its default. */
const allToggles = (model: OpenApiModel) => {
  const properties = bodyProperties(model, "PUT", "/api/v2/admin/federation/settings")
  const toggles = properties === undefined
    ? TOGGLES
    : Object.entries(properties).filter(([, schema]) => model.resolve(schema)["type"] === "boolean").map(([t]) => t)
  return Object.fromEntries(toggles.map((t) => [t, true]))
}

const idOf = (data: Record<string, unknown> | undefined) => (typeof data?.["id"] === "number" ? data["id"] : undefined)

export const createFederation = async (
  steps: SetUpSteps,
  model: OpenApiModel,
  who: {
    readonly superAdmin: Actor
    readonly a: Side
    readonly b: Side
    /** Records an id of a kind of A. */
    readonly keep: (kind: string, id: unknown) => void
    /** The record of a kind the fuzz may change and delete (paths of the fuzz use it first). */
    readonly manage: (kind: string, id: number) => void
  },
  log: (line: string) => void
): Promise<FederationOfWorld> => {
  const { a, b, keep, manage, superAdmin } = who
  const sender = steps.sender
  const basePath = new URL(sender.baseUrl).pathname.replace(/\/$/, "")
  const scopes = scopesOf(model)

  log("world: federation switches, toggles and opt-ins")
  await steps.must("federation on", superAdmin, "PUT", "/api/v2/admin/super/federation", { enabled: true })
  for (const side of [a, b]) {
    await steps.must(
      `federation whitelist ${side.letter}`,
      superAdmin,
      "PUT",
      `/api/v2/admin/super/federation/tenants/${side.tenant.id}`,
      { whitelisted: true }
    )
    await steps.must(
      `federation toggles ${side.letter}`,
      side.admin,
      "PUT",
      "/api/v2/admin/federation/settings",
      allToggles(model)
    )
    for (const member of side.members) {
      await steps.may(`federation opt-in ${member.label}`, member, "PUT", "/api/v2/users/me", {
        federation_opt_in: true
      })
    }
  }

  const newKey = async (side: Side, name: string, body: Record<string, unknown>): Promise<PartnerKey> => {
    const data = await steps.must(`${side.letter} ${name}`, side.admin, "POST", "/api/v2/admin/federation/api-keys", {
      name: `${name} ${side.marker}`,
      rate_limit_per_minute: RATE_LIMIT,
      ...body
    })
    const apiKey = String(data["api_key"])
    return {
      id: Number(data["id"]),
      apiKey,
      prefix: typeof data["key_prefix"] === "string" ? data["key_prefix"] : apiKey.slice(0, 12),
      ...(typeof data["signing_secret"] === "string" ? { signingSecret: data["signing_secret"] } : {})
    }
  }

  /** A native partner of `side` whose test call reaches this server with the other side's signing key. */
  const newPartner = async (side: Side, name: string, credentials: PartnerKey) => {
    const created = await steps.may(`${side.letter} ${name}`, side.admin, "POST", "/api/v2/admin/federation/partners", {
      name: `${name} ${side.marker}`,
      protocol_type: "native",
      base_url: sender.baseUrl,
      webhook_url: `${sender.baseUrl.replace(/\/$/, "")}${WEBHOOK_TEST}`,
      credentials: { api_key: credentials.apiKey, signing_secret: credentials.signingSecret ?? "" },
      settings: { credit_limit: 1000 }
    })
    const id = idOf(created)
    if (id === undefined) return undefined
    const tested = await steps.may(
      `${side.letter} ${name} test call`,
      side.admin,
      "POST",
      `/api/v2/admin/federation/partners/${id}/test`
    )
    if (tested?.["ok"] !== true) {
      steps.notes.push(`world: ${side.letter} ${name} stays pending, its test call answered ${JSON.stringify(tested)}`)
    }
    return id
  }

  log("world: federation partners and keys")
  // Each side's partner signs its calls to us with a key the other side issued.
  const aOutbound = await newKey(a, "outbound key", { scopes: [scopes[0]], signing: true })
  const bOutbound = await newKey(b, "outbound key", { scopes: [scopes[0]], signing: true })
  const aPartner = await newPartner(a, "partner", bOutbound)
  const aSparePartner = await newPartner(a, "spare partner", bOutbound)
  const bPartner = await newPartner(b, "partner", aOutbound)
  const aKey = await newKey(a, "partner key", { scopes, ...(aPartner === undefined ? {} : { partner_id: aPartner }) })
  const aSpareKey = await newKey(a, "spare key", {
    scopes: [scopes[0]],
    ...(aSparePartner === undefined ? {} : { partner_id: aSparePartner })
  })
  const bKey = await newKey(b, "partner key", { scopes, ...(bPartner === undefined ? {} : { partner_id: bPartner }) })
  for (const id of [aPartner, aSparePartner]) keep("partner", id)
  for (const key of [aKey, aOutbound, aSpareKey]) keep("api-key", key.id)
  if (aSparePartner !== undefined) manage("partner", aSparePartner)
  manage("api-key", aSpareKey.id)

  log("world: federation records of A")
  const records = await federatedRecords(steps, { ...a, key: aKey, basePath }, keep)
  const listing = await steps.may("listing shared with partners", a.members[1], "POST", "/api/v2/listings", {
    type: "request",
    title: `Shared listing ${a.marker}`,
    description: `Shared listing description ${a.marker}`
  })
  keep("listing", idOf(listing))
  if (records.length > 0) await deliveries(steps, a, [aSparePartner, aPartner], keep, manage)
  return { a: { key: aKey, partnerId: aPartner }, b: { key: bKey, partnerId: bPartner }, basePath }
}

/** A partner's call with its key (bearer, or signed where `sign`), kept with the set-up's exchanges. */
const partnerCall = async (
  steps: SetUpSteps,
  name: string,
  key: PartnerKey,
  basePath: string,
  path: string,
  body: unknown,
  sign = false
) => {
  const unsigned: RawRequest = {
    method: "POST",
    path,
    headers: { authorization: keyAuthorization(key, path), "content-type": "application/json" },
    body: JSON.stringify(body)
  }
  const request = sign ? signRequest(unsigned, key, basePath) : unsigned
  const response = await steps.sender.send(request)
  steps.exchanges.push({ name, request, response })
  if (response.status < 200 || response.status >= 300) {
    steps.notes.push(`world: ${name}: POST ${path} answered ${response.status} ${response.text.slice(0, 300)}`)
    return undefined
  }
  try {
    return (JSON.parse(response.text) as { data?: Record<string, unknown> }).data
  } catch {
    return undefined
  }
}

/** What A's partner sends A with A's key: a credit, messages, a review, and records of its own by webhook. */
const federatedRecords = async (
  steps: SetUpSteps,
  a: Side & { readonly key: PartnerKey; readonly basePath: string },
  keep: (kind: string, id: unknown) => void
) => {
  const m = a.marker
  const [admin, member] = [a.members[0]!, a.members[1]!]
  const call = (name: string, path: string, body: unknown, sign = false) =>
    partnerCall(steps, name, a.key, a.basePath, `/api/v1/federation/${path}`, body, sign)
  const sender = { name: `Partner member ${m}`, external_id: `remote-member-${m}` }
  const kept: Array<unknown> = []
  const transaction = await call("federated transaction", "transactions", {
    external_id: `sweep-credit-${m}`,
    recipient_id: member.userId,
    amount: 1,
    description: `Federated credit ${m}`,
    sender
  })
  keep("federated transaction", idOf(transaction))
  kept.push(idOf(transaction))
  for (const [label, recipient] of [["admin", admin], ["member", member]] as const) {
    const message = await call(`federated message to ${label}`, "messages", {
      recipient_id: recipient.userId,
      subject: `Federated subject ${m}`,
      body: `Federated message ${m}`,
      sender
    })
    keep("federated message", idOf(message))
    kept.push(idOf(message))
  }
  const review = await call("federated review", "reviews", {
    member_id: member.userId,
    rating: 5,
    comment: `Federated review ${m}`,
    reviewer: sender
  })
  keep("review", idOf(review))
  const start = new Date(Date.now() + 5 * 86_400_000).toISOString()
  const end = new Date(Date.now() + 5 * 86_400_000 + 7_200_000).toISOString()
  const received: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
    ["listing.created", { id: `listing-${m}`, user_id: sender.external_id, type: "offer", status: "active" }],
    ["event.created", { id: `event-${m}`, user_id: sender.external_id, start_time: start, end_time: end }],
    ["group.created", { id: `group-${m}`, owner_id: sender.external_id, visibility: "public", status: "active" }]
  ]
  for (const [event, data] of received) {
    await call(`received ${event}`, "webhooks/receive", {
      id: `webhook-${event}-${m}`,
      event,
      occurred_at: new Date().toISOString(),
      data: { ...data, title: `Partner ${event} ${m}`, name: `Partner ${event} ${m}`, description: `From ${m}` }
    }, true)
  }
  return kept.filter((id) => id !== undefined)
}

/** Deliveries the outbox made for A's partners (the spare partner's first, for the fuzz's paths), if any yet. */
const deliveries = async (
  steps: SetUpSteps,
  a: Side,
  partners: ReadonlyArray<number | undefined>,
  keep: (kind: string, id: unknown) => void,
  manage: (kind: string, id: number) => void
) => {
  for (let attempt = 0; attempt < 20; attempt++) {
    const found: Array<number> = []
    for (const partner of partners) {
      if (partner === undefined) continue
      const res = await steps.sender.json(
        "GET",
        `/api/v2/admin/federation/partners/${partner}/deliveries`,
        a.admin.headers()
      )
      const data = (res.body as { data?: Array<{ id?: unknown }> } | undefined)?.data
      for (const d of Array.isArray(data) ? data : []) if (typeof d.id === "number") found.push(d.id)
      if (found.length > 0 && partner === partners[0]) manage("delivery", found[0]!)
    }
    if (found.length > 0) {
      for (const id of found.slice(0, 6)) keep("delivery", id)
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  steps.notes.push("world: no webhook delivery to A's partners after 5 s (the delivery routes get no ids of A)")
}
