import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Policies per group type (decisions D17 "Groups admin"): who may create groups of the type, whether joining needs an
 * organiser's approval, how many active members a group of the type holds (NULL: no limit), and whether its groups
 * have a chatroom. The defaults are what groups did before types had policies.
 */
export default Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    ALTER TABLE group_types
      ADD COLUMN who_can_create text NOT NULL DEFAULT 'members' CHECK (who_can_create IN ('members', 'admins')),
      ADD COLUMN join_policy text NOT NULL DEFAULT 'open' CHECK (join_policy IN ('open', 'approval')),
      ADD COLUMN max_members integer CHECK (max_members > 0),
      ADD COLUMN chatroom boolean NOT NULL DEFAULT true`
})
