import { randomBytes } from "node:crypto"
import { Actor, type Session, type TenantRef } from "./Actor.js"
import { createFederation, type FederationOfWorld } from "./FederationWorld.js"
import type { HttpSender } from "./HttpSender.js"
import { isObject, type OpenApiModel } from "./OpenApiModel.js"
import { createRecords } from "./Records.js"
import { type Exchange, SetUpSteps } from "./SetUpSteps.js"

/**
 * The sweep's world, made through the HTTP API only (so that it works against any running server): communities A
 * and B created by a platform super-admin, each with its admin and members, and in A at least one record of every
 * kind the API creates, each carrying A's marker in its texts so that a leak shows in any response body.
 */

export interface Credentials {
  readonly email: string
  readonly password: string
  /** Slug of the tenant the super-admin logs in on (decisions D3: `platform`). */
  readonly tenantSlug: string
}

export interface Community {
  readonly tenant: TenantRef
  readonly marker: string
  readonly admin: Actor
  readonly member: Actor
}

export interface CommunityA extends Community {
  readonly member2: Actor
  /** A user the fuzz may ban, delete or re-password. */
  readonly spare: Actor
  /** Record ids by kind (`listing`, `event`, ...). */
  readonly ids: Map<string, Array<number>>
  /**
   * The record of a kind the admin may manage (its own organisation, that organisation's opportunity, the
   * application and hours sent to it), for the path of the fuzz, which runs as the admin.
   */
  readonly managed: Map<string, number>
  /** A session of `spare` whose refresh token is offered to tenant B. */
  readonly foreignRefresh: Session
  readonly adminCookie: Session
}

export interface World {
  readonly superAdmin: Actor
  readonly a: CommunityA
  readonly b: Community
  /** What could not be made (the sweep goes on without it). */
  readonly notes: ReadonlyArray<string>
  /** Every exchange of the set-up, for the same checks as the passes. */
  readonly exchanges: ReadonlyArray<Exchange>
  /** Paths of files A uploaded (`/uploads/...`). */
  readonly uploads: ReadonlyArray<string>
  /** The partners' keys of A and B, for `/api/v1/federation/*`. */
  readonly federation: FederationOfWorld
}

const PASSWORD = "Sweep-password-1234"

const DEFAULT_FEATURES = ["volunteering", "organisations", "events", "listings", "reviews", "polls"]

/** Every feature the tenant create accepts, switched on. */
const allFeatures = (model: OpenApiModel) => {
  const op = model.operations.find((o) => o.method === "POST" && o.path.endsWith("/admin/super/tenants"))
  const schema = model.resolve(op?.body?.schema)
  const features = isObject(schema["properties"]) ? model.resolve(schema["properties"]["features"]) : {}
  const names = isObject(features["properties"]) ? Object.keys(features["properties"]) : DEFAULT_FEATURES
  return Object.fromEntries(names.map((n) => [n, true]))
}

const newMarker = (letter: string) => `sweep${letter}${randomBytes(5).toString("hex")}`

export const createWorld = async (
  sender: HttpSender,
  model: OpenApiModel,
  superCredentials: Credentials,
  log: (line: string) => void = () => {}
): Promise<World> => {
  const superAdmin = await new Actor(
    "super-admin",
    sender,
    { id: 0, slug: superCredentials.tenantSlug },
    superCredentials.email,
    superCredentials.password
  ).signIn(2)

  const steps = new SetUpSteps(sender)

  const features = allFeatures(model)
  const community = async (letter: string) => {
    const marker = newMarker(letter)
    const slug = `sweep-${marker}`
    const created = await steps.must(`tenant ${letter}`, superAdmin, "POST", "/api/v2/admin/super/tenants", {
      slug,
      name: `Community ${marker}`,
      features,
      settings: { registration_requires_approval: false },
      admin: {
        email: `admin-${marker}@example.org`,
        password: PASSWORD,
        first_name: `Ada ${marker}`,
        last_name: "Admin"
      }
    })
    const tenant: TenantRef = { id: Number(created["id"]), slug }
    const admin = await new Actor(`${letter} admin`, sender, tenant, `admin-${marker}@example.org`, PASSWORD).signIn(3)
    const user = async (label: string, role = "member") => {
      const email = `${label}-${marker}@example.org`
      const data = await steps.must(`${letter} ${label}`, admin, "POST", "/api/v2/admin/users", {
        email,
        first_name: `${label} ${marker}`,
        last_name: `Surname ${marker}`,
        password: PASSWORD,
        role
      })
      const actor = new Actor(`${letter} ${label}`, sender, tenant, email, PASSWORD)
      actor.userId = Number(data["id"])
      return actor
    }
    return { tenant, marker, admin, user }
  }

  log("world: communities A and B")
  const a = await community("a")
  const member = await (await a.user("member")).signIn(2)
  const member2 = await (await a.user("member2")).signIn(1)
  const spare = await (await a.user("spare")).signIn(1)
  const foreignRefresh = await spare.login()
  const adminCookie = await a.admin.cookieSession()
  const m = a.marker
  const ids = new Map<string, Array<number>>()
  const keep = (kind: string, id: unknown) => {
    if (typeof id === "number" && id > 0) ids.set(kind, [...(ids.get(kind) ?? []), id])
  }
  keep("tenant", a.tenant.id)
  for (const actor of [member, member2, spare, a.admin]) keep("user", actor.userId)

  log("world: A's records")
  const records = await createRecords(steps, { admin: a.admin, member, member2, marker: m, keep })

  log("world: community B")
  const b = await community("b")
  const bMember = await (await b.user("member")).signIn(2)
  const federation = await createFederation(steps, model, {
    superAdmin,
    a: { letter: "a", tenant: a.tenant, marker: m, admin: a.admin, members: [a.admin, member, member2, spare] },
    b: { letter: "b", tenant: b.tenant, marker: b.marker, admin: b.admin, members: [b.admin, bMember] },
    keep,
    manage: (kind, id) => records.managed.set(kind, id)
  }, log)
  log(`world: A=${a.tenant.id} (${ids.size} kinds of record), B=${b.tenant.id}; ${steps.notes.length} set-up notes`)
  return {
    superAdmin,
    a: {
      tenant: a.tenant,
      marker: m,
      admin: a.admin,
      member,
      member2,
      spare,
      ids,
      managed: records.managed,
      foreignRefresh,
      adminCookie
    },
    b: { tenant: b.tenant, marker: b.marker, admin: b.admin, member: bMember },
    notes: steps.notes,
    exchanges: steps.exchanges,
    uploads: records.uploads,
    federation
  }
}
