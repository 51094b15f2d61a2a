import { assert, describe, it } from "@effect/vitest"
import {
  CategoryId,
  CursorPage,
  DirectoryOrganisation,
  Listing,
  ListingId,
  OrganisationId,
  RecordId,
  UserId
} from "@timebank/domain"
import { directoryItemJson, type DirectoryPageRow, listingJson, type ListingPageRow } from "@timebank/server"
import { DateTime, Schema } from "effect"

// The hot lists (organisation directory, listings) write their items' JSON by hand from decoded rows instead of
// encoding views through the contract's schemas. These hold the two to the very same bytes, nulls and fallbacks
// included, so the OpenAPI contract and the answers stay as they were.

const createdAt = new Date("2026-03-04T05:06:07.089Z")
const updatedAt = new Date("2026-03-05T00:00:00.000Z")

const directoryRows: ReadonlyArray<DirectoryPageRow> = [
  {
    id: OrganisationId.make(42),
    name: "River Friends",
    description: "We clean the river \"every\" Sunday; ünïcode too.",
    logo_url: "https://img.example.org/logo.png",
    website: "https://river.example.org",
    contact_email: "river@example.org",
    location: "District 9",
    created_at: createdAt,
    user_id: UserId.make(7),
    owner_first_name: "Ada",
    owner_last_name: "Lovelace",
    owner_avatar_url: "https://img.example.org/ada.png",
    opportunity_count: 3,
    volunteer_count: 2,
    total_hours: 12.75,
    average_rating: 2.6666666666666665
  },
  {
    id: OrganisationId.make(41),
    name: "Quiet One",
    description: "Nobody has reviewed us yet, nor logged hours.",
    logo_url: null,
    website: null,
    contact_email: "quiet@example.org",
    location: null,
    created_at: updatedAt,
    user_id: UserId.make(8),
    owner_first_name: null,
    owner_last_name: null,
    owner_avatar_url: null,
    opportunity_count: 0,
    volunteer_count: 0,
    total_hours: 0,
    average_rating: null
  }
]

/** The view the directory built before (owner "Deleted User" when the user is not found), as the class. */
const directoryView = (row: DirectoryPageRow) =>
  DirectoryOrganisation.make({
    id: row.id,
    name: row.name,
    description: row.description,
    logo_url: row.logo_url,
    website: row.website,
    contact_email: row.contact_email,
    location: row.location,
    opportunity_count: row.opportunity_count,
    volunteer_count: row.volunteer_count,
    total_hours: row.total_hours,
    average_rating: row.average_rating === null ? null : Math.round(row.average_rating * 10 + 1e-9) / 10,
    created_at: DateTime.unsafeFromDate(row.created_at),
    owner: {
      id: RecordId.make(row.user_id),
      first_name: row.owner_first_name ?? "Deleted",
      last_name: row.owner_last_name ?? "User",
      avatar_url: row.owner_first_name === null ? null : row.owner_avatar_url
    }
  })

const listingRows: ReadonlyArray<ListingPageRow> = [
  {
    id: ListingId.make(9),
    type: "offer",
    title: "Garden help",
    description: "Weeding, \\ backslashes and \n new lines.",
    status: "active",
    hours_estimate: 1.5,
    location: "District 3",
    category_id: 5,
    category_name: "Garden",
    category_slug: "garden",
    attributes: { "12": "blue", "13": 2, "14": true },
    user_id: UserId.make(3),
    owner_first_name: "Mia",
    owner_last_name: "Meyer",
    owner_avatar_url: null,
    created_at: createdAt,
    updated_at: updatedAt
  },
  {
    id: ListingId.make(8),
    type: "request",
    title: "Lift to town",
    description: "No category, an owner the users table no longer has.",
    status: "active",
    hours_estimate: null,
    location: null,
    category_id: null,
    category_name: null,
    category_slug: null,
    attributes: {},
    user_id: UserId.make(4),
    owner_first_name: null,
    owner_last_name: null,
    owner_avatar_url: null,
    created_at: createdAt,
    updated_at: createdAt
  }
]

/** The view ListingViews builds for the same row. */
const listingView = (row: ListingPageRow) =>
  Listing.make({
    id: row.id,
    type: row.type,
    title: row.title,
    description: row.description,
    status: row.status,
    hours_estimate: row.hours_estimate,
    location: row.location,
    category_id: row.category_id === null ? null : CategoryId.make(row.category_id),
    category: row.category_id === null
      ? null
      : { id: CategoryId.make(row.category_id), name: row.category_name!, slug: row.category_slug! },
    attributes: row.attributes,
    user_id: row.user_id,
    user: {
      id: row.user_id,
      first_name: row.owner_first_name ?? "Deleted",
      last_name: row.owner_last_name ?? "User",
      avatar_url: row.owner_avatar_url
    },
    created_at: DateTime.unsafeFromDate(row.created_at),
    updated_at: DateTime.unsafeFromDate(row.updated_at)
  })

const meta = { per_page: 2, has_more: true, cursor: "NDE" }

describe("list pages written as JSON once", () => {
  it("a directory page has the bytes of CursorPage(DirectoryOrganisation) encoded", () => {
    const bySchema = Schema.encodeSync(CursorPage(DirectoryOrganisation))({
      data: directoryRows.map(directoryView),
      meta
    })
    const byHand = { data: directoryRows.map(directoryItemJson), meta }
    assert.strictEqual(JSON.stringify(byHand), JSON.stringify(bySchema))
    // And what it writes is what the contract accepts.
    assert.doesNotThrow(() => Schema.decodeUnknownSync(CursorPage(DirectoryOrganisation))(byHand))
  })

  it("a listings page has the bytes of CursorPage(Listing) encoded", () => {
    const bySchema = Schema.encodeSync(CursorPage(Listing))({
      data: listingRows.map(listingView),
      meta: { per_page: 2, has_more: false }
    })
    const byHand = { data: listingRows.map(listingJson), meta: { per_page: 2, has_more: false } }
    assert.strictEqual(JSON.stringify(byHand), JSON.stringify(bySchema))
    assert.doesNotThrow(() => Schema.decodeUnknownSync(CursorPage(Listing))(byHand))
  })
})
