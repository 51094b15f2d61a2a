// The fetch example of README.md, typechecked with the repository (`npm run typecheck`).
import { createTimebankClient } from "@timebank/client"

const baseUrl = "http://localhost:8080"

export const main = async () => {
  const visitor = createTimebankClient({ baseUrl, tenant: "acme" })
  const login = await visitor.POST("/api/v2/auth/login", {
    body: { email: "ada@example.org", password: "correct horse battery" }
  })
  if (login.data === undefined) throw new Error(login.error.errors[0]?.code)

  const api = createTimebankClient({ baseUrl, tenant: "acme", token: login.data.access_token })
  const offers = await api.GET("/api/v2/listings", { params: { query: { type: "offer" } } })
  const titles = offers.data?.data.map((listing) => listing.title)

  // Any other status than the success answers `error`, our envelope: here 404 and `NOT_FOUND` if there is no 7.
  const listing = await api.GET("/api/v2/listings/{id}", { params: { path: { id: 7 } } })
  const missing = listing.response.status === 404 ? listing.error?.errors[0]?.code : undefined

  // Money moves once per Idempotency-Key: a retry with the same key answers the first transaction.
  const paid = await api.POST("/api/v2/wallet/transfers", {
    params: { header: { "idempotency-key": crypto.randomUUID() } },
    body: { recipient_id: 42, amount: 1.5, description: "Gardening" }
  })
  return { titles, missing, transaction: paid.data?.data.id, refused: paid.error?.errors[0]?.code }
}
