/** Who a client speaks for: the community, the caller's token, and any further headers. */
export interface ClientOptions {
  /** Origin of the API, such as `https://timebank.example.org` (paths start with `/api/v2`). */
  readonly baseUrl?: string | URL
  /** The community: a slug is sent as `X-Tenant-Slug`, a numeric id as `X-Tenant-ID`. */
  readonly tenant?: string | number
  /** An access token (from `POST /api/v2/auth/login`), sent as `Authorization: Bearer …`. */
  readonly token?: string
  /** Further headers sent with every request; they win over those made from `tenant` and `token`. */
  readonly headers?: Readonly<Record<string, string>>
}

/** The headers `options` stand for, as sent with every request. */
export const headersOf = (options: ClientOptions): Record<string, string> => ({
  ...(options.tenant === undefined
    ? {}
    : typeof options.tenant === "number"
    ? { "x-tenant-id": String(options.tenant) }
    : { "x-tenant-slug": options.tenant }),
  ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
  ...options.headers
})
