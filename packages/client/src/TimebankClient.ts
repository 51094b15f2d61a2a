import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { Api } from "@timebank/domain"
import { Context, Effect, Layer } from "effect"
import { type ClientOptions, headersOf } from "./headers.js"

const withHeaders = (headers: Record<string, string>) => <E, R>(client: HttpClient.HttpClient.With<E, R>) =>
  Object.keys(headers).length === 0
    ? client
    : HttpClient.mapRequest(client, (request) => HttpClientRequest.setHeaders(request, headers))

const baseUrlOf = (options: ClientOptions) => options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }

/** Options of `TimebankClient.make`: those of every client, and a last change to its `HttpClient`. */
export interface EffectClientOptions extends ClientOptions {
  /** Changes the HttpClient further, after the headers are set (retries, tracing, keeping bodies). */
  readonly transformClient?: (client: HttpClient.HttpClient) => HttpClient.HttpClient
}

const make = (options: EffectClientOptions = {}) =>
  HttpApiClient.make(Api, {
    transformClient: (client) => {
      const withOptions = withHeaders(headersOf(options))(client)
      return options.transformClient === undefined ? withOptions : options.transformClient(withOptions)
    },
    ...baseUrlOf(options)
  })

const makeWith = <E, R>(httpClient: HttpClient.HttpClient.With<E, R>, options: ClientOptions = {}) =>
  HttpApiClient.makeWith(Api, { httpClient: withHeaders(headersOf(options))(httpClient), ...baseUrlOf(options) })

/** The typed client: one method per endpoint, grouped as the contract groups them (`client.wallet.transfer`). */
export type Client = Effect.Effect.Success<ReturnType<typeof make>>

/**
 * The typed Effect client of the timebank API: `HttpApiClient` of the contract in `@timebank/domain`, so every call
 * takes the contract's path, URL parameters, headers and payload, and answers its decoded success or one of its
 * declared errors (`NotFound`, `InsufficientBalance`, … each with the envelope's code and message as a tagged
 * class, for `Effect.catchTag`).
 *
 *   const client = yield* TimebankClient.make({ baseUrl: "https://timebank.example.org", tenant: "acme", token })
 *   const page = yield* client.listings.list({ urlParams: {} })
 *
 * Needs an `HttpClient` (`FetchHttpClient.layer`, `NodeHttpClient.layerUndici`). Making a client reflects the whole
 * contract (a fraction of a second): make one per base URL and caller, and keep it.
 */
export class TimebankClient extends Context.Tag("@timebank/client/TimebankClient")<TimebankClient, Client>() {
  /** The client over the `HttpClient` of the context, with the headers of `options` on every request. */
  static readonly make = make

  /**
   * The client over a given `HttpClient` (that may carry its own base URL or per-call headers), with the headers of
   * `options` on every request.
   */
  static readonly makeWith = makeWith

  /** The client made with `options` as a service; needs an `HttpClient` (e.g. `FetchHttpClient.layer`). */
  static readonly layer = (options: EffectClientOptions): Layer.Layer<TimebankClient, never, HttpClient.HttpClient> =>
    Layer.effect(TimebankClient, make(options))
}
