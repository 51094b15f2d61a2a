import { Schema } from "effect"

/** A community was created (platform event, recorded under the new community). */
export class TenantCreated extends Schema.TaggedClass<TenantCreated>()("TenantCreated", {
  tenant_id: Schema.Number,
  slug: Schema.String
}) {}
