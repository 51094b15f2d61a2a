import type { Actor } from "./Actor.js"
import { createCommunityRecords } from "./CommunityRecords.js"
import { createContentRecords } from "./ContentRecords.js"
import { createGamificationRecords } from "./GamificationRecords.js"
import { createGroupAdminRecords } from "./GroupAdminRecords.js"
import { createGroupTypeRecords } from "./GroupTypeRecords.js"
import { createMatchingRecords } from "./MatchingRecords.js"
import { multipart } from "./Requests.js"
import type { SetUpSteps } from "./SetUpSteps.js"

/**
 * Tenant A's records, one or more of every kind the API creates, each text carrying A's marker: categories, an
 * attribute, a listing, a poll and a vote, an event with an RSVP, reminders and a cover image, a recurring series,
 * a standalone series, organisations (one registered by a member and activated by the admin, one the admin owns)
 * with opportunities, applications, hours and reviews, a grant, a transfer and a deposit; and the community's
 * messages, connections, groups, feed and reports (`CommunityRecords.ts`).
 */

export interface RecordsOfA {
  /** The records of a kind the admin manages (its organisation, its opportunity, applications and hours to it). */
  readonly managed: Map<string, number>
  /** Paths of files uploaded (`/uploads/...`). */
  readonly uploads: ReadonlyArray<string>
}

export const createRecords = async (
  steps: SetUpSteps,
  who: {
    readonly admin: Actor
    readonly member: Actor
    readonly member2: Actor
    readonly marker: string
    /** Records an id of a kind. */
    readonly keep: (kind: string, id: unknown) => void
  }
): Promise<RecordsOfA> => {
  const { admin, keep, member, member2 } = who
  const m = who.marker
  const uploads: Array<string> = []
  const category = await steps.may("category", admin, "POST", "/api/v2/admin/categories", {
    name: `Category ${m}`,
    type: "listing",
    color: "blue"
  })
  keep("category", category?.["id"])
  const eventCategory = await steps.may("event category", admin, "POST", "/api/v2/admin/categories", {
    name: `Event category ${m}`,
    type: "event"
  })
  keep("category", eventCategory?.["id"])
  const attribute = await steps.may("attribute", admin, "POST", "/api/v2/admin/attributes", {
    name: `Attribute ${m}`,
    type: "select",
    options: [`Option ${m}`]
  })
  keep("attribute", attribute?.["id"])
  const listing = await steps.may("listing", member, "POST", "/api/v2/listings", {
    type: "offer",
    title: `Listing ${m}`,
    description: `Listing description ${m}`,
    location: `Place ${m}`,
    ...(category === undefined ? {} : { category_id: category["id"] })
  })
  keep("listing", listing?.["id"])
  const poll = await steps.may("poll", admin, "POST", "/api/v2/polls", {
    question: `Question ${m}?`,
    options: [`Yes ${m}`, `No ${m}`]
  })
  keep("poll", poll?.["id"])
  const options = Array.isArray(poll?.["options"]) ? poll["options"] as Array<{ id?: unknown }> : []
  for (const option of options) keep("option", option.id)

  const start = new Date(Date.now() + 3 * 86_400_000)
  start.setUTCHours(10, 0, 0, 0)
  const end = new Date(start.getTime() + 2 * 3_600_000)
  const event = await steps.may("event", admin, "POST", "/api/v2/events", {
    title: `Event ${m}`,
    description: `Event description ${m}`,
    start_time: start.toISOString(),
    end_time: end.toISOString(),
    location: `Hall ${m}`,
    // Shared with partners, so that their reads of it get past the visibility rule.
    federated_visibility: "partners",
    ...(eventCategory === undefined ? {} : { category_id: eventCategory["id"] }),
    ...(poll === undefined ? {} : { poll_ids: [poll["id"]] })
  })
  keep("event", event?.["id"])
  const recurring = await steps.may("recurring event", admin, "POST", "/api/v2/events/recurring", {
    title: `Recurring ${m}`,
    description: `Recurring description ${m}`,
    start_time: start.toISOString(),
    end_time: end.toISOString(),
    recurrence_frequency: "weekly",
    recurrence_ends_after_count: 3
  })
  keep("event", recurring?.["id"])
  const occurrences = Array.isArray(recurring?.["series_occurrences"])
    ? recurring["series_occurrences"] as Array<{ id?: unknown }>
    : []
  for (const occurrence of occurrences.slice(0, 2)) keep("event", occurrence.id)
  const series = await steps.may("series", admin, "POST", "/api/v2/events/series", {
    title: `Series ${m}`,
    description: `Series description ${m}`
  })
  keep("series", series?.["id"])
  if (event !== undefined) {
    const eventPath = `/api/v2/events/${String(event["id"])}`
    if (series !== undefined) {
      await steps.may("link series", admin, "POST", `${eventPath}/series`, { series_id: series["id"] })
    }
    await steps.may("rsvp", member, "POST", `${eventPath}/rsvp`, { status: "going" })
    const reminders = await steps.call("reminders", member, "PUT", `${eventPath}/reminders`, {
      reminders: [{ offset_minutes: 60, channel: "platform" }]
    })
    const list = (reminders.body as { data?: Array<{ id?: unknown }> } | undefined)?.data
    if (reminders.status !== 200) {
      steps.notes.push(`world: reminders answered ${reminders.status} ${reminders.text.slice(0, 200)}`)
    }
    for (const r of Array.isArray(list) ? list : []) keep("reminder", r.id)
    const cover = await uploadImage(steps, admin, `${eventPath}/image`)
    if (cover !== undefined) uploads.push(cover)
  }
  if (poll !== undefined && options[0] !== undefined) {
    await steps.may("vote", member, "POST", `/api/v2/polls/${String(poll["id"])}/vote`, { option_id: options[0].id })
  }

  const organisation = await steps.may("organisation", member, "POST", "/api/v2/volunteering/organisations", {
    name: `Organisation ${m}`,
    description: `Organisation description ${m}, long enough.`,
    contact_email: `org-${m}@example.org`,
    location: `Street ${m}`
  })
  keep("organisation", organisation?.["id"])
  if (organisation !== undefined) {
    const orgId = String(organisation["id"])
    await steps.may("activate organisation", admin, "PUT", `/api/v2/admin/volunteering/organizations/${orgId}/status`, {
      status: "active"
    })
    const opportunity = await steps.may(
      "opportunity",
      member,
      "POST",
      `/api/v2/volunteering/organisations/${orgId}/opportunities`,
      {
        title: `Opportunity ${m}`,
        description: `Opportunity description ${m}`,
        location: `Park ${m}`
      }
    )
    keep("opportunity", opportunity?.["id"])
    if (opportunity !== undefined) {
      const application = await steps.may(
        "application",
        member2,
        "POST",
        `/api/v2/volunteering/opportunities/${String(opportunity["id"])}/apply`,
        { message: `Application ${m}` }
      )
      keep("application", application?.["id"])
      if (application !== undefined) {
        await steps.may(
          "approve application",
          member,
          "PUT",
          `/api/v2/volunteering/applications/${String(application["id"])}`,
          {
            status: "approved"
          }
        )
      }
      // The admin volunteers too, so that the fuzz (sent as the admin) gets past "no approved application".
      const adminApplication = await steps.may(
        "admin application",
        admin,
        "POST",
        `/api/v2/volunteering/opportunities/${String(opportunity["id"])}/apply`,
        { message: `Admin application ${m}` }
      )
      if (adminApplication !== undefined) {
        await steps.may(
          "approve admin application",
          member,
          "PUT",
          `/api/v2/volunteering/applications/${String(adminApplication["id"])}`,
          { status: "approved" }
        )
      }
      const hours = await steps.may("hours", member2, "POST", "/api/v2/volunteering/hours", {
        organisation_id: organisation["id"],
        opportunity_id: opportunity["id"],
        date: new Date().toISOString().slice(0, 10),
        hours: 2,
        description: `Hours ${m}`
      })
      keep("hours", hours?.["id"])
    }
    const review = await steps.may("organisation review", member2, "POST", "/api/v2/volunteering/reviews", {
      target_type: "organization",
      target_id: organisation["id"],
      rating: 5,
      comment: `Review ${m}`
    })
    keep("review", review?.["id"])
  }
  const userReview = await steps.may("member review", member, "POST", "/api/v2/volunteering/reviews", {
    target_type: "user",
    target_id: member2.userId,
    rating: 4,
    comment: `Member review ${m}`
  })
  keep("review", userReview?.["id"])

  // An organisation the admin owns, with an opportunity, an approved application and pending hours sent to it.
  const managed = new Map<string, number>()
  const manage = (kind: string, id: unknown) => {
    keep(kind, id)
    if (typeof id === "number") managed.set(kind, id)
  }
  const adminOrganisation = await steps.may(
    "admin's organisation",
    admin,
    "POST",
    "/api/v2/admin/volunteering/organizations",
    {
      name: `Admin organisation ${m}`,
      description: `Admin organisation description ${m}, long enough.`,
      contact_email: `adminorg-${m}@example.org`,
      owner_id: admin.userId
    }
  )
  manage("organisation", adminOrganisation?.["id"])
  if (adminOrganisation !== undefined) {
    const orgId = String(adminOrganisation["id"])
    const opportunity = await steps.may(
      "admin's opportunity",
      admin,
      "POST",
      `/api/v2/volunteering/organisations/${orgId}/opportunities`,
      {
        title: `Admin opportunity ${m}`,
        description: `Admin opportunity description ${m}`
      }
    )
    manage("opportunity", opportunity?.["id"])
    if (opportunity !== undefined) {
      const application = await steps.may(
        "application to the admin's organisation",
        member2,
        "POST",
        `/api/v2/volunteering/opportunities/${String(opportunity["id"])}/apply`,
        { message: `Application to admin ${m}` }
      )
      manage("application", application?.["id"])
      if (application !== undefined) {
        await steps.may(
          "admin approves",
          admin,
          "PUT",
          `/api/v2/volunteering/applications/${String(application["id"])}`,
          {
            status: "approved"
          }
        )
        const hours = await steps.may(
          "hours for the admin's organisation",
          member2,
          "POST",
          "/api/v2/volunteering/hours",
          {
            organisation_id: adminOrganisation["id"],
            opportunity_id: opportunity["id"],
            date: new Date().toISOString().slice(0, 10),
            hours: 1.5,
            description: `Hours for admin ${m}`
          }
        )
        manage("hours", hours?.["id"])
      }
    }
  }

  const grant = await steps.may("grant", admin, "POST", "/api/v2/admin/wallet/grants", {
    user_id: member.userId,
    amount: 20,
    reason: `Grant ${m}`
  })
  keep("transaction", grant?.["id"])
  await steps.may("admin's own funds", admin, "POST", "/api/v2/admin/wallet/grants", {
    user_id: admin.userId,
    amount: 500,
    reason: `Admin funds ${m}`
  })
  const transfer = await steps.may("transfer", member, "POST", "/api/v2/wallet/transfers", {
    recipient_id: member2.userId,
    amount: 1,
    description: `Transfer ${m}`
  })
  keep("transaction", transfer?.["id"])
  if (organisation !== undefined) {
    const deposit = await steps.may(
      "deposit",
      member,
      "POST",
      `/api/v2/volunteering/organisations/${String(organisation["id"])}/wallet/deposit`,
      { amount: 2, note: `Deposit ${m}` }
    )
    keep("transaction", deposit?.["transaction_id"])
  }
  const run = await steps.may("job run", admin, "POST", "/api/v2/admin/background-jobs/tokens.purge/run", {})
  keep("run", run?.["id"])
  await createCommunityRecords(steps, { admin, member, member2, marker: m, keep, listingId: listing?.["id"] })
  await createContentRecords(steps, { admin, marker: m, keep })
  await createGamificationRecords(steps, { admin, member, marker: m, keep })
  await createGroupTypeRecords(steps, { admin, marker: m, keep })
  await createGroupAdminRecords(steps, { admin, member, marker: m, keep })
  await createMatchingRecords(steps, { admin, member2, marker: m, keep })
  return { managed, uploads }
}

const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64"
)

const uploadImage = async (steps: SetUpSteps, actor: Actor, path: string): Promise<string | undefined> => {
  const body = multipart([{ name: "image", filename: "cover.png", contentType: "image/png", data: PNG_1X1 }])
  const request = {
    method: "POST",
    path,
    headers: { ...actor.headers(), "content-type": body.contentType },
    body: body.bytes
  }
  const response = await steps.sender.send(request)
  steps.exchanges.push({ name: "event image", request, response })
  if (response.status !== 200) {
    steps.notes.push(`world: event image answered ${response.status} ${response.text.slice(0, 200)}`)
    return undefined
  }
  try {
    const cover = (JSON.parse(response.text) as { data?: { cover_image?: unknown } }).data?.cover_image
    return typeof cover === "string" && cover.startsWith("/") ? cover : undefined
  } catch {
    return undefined
  }
}
