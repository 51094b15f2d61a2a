import { CC_ADDRESS, CC_NODE_PATH, type ValidationIssue } from "@timebank/domain"

/** A Credit Commons partner's place in the tree (decisions D16: settings `our_node_path`, `peer_node_path`). */
export interface CreditCommonsSettings {
  /** Our node's absolute path (`trunk/branch2`): our members are `<our_node_path>/<account code>`. */
  readonly ourNodePath: string
  /** The partner's node path (`trunk`): it names itself in `cc-node` by its last segment(s). */
  readonly peerNodePath: string
}

const SETTING_KEYS = ["our_node_path", "peer_node_path"] as const

const MAX_PATH = 255

/** What is wrong with a partner's node paths (422 `settings.<k>`); none when both are usable. */
export const ccSettingsIssues = (settings: Readonly<Record<string, unknown>>): ReadonlyArray<ValidationIssue> =>
  SETTING_KEYS.flatMap((key) => {
    const value = settings[key]
    if (value === undefined || value === null) {
      return [{ field: `settings.${key}`, message: "is required for credit_commons partners" }]
    }
    if (typeof value !== "string" || value.length > MAX_PATH || !CC_NODE_PATH.test(value)) {
      return [{ field: `settings.${key}`, message: "must be a node path such as trunk/branch2 (no spaces)" }]
    }
    return []
  })

/** The node paths of a partner whose settings hold them, else undefined. */
export const ccSettingsOf = (settings: Readonly<Record<string, unknown>>): CreditCommonsSettings | undefined =>
  ccSettingsIssues(settings).length > 0
    ? undefined
    : { ourNodePath: settings["our_node_path"] as string, peerNodePath: settings["peer_node_path"] as string }

/** What is wrong with a recipient's address (`trunk/branch/ACCOUNT`), or undefined. */
export const ccRecipientIssue = (recipient: string): string | undefined =>
  recipient.length <= MAX_PATH && CC_ADDRESS.test(recipient)
    ? undefined
    : "must be a Credit Commons address such as trunk/branch2/TEST0002"

/** Whether `ccNode` (a `cc-node` header) names the node at `peerNodePath`: its whole path or its last segments. */
export const namesNode = (ccNode: string, peerNodePath: string) =>
  peerNodePath === ccNode || peerNodePath.endsWith(`/${ccNode}`)
