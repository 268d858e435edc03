/**
 * Webhook delivery is shared fairly between owners (review 4b30e64, finding 30): one owner with
 * many hooks to a target that never answers holds a bounded share of the delivery slots, so another
 * owner's delivery goes out while those hang; and a repository or organization has at most
 * MAX_HOOKS_PER_SCOPE hooks.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { DELIVERIES_PER_OWNER } from "@kiln/domain/webhook/WebhookDeliveries"
import { MAX_HOOKS_PER_SCOPE, tooManyHooksMessage } from "@kiln/domain/webhook/Webhooks"
import { makeHookReceiver } from "../support/HookReceiver.ts"
import { createOrg } from "../support/OrgFixtures.ts"
import { createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

// A receiver that never answers holds an attempt for the whole timeout: long here, so that the
// other owner's delivery can only beat it by getting a slot of its own.
const DELIVER_TIMEOUT = 30_000

layer(
  TestServer.layer({ webhook: { deliverTimeout: DELIVER_TIMEOUT, retryDelay: 200, maxAttempts: 1, historyDays: 7, allowedHosts: "loopback" } }),
  { excludeTestServices: true, timeout: "300 seconds" }
)("webhook delivery shared between owners", (it) => {
  it.effect("one owner's hooks that hang do not delay another owner's delivery", () =>
    Effect.scoped(Effect.gen(function*() {
      const hanging = yield* makeHookReceiver
      const answering = yield* makeHookReceiver
      for (let i = 0; i < 40; i++) hanging.answers.push("hang")
      const greedy = yield* createUser("greedy")
      const other = yield* createUser("patient")
      // Twenty hooks on each of two repositories: more than the process's 16 slots.
      for (const repo of ["one", "two"]) {
        const created = yield* request("POST", "/api/v1/user/repos", { auth: greedy.auth, json: { name: repo, auto_init: true } })
        assert.strictEqual(created.status, 201, created.text)
        for (let i = 0; i < MAX_HOOKS_PER_SCOPE; i++) {
          const hook = yield* request("POST", `/api/v1/repos/greedy/${repo}/hooks`, {
            auth: greedy.auth,
            json: { type: "forgejo", config: { url: hanging.url, content_type: "json" }, events: ["create"], active: true }
          })
          assert.strictEqual(hook.status, 201, hook.text)
        }
      }
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: other.auth, json: { name: "mine", auto_init: true } })).status, 201)
      const hook = yield* request("POST", "/api/v1/repos/patient/mine/hooks", {
        auth: other.auth,
        json: { type: "forgejo", config: { url: answering.url, content_type: "json" }, events: ["create"], active: true }
      })
      assert.strictEqual(hook.status, 201, hook.text)

      for (const repo of ["one", "two"]) {
        const branch = yield* request("POST", `/api/v1/repos/greedy/${repo}/branches`, { auth: greedy.auth, json: { new_branch_name: "b" } })
        assert.strictEqual(branch.status, 201, branch.text)
      }
      // The greedy owner's deliveries are hanging now, as many as its share allows.
      yield* hanging.waitFor(DELIVERIES_PER_OWNER)
      const started = Date.now()
      const branch = yield* request("POST", "/api/v1/repos/patient/mine/branches", { auth: other.auth, json: { new_branch_name: "b" } })
      assert.strictEqual(branch.status, 201, branch.text)
      // Without the share it would wait for hanging attempts to time out (30 s); a hang guard, not a timing.
      yield* answering.waitFor(1, DELIVER_TIMEOUT / 2)
      assert.isBelow(Date.now() - started, DELIVER_TIMEOUT / 2)
      assert.strictEqual(hanging.received.length, DELIVERIES_PER_OWNER)
    })))

  it.effect("a repository or an organization has at most MAX_HOOKS_PER_SCOPE hooks", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("hoarder")
      yield* createOrg(owner.auth, "hoarders")
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "r" } })).status, 201)
      for (const path of ["/api/v1/repos/hoarder/r/hooks", "/api/v1/orgs/hoarders/hooks"]) {
        const json = { type: "forgejo", config: { url: "https://hooks.example/x", content_type: "json" } }
        for (let i = 0; i < MAX_HOOKS_PER_SCOPE; i++) {
          assert.strictEqual((yield* request("POST", path, { auth: owner.auth, json })).status, 201)
        }
        const refused = yield* request("POST", path, { auth: owner.auth, json })
        assert.deepStrictEqual([refused.status, (refused.body as { message?: string }).message], [422, tooManyHooksMessage])
        const listed = yield* request("GET", `${path}?limit=50`, { auth: owner.auth })
        assert.strictEqual(listed.headers.get("x-total-count"), String(MAX_HOOKS_PER_SCOPE))
      }
    }))
})
