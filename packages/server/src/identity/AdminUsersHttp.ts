import { HttpApiBuilder, type HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Api, ok, ValidationFailed } from "@timebank/domain"
import { Effect, Option } from "effect"
import { decodeUtf8, describeAt, firstUnstorable } from "../platform/InputScan.js"
import { readMultipartForm } from "../platform/MultipartForm.js"
import { AdminUsersService } from "./AdminUsersService.js"

const NO_FILE = "attach the CSV file as the multipart/form-data field `file`"

const invalid = (message: string) => ValidationFailed.field("file", message)

/**
 * The text of the upload's `file` part (a file, or a plain field holding the CSV), which must be UTF-8 and hold no
 * character a field may not (control characters, unpaired surrogates). Anything unreadable is a 422 on `file`,
 * never a hang or a 500.
 */
const csvUpload = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<string, ValidationFailed> =>
  Effect.gen(function*() {
    if (!/^\s*multipart\/form-data\b/i.test(request.headers["content-type"] ?? "")) return yield* invalid(NO_FILE)
    const read = yield* readMultipartForm(request)
    if (Option.isNone(read)) return yield* invalid("is not a readable multipart/form-data upload")
    const form = read.value
    const file = form.get("file")
    if (file === null) return yield* invalid(NO_FILE)
    const text = typeof file === "string"
      ? file
      : decodeUtf8(yield* Effect.promise(() => file.arrayBuffer()))
    if (text === undefined) return yield* invalid("must be UTF-8 text")
    const at = firstUnstorable(text)
    if (at !== -1) {
      return yield* invalid(`line ${lineAt(text, at)} contains ${describeAt(text, at)}, which no field may hold`)
    }
    return text
  })

const lineAt = (text: string, index: number) => text.slice(0, index).split("\n").length

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
