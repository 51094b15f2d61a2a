import { Schema } from "effect"
import { RecordId } from "../http/Ids.js"
import { GroupTypePolicies, type GroupTypePoliciesInput } from "./GroupTypePolicies.js"

export const GroupTypeId = RecordId.pipe(Schema.brand("GroupTypeId"))
export type GroupTypeId = typeof GroupTypeId.Type

/** A kind of group the community offers (managed by its admins; names are unique per community, any case). */
export class GroupType extends Schema.Class<GroupType>("GroupType")({
  id: GroupTypeId,
  name: Schema.String,
  description: Schema.String,
  policies: GroupTypePolicies.annotations({ description: "What groups of this type allow (decisions D17)" }),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

/** The type as a group shows it. */
export const GroupTypeSummary = Schema.Struct({ id: GroupTypeId, name: Schema.String })
export type GroupTypeSummary = typeof GroupTypeSummary.Type

/** What a new group type is made of (the admin catalogue creates them). */
export interface NewGroupType {
  readonly name: string
  readonly description?: string | undefined
  /** Policies other than the defaults (members create, open joins, no limit, a chatroom). */
  readonly policies?: GroupTypePoliciesInput | undefined
}
