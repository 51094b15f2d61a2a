import { Effect } from "effect"
import type { FederationProtocol } from "./FederationProtocol.js"

// PLACEHOLDER while the adapter is being written (issue 17): replaced before it lands.
export const makeTimeOverflowProtocol: Effect.Effect<FederationProtocol> = Effect.succeed({
  name: "timeoverflow",
  requiredCredentials: [],
  optionalCredentials: [],
  settingsIssues: () => [],
  recipientIssue: () => undefined,
  prepare: () => Effect.dieMessage("timeoverflow adapter not written yet"),
  send: () => Effect.dieMessage("timeoverflow adapter not written yet"),
  diagnose: () => Effect.dieMessage("timeoverflow adapter not written yet")
})
