import {
  type CurrentTenant,
  type CursorMeta,
  cursorPage,
  encodeCursor,
  FEDERATION_PER_PAGE_DEFAULT,
  type FederationEvent,
  type FederationEventListParams,
  type FederationGroup,
  type FederationListing,
  type FederationListParams,
  type FederationMember,
  type FederationOpportunity,
  type FederationReview,
  type FederationReviewListParams,
  NotFound
} from "@timebank/domain"
import { Clock, Effect, Option } from "effect"
import { type SharedEvent, SharedEvents } from "../../events/SharedEvents.js"
import { SharedGroups } from "../../groups/SharedGroups.js"
import { type SharedMember, SharedMembers } from "../../identity/SharedMembers.js"
import { type SharedListing, SharedListings } from "../../listings/SharedListings.js"
import { idCursorPage } from "../../platform/Paging.js"
import { type SharedReview, SharedVolunteering } from "../../volunteering/SharedVolunteering.js"
import { eventView, groupView, listingView, memberView, opportunityView, reviewView } from "./InboundViews.js"

type Page<A> = { readonly data: ReadonlyArray<A>; readonly meta: CursorMeta }

const perPageOf = (params: { readonly per_page?: number | undefined }) => params.per_page ?? FEDERATION_PER_PAGE_DEFAULT

/**
 * The partner reads of `/api/v1/federation/*` (decisions D13, D13a) for the calling key's community (the
 * handler provides it as `CurrentTenant`). Every record is read through its owner's federated read; a page is one
 * query plus one per relation (owners, categories, skills, organisers, reviewers).
 */
export class InboundReadsService extends Effect.Service<InboundReadsService>()("InboundReadsService", {
  dependencies: [
    SharedMembers.Default,
    SharedListings.Default,
    SharedEvents.Default,
    SharedGroups.Default,
    SharedVolunteering.Default
  ],
  effect: Effect.gen(function*() {
    const members = yield* SharedMembers
    const listings = yield* SharedListings
    const events = yield* SharedEvents
    const groups = yield* SharedGroups
    const volunteering = yield* SharedVolunteering

    // A listing whose owner opted out between the two queries is left out rather than shown without an owner.
    const listingViews = (rows: ReadonlyArray<SharedListing>) =>
      Effect.map(
        Effect.all({
          owners: members.byIds(rows.map((r) => r.user_id)),
          categories: listings.categoriesOf(rows)
        }, { concurrency: 2 }),
        ({ categories, owners }) =>
          rows.flatMap((row) => {
            const owner = owners.get(row.user_id)
            const category = row.category_id === null ? undefined : categories.get(row.category_id)
            return owner === undefined ? [] : [listingView(row, owner, category)]
          })
      )

    const memberViews = (rows: ReadonlyArray<SharedMember>) =>
      Effect.map(
        listings.offeredCategories(rows.map((m) => m.id)),
        (skills) => rows.map((m) => memberView(m, skills.get(m.id) ?? []))
      )

    const eventViews = (rows: ReadonlyArray<SharedEvent>) =>
      Effect.map(
        members.byIds(rows.map((e) => e.user_id)),
        (organisers) => rows.map((e) => eventView(e, organisers.get(e.user_id)))
      )

    const reviewViews = (member: SharedMember) => (rows: ReadonlyArray<SharedReview>) =>
      Effect.map(
        members.byIds(rows.flatMap((r) => (r.reviewer_id === null ? [] : [r.reviewer_id]))),
        (reviewers) =>
          rows.map((r) => reviewView(r, member, r.reviewer_id === null ? undefined : reviewers.get(r.reviewer_id)))
      )

    const listListings = (params: FederationListParams): Effect.Effect<Page<FederationListing>, never, CurrentTenant> =>
      Effect.gen(function*() {
        const perPage = perPageOf(params)
        const owners = yield* members.optedInIds
        const rows = yield* listings.page(owners, { before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, listingViews)
      })

    const getListing = (id: number): Effect.Effect<FederationListing, NotFound, CurrentTenant> =>
      Effect.gen(function*() {
        const row = yield* Effect.flatMap(members.optedInIds, (owners) => listings.find(owners, id))
        const views = Option.isNone(row) ? [] : yield* listingViews([row.value])
        if (views[0] === undefined) return yield* NotFound.of("Listing")
        return views[0]
      })

    const listMembers = (params: FederationListParams): Effect.Effect<Page<FederationMember>, never, CurrentTenant> =>
      Effect.gen(function*() {
        const perPage = perPageOf(params)
        const rows = yield* members.page({ before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, memberViews)
      })

    const getMember = (id: number): Effect.Effect<FederationMember, NotFound, CurrentTenant> =>
      Effect.gen(function*() {
        const member = yield* members.find(id)
        if (Option.isNone(member)) return yield* NotFound.of("Member")
        const [view] = yield* memberViews([member.value])
        return view!
      })

    const listEvents = (
      params: FederationEventListParams
    ): Effect.Effect<Page<FederationEvent>, never, CurrentTenant> =>
      Effect.gen(function*() {
        const perPage = perPageOf(params)
        const now = new Date(yield* Clock.currentTimeMillis)
        const rows = yield* events.upcoming({ now, after: params.cursor, limit: perPage + 1 })
        const page = cursorPage(rows, perPage, (last) => encodeCursor([last.start_time.getTime(), last.id]))
        return { data: yield* eventViews(page.data), meta: page.meta }
      })

    const getEvent = (id: number): Effect.Effect<FederationEvent, NotFound, CurrentTenant> =>
      Effect.gen(function*() {
        const row = yield* events.find(id)
        if (Option.isNone(row)) return yield* NotFound.of("Event")
        const [view] = yield* eventViews([row.value])
        return view!
      })

    const listGroups = (params: FederationListParams): Effect.Effect<Page<FederationGroup>, never, CurrentTenant> =>
      Effect.gen(function*() {
        const perPage = perPageOf(params)
        const owners = yield* members.optedInIds
        const rows = yield* groups.page(owners, { before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, (page) => Effect.succeed(page.map(groupView)))
      })

    const listReviews = (
      params: FederationReviewListParams
    ): Effect.Effect<Page<FederationReview>, NotFound, CurrentTenant> =>
      Effect.gen(function*() {
        const member = yield* members.find(params.member_id)
        if (Option.isNone(member)) return yield* new NotFound({ message: "Member not found", field: "member_id" })
        const perPage = perPageOf(params)
        const rows = yield* volunteering.reviewsOf(member.value.id, { before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, reviewViews(member.value))
      })

    const listOpportunities = (
      params: FederationListParams
    ): Effect.Effect<Page<FederationOpportunity>, never, CurrentTenant> =>
      Effect.gen(function*() {
        const perPage = perPageOf(params)
        const rows = yield* volunteering.openOpportunities({ before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, (page) => Effect.succeed(page.map(opportunityView)))
      })

    return {
      listListings,
      getListing,
      listMembers,
      getMember,
      listEvents,
      getEvent,
      listGroups,
      listReviews,
      listOpportunities
    } as const
  })
}) {}
