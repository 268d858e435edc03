/**
 * Issue 27, item 2: a CI fan-out of pushes signing in with a password, at production hashing cost,
 * against one server process. git does not retry a 429, so every push must wait its turn rather
 * than be refused; a password verified once is not derived again for each of the pushes' requests.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { baseUrl, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, makeGitClient } from "./GitClient.ts"

const PUSHES = 40

layer(TestServer.layer({}, { scryptCost: 17 }), { timeout: "600 seconds" })("pushes with a password", (it) => {
  it.effect(`${PUSHES} concurrent pushes of ${PUSHES} branches to one repository, user:password in the URL, all succeed`, () =>
    Effect.scoped(Effect.gen(function*() {
      const eve = yield* createUser("eve")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: eve.auth, json: { name: "fanout", auto_init: true } })
      assert.strictEqual(created.status, 201, created.text)
      const client = yield* makeGitClient
      const url = cloneUrl(yield* baseUrl, "eve", "fanout", { username: "eve", password: eve.password })
      const work = client.path("work")
      yield* client.git(["clone", "-q", url, work])
      for (let n = 0; n < PUSHES; n++) {
        yield* client.git(["checkout", "-q", "-b", `ci-${n}`, "main"], { cwd: work })
        yield* client.commit(work, { [`job-${n}.txt`]: `job ${n}\n` }, `job ${n}`)
      }
      const pushes = yield* Effect.all(
        Array.from({ length: PUSHES }, (_, n) => client.run(["push", "-q", url, `ci-${n}`], { cwd: work })),
        { concurrency: "unbounded" }
      )
      const failed = pushes.flatMap((push, n) => push.code === 0 ? [] : [`ci-${n}: ${push.stderr.trim()}`])
      assert.deepStrictEqual(failed, [])
      const branches = yield* request("GET", "/api/v1/repos/eve/fanout/branches?limit=50", { auth: eve.auth })
      assert.strictEqual(branches.headers.get("x-total-count"), String(PUSHES + 1))
    })), { timeout: 600_000 })
})
