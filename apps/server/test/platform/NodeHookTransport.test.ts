/**
 * The webhook transport against real sockets: targets are checked at connection time against the
 * allowed-hosts list (loopback is refused by default, before any connection), the address checked
 * is the one connected to, and redirects are answers, not followed. A request node cannot build is
 * a failed attempt, never an exception that escapes (review 4b30e64, finding 22).
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

  it.live("a header value node refuses is a failed attempt, and nothing escapes as an unhandled rejection", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const escaped: Array<unknown> = []
      const record = (reason: unknown) => escaped.push(reason)
      yield* Effect.acquireRelease(
        Effect.sync(() => process.on("unhandledRejection", record)),
        () => Effect.sync(() => process.off("unhandledRejection", record))
      )
      for (const value of ["Bearer a\r\nX-Injected: 1", "Bearer \u0000"]) {
        const request = { ...post(receiver.url), headers: [...post(receiver.url).headers, ["Authorization", value] as const] }
        const result = yield* send(request, "loopback")
        assert.deepStrictEqual(
          result._tag === "Failed" ? [result.reason, result.message.startsWith("Delivery: Invalid character in header content")] : result,
          ["network", true]
        )
      }
      yield* Effect.sleep("50 millis")
      assert.deepStrictEqual(escaped, [])
      assert.strictEqual(receiver.received.length, 0)
    })))

  it.live("text beyond latin-1 in a header goes out as its UTF-8 bytes, as Go's client sends it", () =>
    Effect.scoped(Effect.gen(function*() {
      const receiver = yield* makeHookReceiver
      const request = { ...post(receiver.url), headers: [...post(receiver.url).headers, ["Authorization", "Bearer Ā✓"] as const] }
      const result = yield* send(request, "loopback")
      assert.strictEqual(result._tag, "Response")
      const raw = receiver.received[0]?.rawHeaders ?? []
      const sent = raw[raw.findIndex((name) => name.toLowerCase() === "authorization") + 1] ?? ""
      // Node's server reads header bytes as latin-1.
      assert.strictEqual(Buffer.from(sent, "latin1").toString("utf8"), "Bearer Ā✓")
    })))
})
