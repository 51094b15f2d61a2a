import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Api, ok, ValidationFailed } from "@timebank/domain"
import { Effect } from "effect"
import { AdminUsersService } from "./AdminUsersService.js"

const NO_FILE = "attach the CSV file as the multipart/form-data field `file`"

const invalid = (message: string) => ValidationFailed.field("file", message)

/**
 * The text of the upload's `file` part (a file, or a plain field holding the CSV), which must be UTF-8.
 *
 * The body is read whole (the edge caps it at MAX_BODY_BYTES: a larger one is 413) and parsed by the runtime's
 * `FormData`, not by the streaming parser behind the contract's `MultipartStream`: that one never finishes on a body
 * cut off inside a part's headers, and fails as a defect without a boundary. Anything unreadable is a 422 on `file`,
 * never a hang or a 500.
 */
const csvUpload = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, ValidationFailed> =>
  Effect.gen(function*() {
    const contentType = request.headers["content-type"] ?? ""
    if (!/^\s*multipart\/form-data\b/i.test(contentType)) return yield* invalid(NO_FILE)
    // Failures here (too large, connection lost) are the edge's to answer, as for JSON bodies.
    const body = yield* Effect.orDie(request.arrayBuffer)
    const form = yield* Effect.tryPromise({
      try: () => new Response(body, { headers: { "content-type": contentType } }).formData(),
      catch: () => invalid("is not a readable multipart/form-data upload")
    })
    const file = form.get("file")
    if (file === null) return yield* invalid(NO_FILE)
    if (typeof file === "string") return file
    const bytes = yield* Effect.promise(() => file.arrayBuffer())
    return yield* Effect.try({
      try: () => new TextDecoder("utf-8", { fatal: true }).decode(bytes),
      catch: () => invalid("must be UTF-8 text")
    })
  })

export const AdminUsersHttpLive = HttpApiBuilder.group(Api, "adminUsers", (handlers) =>
  Effect.gen(function*() {
    const admin = yield* AdminUsersService
    return handlers
      .handle("list", ({ urlParams }) => admin.list(urlParams))
      .handle("create", ({ payload }) => Effect.map(admin.create(payload), ok))
      .handle("import", ({ request }) => Effect.map(admin.importCsv(csvUpload(request)), ok))
      .handle("importTemplate", () =>
        Effect.map(admin.importTemplate, (csv) =>
          HttpServerResponse.text(csv, {
            contentType: "text/csv; charset=utf-8",
            headers: { "content-disposition": "attachment; filename=\"users-import-template.csv\"" }
          })))
      .handle("get", ({ path }) => Effect.map(admin.get(path.id), ok))
      .handle("update", ({ path, payload }) => Effect.map(admin.update(path.id, payload), ok))
      .handle("delete", ({ path }) => Effect.map(admin.erase(path.id), ok))
      .handle("approve", ({ path }) => Effect.map(admin.approve(path.id), ok))
      .handle("suspend", ({ path }) => Effect.map(admin.suspend(path.id), ok))
      .handle("ban", ({ path }) => Effect.map(admin.ban(path.id), ok))
      .handle("reactivate", ({ path }) => Effect.map(admin.reactivate(path.id), ok))
      .handle("setPassword", ({ path, payload }) => Effect.map(admin.setPassword(path.id, payload.password), ok))
      .handle("sendPasswordReset", ({ path }) => Effect.map(admin.sendPasswordReset(path.id), ok))
      .handle("sendWelcomeEmail", ({ path }) => Effect.map(admin.sendWelcomeEmail(path.id), ok))
      .handle("setSuperAdmin", ({ path, payload }) =>
        Effect.map(admin.setSuperAdmin(path.id, payload.is_super_admin), ok))
      .handle("impersonate", ({ path }) =>
        Effect.map(admin.impersonate(path.id), ok))
      .handle("consents", ({ path }) => Effect.map(admin.consents(path.id), ok))
      .handle("resetTwoFactor", ({ path }) => Effect.map(admin.resetTwoFactor(path.id), ok))
  }))
