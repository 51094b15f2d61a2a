import type { Actor } from "./Actor.js"
import type { SetUpSteps } from "./SetUpSteps.js"

/**
 * Tenant A's help page and blog (decisions D17 "Help"): a published FAQ and an unpublished one, a published blog
 * post and a draft, each text carrying A's marker. The published post's slug is its own id, so that the public
 * `/blog/{slug}` route, whose segment before the parameter names the `blog` kind, gets a slug that exists in A (and
 * must be 404 on B) from the sweep's id pool.
 */
export const createContentRecords = async (
  steps: SetUpSteps,
  who: {
    readonly admin: Actor
    readonly marker: string
    readonly keep: (kind: string, id: unknown) => void
  }
): Promise<void> => {
  const { admin, keep } = who
  const m = who.marker
  const faq = await steps.may("faq", admin, "POST", "/api/v2/admin/help/faqs", {
    question: `Question ${m}?`,
    answer: `Answer ${m}`,
    category: `category-${m}`
  })
  keep("faq", faq?.["id"])
  const hiddenFaq = await steps.may("unpublished faq", admin, "POST", "/api/v2/admin/help/faqs", {
    question: `Hidden question ${m}?`,
    answer: `Hidden answer ${m}`,
    is_published: false
  })
  keep("faq", hiddenFaq?.["id"])

  const post = await steps.may("blog post", admin, "POST", "/api/v2/admin/blog", {
    title: `Post ${m}`,
    excerpt: `Excerpt ${m}`,
    content: `Content ${m}`,
    status: "published"
  })
  keep("blog", post?.["id"])
  if (post !== undefined) {
    await steps.may("blog slug", admin, "PUT", `/api/v2/admin/blog/${String(post["id"])}`, {
      slug: String(post["id"])
    })
  }
  const draft = await steps.may("blog draft", admin, "POST", "/api/v2/admin/blog", {
    title: `Draft ${m}`,
    content: `Draft content ${m}`
  })
  keep("blog", draft?.["id"])
}
