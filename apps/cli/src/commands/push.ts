import { generateVapidKeys } from "@timebank/server"
import { Effect } from "effect"
import type { Command } from "../Command.js"

export const pushVapidKeys: Command<"none"> = {
  name: "push vapid-keys",
  summary: "print a new VAPID key pair for web push (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY)",
  synopsis: "",
  positionals: [],
  flags: [],
  needs: "none",
  run: () =>
    Effect.sync(() => {
      const keys = generateVapidKeys()
      return {
        json: { public_key: keys.publicKey, private_key: keys.privateKey },
        // Lines an environment file takes as they are.
        text: `VAPID_PUBLIC_KEY=${keys.publicKey}\nVAPID_PRIVATE_KEY=${keys.privateKey}`
      }
    })
}
