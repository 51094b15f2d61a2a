import type { Actor } from "./Actor.js"
import type { SetUpSteps } from "./SetUpSteps.js"

/**
 * Tenant A's community records (decisions D14): messages both ways, a connection the admin is asked for, a group
 * the admin owns with a member and a chatroom message, a feed post with a like and a comment (and one in the
 * group), and a member report. Each text carries A's marker; the admin is a party to each, so the fuzz, which runs
 * as the admin, reaches past the role checks.
 */
export const createCommunityRecords = async (
  steps: SetUpSteps,
  who: {
    readonly admin: Actor
    readonly member: Actor
    readonly member2: Actor
    readonly marker: string
    readonly keep: (kind: string, id: unknown) => void
    /** A listing of A to report. */
    readonly listingId: unknown
  }
): Promise<void> => {
  const { admin, keep, member, member2 } = who
  const m = who.marker
  const message = await steps.may("message", admin, "POST", "/api/v2/messages", {
    recipient_id: member.userId,
    subject: `Subject ${m}`,
    body: `Message ${m}`
  })
  keep("message", message?.["id"])
  await steps.may("message reply", member, "POST", "/api/v2/messages", {
    recipient_id: admin.userId,
    body: `Reply ${m}`
  })
  const connection = await steps.may("connection", member, "POST", "/api/v2/connections", { user_id: admin.userId })
  keep("connection", connection?.["id"])
  const pending = await steps.may("connection 2", member2, "POST", "/api/v2/connections", { user_id: member.userId })
  keep("connection", pending?.["id"])

  const group = await steps.may("group", admin, "POST", "/api/v2/groups", {
    name: `Group ${m}`,
    description: `Group description ${m}`,
    visibility: "private",
    location: `Place ${m}`
  })
  keep("group", group?.["id"])
  if (group !== undefined) {
    const path = `/api/v2/groups/${String(group["id"])}`
    await steps.may("group join", member, "POST", `${path}/join`)
    await steps.may("group approval", admin, "PUT", `${path}/members/${member.userId}`, { status: "active" })
    await steps.may("group chatroom", member, "POST", `${path}/messages`, { body: `Chatroom ${m}` })
    const groupPost = await steps.may("group post", member, "POST", "/api/v2/feed/posts", {
      body: `Group post ${m}`,
      group_id: group["id"]
    })
    keep("post", groupPost?.["id"])
  }

  const post = await steps.may("post", admin, "POST", "/api/v2/feed/posts", { body: `Post ${m}` })
  keep("post", post?.["id"])
  if (post !== undefined) {
    const path = `/api/v2/feed/posts/${String(post["id"])}`
    await steps.may("like", member, "POST", `${path}/like`)
    const comment = await steps.may("comment", admin, "POST", `${path}/comments`, { body: `Comment ${m}` })
    keep("comment", comment?.["id"])
  }

  const report = await steps.may("report", admin, "POST", "/api/v2/reports", {
    target_type: "listing",
    target_id: who.listingId,
    reason: `Reason ${m}`,
    details: `Details ${m}`
  })
  keep("report", report?.["id"])
}
