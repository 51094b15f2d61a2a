import { dialectOfPath } from "./Dialects.js"
import { type HttpSender, type RawRequest, Unsendable } from "./HttpSender.js"
import type { OpenApiModel } from "./OpenApiModel.js"
import { pathValuesFor, pool } from "./Paths.js"
import type { Expectation, Recorder } from "./Recorder.js"
import { makePlan, render } from "./Requests.js"
import type { IdSource, ValueContext } from "./Values.js"
import type { World } from "./World.js"

export const EXTRA = "extra"

/** What a file of the host would show if the uploads route served it. */
const HOST_FILES = ["root:x:0:0", "[extensions]", "begin rsa private key"]

const UNDOCUMENTED_METHODS = ["PATCH", "PUT", "DELETE", "POST", "GET"]

/**
 * Routes outside the document (the document itself, docs, health, uploads, unknown paths) and, on every documented
 * path, a method the document does not list there: the same checks, 405 for the wrong method, and nothing of the
 * host's files through the uploads route.
 */
export const extraRoutes = async (
  model: OpenApiModel,
  sender: HttpSender,
  recorder: Recorder,
  world: World,
  ids: IdSource,
  contextFor: (op: (typeof model.operations)[number], ids: IdSource) => ValueContext
) => {
  const tenant = { "x-tenant-id": String(world.a.tenant.id) }
  const requests: Array<{ name: string; request: RawRequest; expectation: Expectation }> = [
    ...["/api/v2/openapi.json", "/api/docs", "/api/framework/health", "/api/v2/health", "/api/v2/health/ready"].map((
      path
    ) => ({ name: `GET ${path}`, request: { method: "GET", path, headers: {} }, expectation: { statuses: [200] } })),
    ...world.uploads.map((path) => ({
      name: "GET an uploaded file",
      request: { method: "GET", path, headers: {} },
      expectation: { statuses: [200] }
    })),
    ...[
      "/uploads/..%2f..%2f..%2f..%2fetc%2fpasswd",
      "/uploads/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
      "/uploads/../../../../etc/passwd",
      "/uploads/%00",
      "/uploads/%ff",
      "/uploads/",
      "/uploads/..%5c..%5cwindows%5cwin.ini",
      `/uploads/${"u".repeat(5000)}`,
      "/api/v2/sweep-unknown",
      "/api/v2/",
      "/",
      "/api/v2/openapi.json/%00",
      "/api/docs/../../etc/passwd"
    ].map((path) => ({
      name: `GET ${path.slice(0, 60)}`,
      request: { method: "GET", path, headers: tenant },
      expectation: { markers: HOST_FILES }
    }))
  ]
  const seen = new Set<string>()
  for (const op of model.operations) {
    if (seen.has(op.path)) continue
    seen.add(op.path)
    const documented = new Set(model.operations.filter((o) => o.path === op.path).map((o) => o.method))
    const method = UNDOCUMENTED_METHODS.find((m) => !documented.has(m))
    if (method === undefined) continue
    const values = contextFor(op, ids)
    const plan = makePlan(op, values, pathValuesFor(model, op, ids, values))
    requests.push({
      name: `${method} ${op.path} (not documented)`,
      request: render(plan, { auth: world.a.admin.headers() }, { method }),
      // Credit Commons' errors are bare messages (decisions D16): no code to compare.
      expectation: dialectOfPath(op.path) === "credit_commons"
        ? { statuses: [405] }
        : { statuses: [405], codes: ["METHOD_NOT_ALLOWED"] }
    })
  }
  await pool(requests, 4, async ({ expectation, name, request }) => {
    try {
      const response = await sender.send(request)
      recorder.check(EXTRA, name, name, "A admin", request, response, expectation)
    } catch (error) {
      if (!(error instanceof Unsendable)) throw error
      recorder.unsendable(EXTRA, name, name, error.message)
    }
  })
}
