import { assert, describe, it } from "@effect/vitest"
import {
  secondsOfCents,
  TIMEOVERFLOW_MAX_SECONDS,
  timeOverflowSettingsIssues,
  timeOverflowSignature
} from "@timebank/server"
/**
 * shared/federation/fixtures/timeoverflow/15-webhook-inbound.signature-vectors.json: fixture 14's body (without its
 * trailing newline) signed with Python's hmac, as TimeOverflow accepts it (four parts), and the two forms we must
 * not produce (body only, NEXUS's five parts with a nonce).
 */
const vectors = {
  secret: "test_webhook_secret",
  path: "/api/v1/webhooks/receive",
  timestamp: "1777629600",
  fourPart: "e94d69512ca3e6e95523c188e8aa52bf63b3e09447444ec5311f8213883b0a70",
  bodyOnly: "a8c83f6e522d4728b6e72b231f29f23b91aa4637bc7b468f5b8d40c7c354276f",
  nexusFivePart: "026235c4ae8cb0e62f743cc57ab37255f312d106c9c4a8c726eff6511ad35811"
}
const body = "{\"event\":\"transaction.requested\",\"partner_id\":1,\"data\":{\"external_transaction_id\":" +
  "\"nexus-tx-4712\",\"local_organization_id\":1,\"local_member_uid\":1,\"remote_user_identifier\":" +
  "\"bob@partner.example\",\"amount\":3600,\"reason\":\"Lesson\"}}"

describe("TimeOverflow webhook signature (four parts, no nonce)", () => {
  it("signs METHOD\\nPATH\\nTIMESTAMP\\nBODY as TimeOverflow verifies it (fixture 15)", () => {
    const signature = timeOverflowSignature(vectors.secret, {
      method: "post",
      path: vectors.path,
      timestamp: vectors.timestamp,
      body
    })
    assert.strictEqual(signature, vectors.fourPart)
    // Neither the body-only form nor NEXUS's five-part string is what we send.
    assert.notStrictEqual(signature, vectors.bodyOnly)
    assert.notStrictEqual(signature, vectors.nexusFivePart)
  })

  it("covers every part: another path, timestamp, body or secret changes it", () => {
    const parts = { method: "POST", path: vectors.path, timestamp: vectors.timestamp, body }
    const base = timeOverflowSignature(vectors.secret, parts)
    for (
      const changed of [
        { ...parts, path: `${vectors.path}?x=1` },
        { ...parts, timestamp: "1777629601" },
        { ...parts, body: `${body} ` }
      ]
    ) {
      assert.notStrictEqual(timeOverflowSignature(vectors.secret, changed), base)
    }
    assert.notStrictEqual(timeOverflowSignature(`${vectors.secret}x`, parts), base)
    assert.match(base, /^[0-9a-f]{64}$/)
  })
})

describe("TimeOverflow amounts: whole seconds, at most 360 000", () => {
  it("converts hundredths of an hour exactly", () => {
    assert.deepStrictEqual(secondsOfCents(150), { seconds: 5400 })
    assert.deepStrictEqual(secondsOfCents(1), { seconds: 36 })
    assert.deepStrictEqual(secondsOfCents(10_000), { seconds: TIMEOVERFLOW_MAX_SECONDS })
  })

  it("refuses more than 100 hours, naming TimeOverflow's maximum", () => {
    const refused = secondsOfCents(10_001)
    assert.isTrue("refused" in refused)
    if ("refused" in refused) {
      assert.include(refused.refused, "TimeOverflow")
      assert.include(refused.refused, "360000 seconds")
      assert.include(refused.refused, "360036")
    }
    assert.isTrue("refused" in secondsOfCents(0))
  })
})

describe("TimeOverflow settings", () => {
  it("need remote_partner_id, a whole number above 0", () => {
    assert.deepStrictEqual(timeOverflowSettingsIssues({ remote_partner_id: 7, credit_limit: 10 }), [])
    for (const bad of [0, -1, 1.5, "7", true, [7]]) {
      assert.deepStrictEqual(
        timeOverflowSettingsIssues({ remote_partner_id: bad }).map((i) => i.field),
        ["settings.remote_partner_id"],
        JSON.stringify(bad)
      )
    }
    const missing = timeOverflowSettingsIssues({})
    assert.deepStrictEqual(missing.map((i) => i.field), ["settings.remote_partner_id"])
    assert.include(missing[0]!.message, "required")
  })
})
