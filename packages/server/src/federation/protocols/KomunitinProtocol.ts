import { Effect } from "effect"
import type { FederationProtocol } from "./FederationProtocol.js"

// PLACEHOLDER while the adapter is being written (issue 17): replaced before it lands.
export const makeKomunitinProtocol: Effect.Effect<FederationProtocol> = Effect.succeed({
  name: "komunitin",
  requiredCredentials: [],
  optionalCredentials: [],
  settingsIssues: () => [],
  recipientIssue: () => undefined,
  prepare: () => Effect.dieMessage("komunitin adapter not written yet"),
  send: () => Effect.dieMessage("komunitin adapter not written yet"),
  diagnose: () => Effect.dieMessage("komunitin adapter not written yet")
})
