/** What a push carries (decisions D12), from a bell already rendered in the recipient's language. */
export interface PushMessage {
  readonly title: string
  readonly body: string
  readonly link: string | null
  readonly type: string
  readonly notification_id: number
}

/** Where one push goes: a browser subscription or a device token (stored in `endpoint`). */
export interface PushTarget {
  readonly subscriptionId: number
  readonly kind: "web" | "fcm" | "apns"
  readonly endpoint: string
  readonly p256dh: string | null
  readonly auth: string | null
}
