/**
 * The webhook transport against real sockets: targets are checked at connection time against the
 * allowed-hosts list (loopback is refused by default, before any connection), the address checked
 * is the one connected to, and redirects are answers, not followed.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { parseAllowedHosts } from "@kiln/domain/webhook/AllowedHosts"
import { HookTransport, type OutgoingRequest } from "@kiln/domain/webhook/HookTransport"
import * as NodeHookTransport from "../../src/platform/NodeHookTransport.ts"
import { makeHookReceiver } from "../support/HookReceiver.ts"

const post = (url: string): OutgoingRequest => ({ method: "POST", url, headers: [["Content-Type", "application/json"]], body: "{}" })

const send = (request: OutgoingRequest, allowedHosts: string) =>
  Effect.flatMap(HookTransport, (transport) =>
    transport.send(request, { timeout: 2_000, allowed: parseAllowedHosts(allowedHosts) })).pipe(Effect.provide(NodeHookTransport.layer))

describe("NodeHookTransport", () => {
  it.live("refuses a loopback receiver under the default list without connecting", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const result = yield* send(post(receiver.url), "external")
      assert.deepStrictEqual(result, {
        _tag: "Refused",
        message: "Delivery: webhook can only call allowed HTTP servers (check your KILN_WEBHOOK_ALLOWED_HOSTS setting), deny '127.0.0.1(127.0.0.1)'"
      })
      const byName = yield* send(post(receiver.url.replace("127.0.0.1", "localhost")), "external")
      assert.strictEqual(byName._tag, "Refused")
      assert.strictEqual(receiver.received.length, 0)
    })))

  it.live("connects to the checked address of a name, and sends the headers given", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const result = yield* send(post(receiver.url.replace("127.0.0.1", "localhost")), "loopback")
      assert.strictEqual(result._tag, "Response")
      assert.strictEqual(receiver.received.length, 1)
      assert.strictEqual(receiver.received[0]?.headers["content-type"], "application/json")
      assert.match(receiver.received[0]?.headers["host"] ?? "", /^localhost:\d+$/)
    })))

  it.live("does not follow redirects", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      receiver.answers.push(302)
      const result = yield* send(post(receiver.url), "loopback")
      assert.strictEqual(result._tag === "Response" ? result.status : 0, 302)
      assert.strictEqual(receiver.received.length, 1)
    })))
})
