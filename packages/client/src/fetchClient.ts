import createClient, { type Client } from "openapi-fetch"
import type { components, paths } from "./generated/openapi.js"
import { type ClientOptions, headersOf } from "./headers.js"

/**
 * The fetch client for programs without Effect: `openapi-fetch` typed by the API's OpenAPI document (types made by
 * `npm run generate` from the contract), so paths, parameters, bodies and each status's response are checked.
 *
 *   const api = createTimebankClient({ baseUrl: "https://timebank.example.org", tenant: "acme", token })
 *   const { data, error, response } = await api.GET("/api/v2/listings/{id}", { params: { path: { id: 7 } } })
 *
 * `data` is the success body, `error` the body of any other status: our envelope `{ errors: [{ code, message,
 * field? }] }`. Nothing is thrown for an error status; only a network failure rejects.
 */
export type TimebankFetchClient = Client<paths, "application/json">

/** The schemas of the OpenAPI document by name (`Schemas["Listing"]`, `Schemas["WalletTransaction"]`). */
export type Schemas = components["schemas"]

export type { components, paths }

export interface FetchClientOptions extends ClientOptions {
  readonly baseUrl: string | URL
  /** The fetch to use (defaults to `globalThis.fetch`). */
  readonly fetch?: (request: Request) => Promise<Response>
}

/** The fetch client for `baseUrl`, sending the tenant, bearer token and further headers with every request. */
export const createTimebankClient = (options: FetchClientOptions): TimebankFetchClient =>
  createClient<paths, "application/json">({
    baseUrl: String(options.baseUrl).replace(/\/+$/, ""),
    headers: headersOf(options),
    ...(options.fetch === undefined ? {} : { fetch: options.fetch })
  })
