import { Effect } from "effect"
import type { FederationProtocol } from "./FederationProtocol.js"

// PLACEHOLDER while the adapter is being written (issue 17): replaced before it lands.
export const makeNativeProtocol: Effect.Effect<FederationProtocol> = Effect.succeed({
  name: "native",
  requiredCredentials: [],
  optionalCredentials: [],
  settingsIssues: () => [],
  recipientIssue: () => undefined,
  prepare: () => Effect.dieMessage("native adapter not written yet"),
  send: () => Effect.dieMessage("native adapter not written yet"),
  diagnose: () => Effect.dieMessage("native adapter not written yet")
})
