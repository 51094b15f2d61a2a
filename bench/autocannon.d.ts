// The package ships no types; this declares the part of its API the benchmarks use.
declare module "autocannon" {
  namespace autocannon {
    interface Options {
      readonly url: string
      readonly connections?: number
      readonly duration?: number
      readonly method?: string
      readonly headers?: Record<string, string>
      /** A sequence of requests each connection cycles through; `setupRequest` may change each one as it is sent. */
      readonly requests?: ReadonlyArray<RequestSpec>
    }
    interface RequestSpec {
      readonly path?: string
      readonly method?: string
      readonly headers?: Record<string, string>
      readonly setupRequest?: (request: RawRequest) => RawRequest
    }
    interface RawRequest {
      path: string
      method: string
      headers: Record<string, string>
    }
    interface Histogram {
      readonly average: number
      readonly p50: number
      readonly p99: number
    }
    interface Result {
      readonly requests: Histogram & { readonly total: number }
      readonly latency: Histogram
      readonly errors: number
      readonly timeouts: number
      readonly non2xx: number
      readonly "2xx": number
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>
  export = autocannon
}
