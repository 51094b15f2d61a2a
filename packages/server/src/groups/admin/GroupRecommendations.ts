import type { RecommendationReason } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { ConnectionDirectory } from "../../connections/ConnectionDirectory.js"
import { MemberDirectory } from "../../identity/MemberDirectory.js"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { AdminGroupRow } from "./GroupAdminRepo.js"
import { GroupFeedActivity } from "./GroupFeedActivity.js"

/** What a member's own groups say about them: the types and places of the groups they are active in. */
export interface MemberProfile {
  /** Type id → how many of their groups have it. */
  readonly types: ReadonlyMap<number, number>
  /** Their groups' locations, normalised (`normaliseLocation`). */
  readonly locations: ReadonlySet<string>
  /** How many groups they are an active member of. */
  readonly groupCount: number
}

/** A group that could be recommended, with what the score reads of it. */
export interface Candidate {
  readonly id: number
  readonly typeId: number | null
  readonly location: string | null
  /** Active members. */
  readonly members: number
  /** Chatroom messages and feed posts of the last 30 days. */
  readonly recentActivity: number
  /** The member's connections among its active members. */
  readonly connections: number
}

export interface Scored {
  readonly id: number
  readonly score: number
  readonly reasons: ReadonlyArray<RecommendationReason>
}

/** The weights of the score's parts; they sum to 1, so a score is between 0 and 1. */
export const WEIGHTS = { type: 0.3, location: 0.25, connections: 0.25, size: 0.1, activity: 0.1 } as const

/** A group this size or more counts as `popular`; this much activity in 30 days as `active`. */
export const POPULAR_MEMBERS = 10
export const ACTIVE_ITEMS = 10

/** Location text compared loosely: case, accents, punctuation and spacing do not matter. */
export const normaliseLocation = (text: string | null): string | undefined => {
  if (text === null) return undefined
  const flat = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ").trim()
  return flat === "" ? undefined : flat
}

/** 0 for none, rising towards 1: half at `half`. */
const saturating = (n: number, half: number) => (n <= 0 ? 0 : n / (n + half))

/**
 * The score of one candidate for a member, 0..1: the share of the member's groups with the candidate's type, the
 * same place as one of their groups, their connections inside (saturating: 1 → 0.5, 3 → 0.75), and its size and
 * recent activity (saturating at `POPULAR_MEMBERS` and `ACTIVE_ITEMS`). Rounded to 3 decimals.
 */
export const scoreCandidate = (profile: MemberProfile, c: Candidate): Scored => {
  const typeShare = c.typeId === null || profile.groupCount === 0
    ? 0
    : Math.min(1, (profile.types.get(c.typeId) ?? 0) / profile.groupCount)
  const place = normaliseLocation(c.location)
  const sameLocation = place !== undefined && profile.locations.has(place) ? 1 : 0
  const connections = saturating(c.connections, 1)
  const size = saturating(c.members, POPULAR_MEMBERS)
  const activity = saturating(c.recentActivity, ACTIVE_ITEMS)
  const score = WEIGHTS.type * typeShare + WEIGHTS.location * sameLocation + WEIGHTS.connections * connections +
    WEIGHTS.size * size + WEIGHTS.activity * activity
  const reasons: Array<RecommendationReason> = []
  if (typeShare > 0) reasons.push("same_type")
  if (sameLocation > 0) reasons.push("same_location")
  if (c.connections > 0) reasons.push("connections")
  if (c.members >= POPULAR_MEMBERS) reasons.push("popular")
  if (c.recentActivity >= ACTIVE_ITEMS) reasons.push("active")
  return { id: c.id, score: Math.round(score * 1000) / 1000, reasons }
}

/** The `limit` best candidates, highest score first; ties go to the larger, then the newer group. */
export const rankCandidates = (
  profile: MemberProfile,
  candidates: ReadonlyArray<Candidate>,
  limit: number
): ReadonlyArray<Scored & { readonly connections: number }> => {
  const byId = new Map(candidates.map((c) => [c.id, c] as const))
  return candidates
    .map((c) => scoreCandidate(profile, c))
    .sort((a, b) => b.score - a.score || byId.get(b.id)!.members - byId.get(a.id)!.members || b.id - a.id)
    .slice(0, limit)
    .map((s) => ({ ...s, connections: byId.get(s.id)!.connections }))
}

/** How many candidate groups are read and scored: the newest active public ones the member is not in. */
export const CANDIDATE_POOL = 200

const ProfileRow = Schema.Struct({ type_id: Schema.NullOr(DbInt), location: Schema.NullOr(Schema.String) })
const CandidateRow = Schema.Struct({ ...AdminGroupRow.fields, members: DbInt, messages: DbInt })
const MemberOfRow = Schema.Struct({ group_id: DbInt, user_id: DbInt })

/** Reads what the score needs for one member, in five queries whatever the pool's size. */
export class GroupRecommendations extends Effect.Service<GroupRecommendations>()("GroupRecommendations", {
  dependencies: [TenantSql.Default, MemberDirectory.Default, ConnectionDirectory.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const directory = yield* MemberDirectory
    const connections = yield* ConnectionDirectory
    const feed = yield* GroupFeedActivity

    /** The member's ranked groups as rows, or none when they are no member of this community. */
    const forMember = (userId: number, limit: number, since: Date) =>
      Effect.gen(function*() {
        if (Option.isNone(yield* directory.find(userId))) return Option.none()
        const [own, pool] = yield* Effect.all([
          db.query((tenantId) =>
            sql`SELECT g.type_id, g.location FROM group_members m
                JOIN groups g ON g.id = m.group_id AND g.tenant_id = ${tenantId} AND g.deleted_at IS NULL
                WHERE m.tenant_id = ${tenantId} AND m.user_id = ${userId} AND m.status = 'active'`.pipe(
              decodeRows(ProfileRow)
            )
          ),
          db.query((tenantId) =>
            sql`SELECT g.*,
                  (SELECT count(*) FROM group_members a
                   WHERE a.tenant_id = ${tenantId} AND a.group_id = g.id AND a.status = 'active')::int AS members,
                  (SELECT count(*) FROM group_messages c
                   WHERE c.tenant_id = ${tenantId} AND c.group_id = g.id AND c.created_at >= ${since})::int
                    AS messages
                FROM groups g
                WHERE g.tenant_id = ${tenantId} AND g.deleted_at IS NULL AND g.status = 'active'
                  AND g.visibility = 'public'
                  AND NOT EXISTS (SELECT 1 FROM group_members x
                                  WHERE x.tenant_id = ${tenantId} AND x.group_id = g.id AND x.user_id = ${userId})
                ORDER BY g.id DESC LIMIT ${CANDIDATE_POOL}`.pipe(decodeRows(CandidateRow))
          )
        ], { concurrency: 2 })
        const ids = pool.map((g) => g.id as number)
        const [posts, memberships] = yield* Effect.all([
          feed.postsSince(since, ids),
          ids.length === 0 ? Effect.succeed([]) : db.query((tenantId) =>
            sql`SELECT group_id, user_id FROM group_members
                WHERE tenant_id = ${tenantId} AND group_id = ANY(${pgArray(ids)}::bigint[])
                  AND status = 'active'`.pipe(decodeRows(MemberOfRow))
          )
        ], { concurrency: 2 })
        const connected = yield* connections.connectedAmong(userId, memberships.map((m) => m.user_id))
        const connectionsIn = new Map<number, number>()
        for (const m of memberships) {
          if (connected.has(m.user_id)) connectionsIn.set(m.group_id, (connectionsIn.get(m.group_id) ?? 0) + 1)
        }

        const types = new Map<number, number>()
        const locations = new Set<string>()
        for (const g of own) {
          if (g.type_id !== null) types.set(g.type_id, (types.get(g.type_id) ?? 0) + 1)
          const place = normaliseLocation(g.location)
          if (place !== undefined) locations.add(place)
        }
        const ranked = rankCandidates(
          { types, locations, groupCount: own.length },
          pool.map((g) => ({
            id: g.id,
            typeId: g.type_id,
            location: g.location,
            members: g.members,
            recentActivity: g.messages + (posts.byGroup.get(g.id) ?? 0),
            connections: connectionsIn.get(g.id) ?? 0
          })),
          limit
        )
        const rows = new Map(pool.map((g) => [g.id as number, g] as const))
        return Option.some(ranked.map((r) => ({ ...r, row: rows.get(r.id)! })))
      }).pipe(Effect.withSpan("GroupRecommendations.forMember"))

    return { forMember } as const
  })
}) {}
