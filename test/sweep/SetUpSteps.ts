import type { Actor } from "./Actor.js"
import type { HttpSender, RawRequest, RawResponse } from "./HttpSender.js"

/** One request of the set-up, kept so that the sweep checks it like any other. */
export interface Exchange {
  readonly name: string
  readonly request: RawRequest
  readonly response: RawResponse
}

/** Set-up requests: those that must work, those the sweep can do without (noted when they fail). */
export class SetUpSteps {
  readonly notes: Array<string> = []
  readonly exchanges: Array<Exchange> = []

  constructor(readonly sender: HttpSender) {}

  async call(name: string, actor: Actor | undefined, method: string, path: string, body?: unknown) {
    const headers = actor === undefined ? {} : actor.headers()
    const res = await this.sender.json(method, path, headers, body)
    this.exchanges.push({
      name,
      request: { method, path, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
      response: res
    })
    return res
  }

  /** A step that must work: its `data`, or an error that stops the sweep. */
  async must(name: string, actor: Actor | undefined, method: string, path: string, body?: unknown) {
    const res = await this.call(name, actor, method, path, body)
    if (res.status < 200 || res.status >= 300) {
      throw new Error(`world: ${name}: ${method} ${path} answered ${res.status} ${res.text.slice(0, 500)}`)
    }
    return (res.body as { data?: Record<string, unknown> } | undefined)?.data ?? {}
  }

  /** A step the sweep can do without: its `data`, or undefined and a note. */
  async may(name: string, actor: Actor | undefined, method: string, path: string, body?: unknown) {
    try {
      return await this.must(name, actor, method, path, body)
    } catch (error) {
      this.notes.push(error instanceof Error ? error.message : String(error))
      return undefined
    }
  }
}
