import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { OrganisationsService } from "./OrganisationsService.js"

export const OrganisationsHttpLive = HttpApiBuilder.group(Api, "organisations", (handlers) =>
  Effect.gen(function*() {
    const organisations = yield* OrganisationsService
    return handlers
      // The page comes already in its wire form (DirectoryPage): sent as it is, not encoded through the schema again.
      .handle("directory", ({ urlParams }) =>
        Effect.map(organisations.directory(urlParams), HttpServerResponse.unsafeJson))
      .handle("get", ({ path }) =>
        Effect.map(organisations.get(path.id), ok))
      .handle("mine", () => Effect.map(organisations.mine(), ok))
      .handle("register", ({ payload }) => Effect.map(organisations.register(payload), ok))
      .handle("update", ({ path, payload }) => Effect.map(organisations.update(path.id, payload), ok))
  }))
