// Baseline for `npm run bench -- conversations`: a member's conversations on a bare node:http + pg server doing the
// same SQL as the API (the bearer token's user, the page of summary rows joined to their last messages, then the
// other members' names), with prepared statements and hand-written JSON of the same shape. The tenant is taken from
// X-Tenant-ID as given (no tenant lookup), the token is checked by one query, nothing else (no feature switch, no
// policy, no request id, no edge guard).
import { createHash } from "node:crypto"
import { barePool, decodeCursor, pageMeta, send, serveTenantGet, userSummaries } from "./bareLib.js"

const pool = barePool("bench-bare-conversations")

const PATH = "/api/v2/messages/conversations"
const PER_PAGE_DEFAULT = 20
const PER_PAGE_MAX = 100

const CALLER = {
  name: "conversations_caller",
  text: `SELECT u.id FROM auth_sessions s JOIN users u ON u.id = s.user_id
         WHERE s.id = (SELECT session_id FROM access_tokens WHERE token_hash = $1 AND expires_at > now())
           AND s.revoked_at IS NULL AND s.expires_at > now() AND u.deleted_at IS NULL AND u.tenant_id = $2`
}

const pageQuery = (cursor: boolean) => ({
  name: `conversations_page_${cursor}`,
  text: `SELECT tm.thread_id, tm.other_user_id, tm.unread_count, tm.last_message_id,
                m.sender_id, m.subject, m.body, m.created_at
         FROM message_thread_members tm
         JOIN messages m ON m.id = tm.last_message_id AND m.tenant_id = tm.tenant_id
         WHERE tm.tenant_id = $1 AND tm.user_id = $2 ${cursor ? "AND tm.last_message_id < $4" : ""}
         ORDER BY tm.last_message_id DESC LIMIT $3`
})

interface Row {
  thread_id: string
  other_user_id: string
  unread_count: number
  last_message_id: string
  sender_id: string
  subject: string | null
  body: string
  created_at: Date
}

const conversations = async (tenantId: number, userId: string, url: URL) => {
  const perPageText = url.searchParams.get("per_page")
  const perPage = perPageText === null ? PER_PAGE_DEFAULT : Number(perPageText)
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > PER_PAGE_MAX) return undefined
  const cursorText = url.searchParams.get("cursor")
  const cursor = cursorText === null ? undefined : decodeCursor(cursorText)
  if (cursorText !== null && cursor === undefined) return undefined
  const values: Array<unknown> = [tenantId, userId, perPage + 1]
  if (cursor !== undefined) values.push(cursor)
  const { rows } = await pool.query<Row>({ ...pageQuery(cursor !== undefined), values })
  const page = rows.slice(0, perPage)
  const userOf = await userSummaries(pool, tenantId, page.map((r) => r.other_user_id))
  const data = page.map((row) => ({
    thread_id: Number(row.thread_id),
    user: userOf(row.other_user_id),
    last_message: {
      id: Number(row.last_message_id),
      body: row.body,
      subject: row.subject,
      sender_id: Number(row.sender_id),
      created_at: row.created_at.toISOString()
    },
    unread_count: row.unread_count
  }))
  return { data, meta: pageMeta(perPage, rows.length > perPage, data.at(-1)?.last_message.id) }
}

const AUTH_REQUIRED = { errors: [{ code: "AUTH_REQUIRED", message: "sign in" }] }

serveTenantGet(pool, PATH, async (tenantId, url, req, res) => {
  const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
  if (token === undefined) return send(res, 401, AUTH_REQUIRED)
  const hash = createHash("sha256").update(token).digest("hex")
  const caller = await pool.query<{ id: string }>({ ...CALLER, values: [hash, tenantId] })
  if (caller.rows.length === 0) return send(res, 401, AUTH_REQUIRED)
  const body = await conversations(tenantId, caller.rows[0]!.id, url)
  return body === undefined
    ? send(res, 422, { errors: [{ code: "VALIDATION_ERROR", message: "bad cursor or per_page" }] })
    : send(res, 200, body)
})
