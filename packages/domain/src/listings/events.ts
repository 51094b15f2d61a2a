import { Schema } from "effect"

export class ListingCreated extends Schema.TaggedClass<ListingCreated>()("ListingCreated", {
  listing_id: Schema.Number,
  user_id: Schema.Number,
  type: Schema.String,
  title: Schema.String,
  status: Schema.String,
  category_id: Schema.NullOr(Schema.Number)
}) {}

/** An edit by the author, or an admin's change of status (which also names `previous_status`). */
export class ListingUpdated extends Schema.TaggedClass<ListingUpdated>()("ListingUpdated", {
  listing_id: Schema.Number,
  user_id: Schema.Number,
  fields: Schema.Array(Schema.String),
  previous_status: Schema.optionalWith(Schema.String, { exact: true }),
  status: Schema.String,
  updated_by: Schema.Number
}) {}

export class ListingDeleted extends Schema.TaggedClass<ListingDeleted>()("ListingDeleted", {
  listing_id: Schema.Number,
  user_id: Schema.Number,
  type: Schema.String,
  status: Schema.String,
  deleted_by: Schema.Number
}) {}

export class CategoryCreated extends Schema.TaggedClass<CategoryCreated>()("CategoryCreated", {
  category_id: Schema.Number,
  type: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  created_by: Schema.Number
}) {}

export class CategoryUpdated extends Schema.TaggedClass<CategoryUpdated>()("CategoryUpdated", {
  category_id: Schema.Number,
  fields: Schema.Array(Schema.String),
  type: Schema.String,
  unassigned_listing_ids: Schema.Array(Schema.Number),
  updated_by: Schema.Number
}) {}

export class CategoryDeleted extends Schema.TaggedClass<CategoryDeleted>()("CategoryDeleted", {
  category_id: Schema.Number,
  type: Schema.String,
  unassigned_listing_ids: Schema.Array(Schema.Number),
  deleted_by: Schema.Number
}) {}

export class AttributeCreated extends Schema.TaggedClass<AttributeCreated>()("AttributeCreated", {
  attribute_id: Schema.Number,
  name: Schema.String,
  created_by: Schema.Number
}) {}

/** `dropped_values`: how many listings lost their value for this attribute. */
export class AttributeUpdated extends Schema.TaggedClass<AttributeUpdated>()("AttributeUpdated", {
  attribute_id: Schema.Number,
  fields: Schema.Array(Schema.String),
  dropped_values: Schema.Number,
  updated_by: Schema.Number
}) {}

export class AttributeDeleted extends Schema.TaggedClass<AttributeDeleted>()("AttributeDeleted", {
  attribute_id: Schema.Number,
  dropped_values: Schema.Number,
  deleted_by: Schema.Number
}) {}
