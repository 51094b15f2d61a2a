import { HttpApiBuilder } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect } from "effect"
import { OrganisationsService } from "./OrganisationsService.js"

export const OrganisationsHttpLive = HttpApiBuilder.group(Api, "organisations", (handlers) =>
  Effect.gen(function*() {
    const organisations = yield* OrganisationsService
    return handlers
      .handle("directory", ({ urlParams }) => organisations.directory(urlParams))
      .handle("get", ({ path }) => Effect.map(organisations.get(path.id), ok))
      .handle("mine", () => Effect.map(organisations.mine(), ok))
      .handle("register", ({ payload }) => Effect.map(organisations.register(payload), ok))
      .handle("update", ({ path, payload }) => Effect.map(organisations.update(path.id, payload), ok))
  }))
