import { Effect } from "effect"
import type { FederationProtocol } from "./FederationProtocol.js"

// PLACEHOLDER while the adapter is being written (issue 17): replaced before it lands.
export const makeCreditCommonsProtocol: Effect.Effect<FederationProtocol> = Effect.succeed({
  name: "credit_commons",
  requiredCredentials: [],
  optionalCredentials: [],
  settingsIssues: () => [],
  recipientIssue: () => undefined,
  prepare: () => Effect.dieMessage("credit_commons adapter not written yet"),
  send: () => Effect.dieMessage("credit_commons adapter not written yet"),
  diagnose: () => Effect.dieMessage("credit_commons adapter not written yet")
})
