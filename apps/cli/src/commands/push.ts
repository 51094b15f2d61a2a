import { generateVapidKeys } from "@timebank/server"
import { Effect } from "effect"
import type { AnyCommand, Command } from "../Command.js"

export const pushVapidKeys: Command<"none"> = {
  name: "push vapid-keys",
  summary: "print a new VAPID key pair for web push (VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY)",
  details: "The text output is two lines an environment file takes as they are. Needs no database.",
  positionals: [],
  options: [],
  examples: ["push vapid-keys >> .env", "push vapid-keys --json"],
  needs: "none",
  run: () =>
    Effect.sync(() => {
      const keys = generateVapidKeys()
      return {
        json: { public_key: keys.publicKey, private_key: keys.privateKey },
        text: `VAPID_PUBLIC_KEY=${keys.publicKey}\nVAPID_PRIVATE_KEY=${keys.privateKey}`
      }
    })
}

export const pushCommands: ReadonlyArray<AnyCommand> = [pushVapidKeys]
