import { type Actor, CurrentTenant, CurrentUser, NotFound, type Tenant, type UserId } from "@timebank/domain"
import { TenantService, UserAccounts } from "@timebank/server"
import { Effect } from "effect"
import type { Flags, OptionSpec } from "./Command.js"
import { Progress } from "./Progress.js"

/** A positive whole number, or none: ids that are not one name nothing (decisions D1). */
export const positiveId = (text: string): number | undefined =>
  /^[1-9][0-9]*$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined

/** The record with id `text`, or NOT_FOUND on `what` when `text` is no id at all. */
export const idOf = (text: string, what: string) => {
  const id = positiveId(text)
  return id === undefined ? Effect.fail(NotFound.of(what)) : Effect.succeed(id)
}

/** `--tenant` takes the tenant's id or its slug. */
export const findTenant = (ref: string) =>
  Effect.gen(function*() {
    const tenants = yield* TenantService
    const id = positiveId(ref)
    if (id !== undefined) return yield* tenants.get(id)
    const bySlug = (yield* tenants.list).find((t) => t.slug === ref.toLowerCase())
    return bySlug === undefined ? yield* Effect.fail(NotFound.of("Tenant")) : bySlug
  })

export const tenantOption: OptionSpec = {
  name: "tenant",
  type: "string",
  value: "ID|SLUG",
  description: "the community, by id or slug",
  required: true
}

/**
 * The operator at the terminal acts as a platform super-admin visiting the tenant: the admin services' policies
 * and rules apply to them as they do over the API. They have no account, so the events they cause name user 0.
 */
export const operatorActor = (platform: Tenant, tenant: Tenant): Actor => ({
  userId: 0 as UserId,
  tenantId: platform.id,
  actingTenantId: tenant.id,
  role: "admin",
  status: "active",
  isApproved: true,
  isSuperAdmin: true,
  isGod: false,
  isPlatformUser: true,
  sessionId: null,
  impersonatorId: null
})

/** Runs `effect` as the operator acting on the platform itself (the super-admin API's services). */
export const asPlatformOperator = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, Exclude<R, CurrentUser> | UserAccounts> =>
  Effect.flatMap(
    Effect.flatMap(UserAccounts, (accounts) => accounts.platformTenant),
    (platform) => Effect.provideService(effect, CurrentUser, operatorActor(platform, platform))
  )

/** Runs `f` in the tenant of `--tenant`, as the operator. */
export const asOperatorIn = (flags: Flags) => <A, E, R>(f: (tenant: Tenant) => Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const tenant = yield* findTenant(String(flags["tenant"]))
    const platform = yield* Effect.flatMap(UserAccounts, (accounts) => accounts.platformTenant)
    return yield* f(tenant).pipe(
      Effect.provideService(CurrentTenant, tenant),
      Effect.provideService(CurrentUser, operatorActor(platform, tenant))
    )
  })

interface OffsetPage<A> {
  readonly data: ReadonlyArray<A>
  readonly meta: { readonly has_more: boolean; readonly total: number }
}

/** Every page of an admin (offset) list, one after another; a bar counts the items when there are several pages. */
export const allPages = <A, E, R>(label: string, fetch: (page: number) => Effect.Effect<OffsetPage<A>, E, R>) =>
  Effect.gen(function*() {
    const first = yield* fetch(1)
    if (!first.meta.has_more) return first.data
    const all: Array<A> = [...first.data]
    return yield* Effect.flatMap(
      Progress,
      (progress) =>
        progress.track(label, first.meta.total, (bar) =>
          Effect.gen(function*() {
            yield* bar.advance(first.data.length)
            for (let page = 2;; page++) {
              const { data, meta } = yield* fetch(page)
              all.push(...data)
              yield* bar.advance(data.length)
              if (!meta.has_more) return all
            }
          }))
    )
  })
