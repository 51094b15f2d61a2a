import { Schema } from "effect"

/** A member registered; `requires_approval` false means they are a member at once. */
export class UserRegistered extends Schema.TaggedClass<UserRegistered>()("UserRegistered", {
  user_id: Schema.Number,
  email: Schema.String,
  first_name: Schema.String,
  last_name: Schema.String,
  requires_approval: Schema.Boolean
}) {}

/**
 * A user created by an admin (`source` "admin"), an import (`source` "import") or the CLI/bootstrap (neither
 * `source` nor `created_by`).
 */
export class UserCreated extends Schema.TaggedClass<UserCreated>()("UserCreated", {
  user_id: Schema.Number,
  email: Schema.String,
  role: Schema.String,
  is_super_admin: Schema.Boolean,
  source: Schema.optionalWith(Schema.Literal("admin", "import"), { exact: true }),
  created_by: Schema.optionalWith(Schema.Number, { exact: true })
}) {}

export class UserUpdated extends Schema.TaggedClass<UserUpdated>()("UserUpdated", {
  user_id: Schema.Number,
  fields: Schema.Array(Schema.String),
  updated_by: Schema.Number
}) {}

export class UserRoleChanged extends Schema.TaggedClass<UserRoleChanged>()("UserRoleChanged", {
  user_id: Schema.Number,
  from: Schema.String,
  to: Schema.String,
  changed_by: Schema.Number
}) {}

export class UserErased extends Schema.TaggedClass<UserErased>()("UserErased", {
  user_id: Schema.Number,
  erased_by: Schema.Number
}) {}

/** The fields of an admin's change of a user's status (approve, suspend, ban, reactivate). */
const statusChange = {
  user_id: Schema.Number,
  previous_status: Schema.String,
  status: Schema.String,
  changed_by: Schema.Number
}

export class UserApproved extends Schema.TaggedClass<UserApproved>()("UserApproved", statusChange) {}
export class UserSuspended extends Schema.TaggedClass<UserSuspended>()("UserSuspended", statusChange) {}
export class UserBanned extends Schema.TaggedClass<UserBanned>()("UserBanned", statusChange) {}
export class UserReactivated extends Schema.TaggedClass<UserReactivated>()("UserReactivated", statusChange) {}

export class UserPasswordSet extends Schema.TaggedClass<UserPasswordSet>()("UserPasswordSet", {
  user_id: Schema.Number,
  set_by: Schema.Number
}) {}

/** The member reset their own password through an emailed link. */
export class UserPasswordReset extends Schema.TaggedClass<UserPasswordReset>()("UserPasswordReset", {
  user_id: Schema.Number
}) {}

export class UserSuperAdminChanged extends Schema.TaggedClass<UserSuperAdminChanged>()("UserSuperAdminChanged", {
  user_id: Schema.Number,
  is_super_admin: Schema.Boolean,
  changed_by: Schema.Number
}) {}

export class UserImpersonated extends Schema.TaggedClass<UserImpersonated>()("UserImpersonated", {
  user_id: Schema.Number,
  impersonator_id: Schema.Number,
  session_id: Schema.Number
}) {}

export class UserTwoFactorReset extends Schema.TaggedClass<UserTwoFactorReset>()("UserTwoFactorReset", {
  user_id: Schema.Number,
  reset_by: Schema.Number
}) {}

/**
 * A member changed what partners may see of their profile (decisions D13: `member.profile_updated`), or opted in to
 * federation (`federation_opt_in` among `fields`). Carries the profile as it now is, as partners read it.
 */
export class MemberProfileUpdated extends Schema.TaggedClass<MemberProfileUpdated>()("MemberProfileUpdated", {
  user_id: Schema.Number,
  fields: Schema.Array(Schema.String),
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String),
  bio: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  updated_by: Schema.Number
}) {}

/** A member withdrew their federation opt-in (or was erased while opted in): partners retract what they hold. */
export class MemberFederationOptedOut
  extends Schema.TaggedClass<MemberFederationOptedOut>()("MemberFederationOptedOut", {
    user_id: Schema.Number,
    changed_by: Schema.Number
  })
{}
