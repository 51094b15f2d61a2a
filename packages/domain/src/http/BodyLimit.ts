import { Context } from "effect"

/**
 * An endpoint annotation that raises the request-body cap (`MAX_BODY_BYTES`, default 1 MiB) for that endpoint only,
 * for uploads: `HttpApiEndpoint.post(...).annotate(MaxBodyBytes, 10 * 1024 * 1024)`. The HTTP edge reads it from the
 * contract; every other route keeps the default cap.
 */
export class MaxBodyBytes extends Context.Tag("timebank/http/MaxBodyBytes")<MaxBodyBytes, number>() {}
