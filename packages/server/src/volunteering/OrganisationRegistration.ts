import {
  AlreadyExists,
  DomainEvents,
  type OrganisationStatus,
  type RegisterOrganisation,
  type UpdateOrganisation
} from "@timebank/domain"
import { Effect, Random } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { slugify } from "../platform/Slug.js"
import { definedOnly } from "../platform/SqlErrors.js"
import { TenantSql } from "../platform/TenantSql.js"
import { organisationNotFound } from "./OrganisationPolicy.js"
import { OrganisationRepo, type OrganisationRow, type OrganisationWrite } from "./OrganisationRepo.js"

/** Spec "Limits": slug collision retries, 3 attempts; then 500 `SERVER_ERROR`. */
export const ORGANISATION_SLUG_ATTEMPTS = 3

export const organisationNameTaken = () =>
  new AlreadyExists({ message: "An organisation with this name exists in this community", field: "name" })

/** The slug of attempt `n` (from 1): the name's slug, then the name's slug with a random 6-hex suffix. */
export const slugCandidate = (name: string, attempt: number) =>
  attempt === 1
    ? Effect.succeed(slugify(name, "organisation"))
    : Effect.map(
      Random.nextIntBetween(0, 0x1000000),
      (n) => `${slugify(name, "organisation")}-${n.toString(16).padStart(6, "0")}`
    )

/** The organisation a slug collision could not place after every attempt: a defect, answered 500. */
export class SlugAttemptsExhausted extends Error {
  constructor(readonly organisationName: string) {
    super(`no free slug for organisation "${organisationName}" after ${ORGANISATION_SLUG_ATTEMPTS} attempts`)
  }
}

export interface NewOrganisation extends RegisterOrganisation {
  readonly ownerId: number
  readonly status: OrganisationStatus
}

/**
 * Creating and renaming organisations, shared by member registration and the admin routes: the name is unique per
 * community (case-insensitive, 409 `ALREADY_EXISTS`); the slug is made from the name and retried with a random
 * suffix when taken; the owner gets an active `owner` membership in the same transaction.
 */
export class OrganisationRegistration extends Effect.Service<OrganisationRegistration>()("OrganisationRegistration", {
  dependencies: [OrganisationRepo.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* OrganisationRepo
    const outbox = yield* Outbox

    const insertWithSlug = (input: NewOrganisation) =>
      Effect.gen(function*() {
        for (let attempt = 1; attempt <= ORGANISATION_SLUG_ATTEMPTS; attempt++) {
          const outcome: OrganisationWrite = yield* repo.insert({
            userId: input.ownerId,
            name: input.name,
            slug: yield* slugCandidate(input.name, attempt),
            description: input.description,
            contactEmail: input.contact_email,
            website: input.website ?? null,
            logoUrl: input.logo_url ?? null,
            location: input.location ?? null,
            status: input.status
          })
          if (outcome._tag === "Written") return outcome.row
          if (outcome._tag === "NameTaken") return yield* organisationNameTaken()
        }
        return yield* Effect.die(new SlugAttemptsExhausted(input.name))
      })

    const create = Effect.fn("Organisations.create")(function*(input: NewOrganisation, createdBy: number) {
      if (yield* repo.nameTaken(input.name)) return yield* organisationNameTaken()
      return yield* db.transaction(Effect.gen(function*() {
        const row = yield* insertWithSlug(input)
        yield* repo.addMember(row.id, input.ownerId, "owner", "active")
        yield* outbox.append(
          new DomainEvents.OrganisationRegistered({
            organisation_id: row.id,
            user_id: input.ownerId,
            name: row.name,
            status: row.status,
            created_by: createdBy
          })
        )
        return row
      }))
    })

    /** Profile fields (and, for admins, more); a new name must be free. */
    const update = Effect.fn("Organisations.update")(function*(
      row: OrganisationRow,
      patch: UpdateOrganisation,
      updatedBy: number
    ) {
      const fields = Object.keys(definedOnly(patch))
      if (fields.length === 0) return row
      if (patch.name !== undefined && (yield* repo.nameTaken(patch.name, row.id))) {
        return yield* organisationNameTaken()
      }
      return yield* db.transaction(Effect.gen(function*() {
        const outcome = yield* repo.update(row.id, patch)
        if (outcome._tag === "NotFound") return yield* organisationNotFound()
        if (outcome._tag !== "Written") return yield* organisationNameTaken()
        yield* outbox.append(
          new DomainEvents.OrganisationUpdated({
            organisation_id: row.id,
            fields,
            updated_by: updatedBy
          })
        )
        return outcome.row
      }))
    })

    return { create, update } as const
  })
}) {}
