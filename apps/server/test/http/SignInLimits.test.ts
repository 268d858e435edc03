import { assert, layer } from "@effect/vitest"
import { randomBytes, scryptSync } from "node:crypto"
import { Effect, Option } from "effect"
import { UserStore } from "@kiln/domain/user/UserStore"
import { admin, at, basic, createToken, createUser, request, ROOT_URL, type TestResponse } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const assertThrottled = (response: TestResponse, maxSeconds: number) => {
  assert.strictEqual(response.status, 429, response.text)
  const retryAfter = Number(response.headers.get("retry-after"))
  assert.isTrue(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= maxSeconds, `Retry-After ${retryAfter}`)
  if (response.headers.get("content-type")?.startsWith("application/json") === true) {
    assert.strictEqual(at(response.body, "url"), `${ROOT_URL}api/swagger`)
    assert.isString(at(response.body, "message"))
  }
}

/** A client as the trusted proxy (the tests' own address) forwards it. */
const from = (address: string) => ({ "x-forwarded-for": address })

layer(
  TestServer.layer({ signInMaxFailuresPerAccount: 3, signInMaxFailuresPerAddress: 0, signInFailureWindowSeconds: 600, trustedProxies: ["127.0.0.1"] }),
  { timeout: "120 seconds" }
)(
  "failed sign-ins per account, from each address",
  (it) => {
    it.effect("refuses an account's password sign-ins from an address with too many failures there, on every route; the owner elsewhere still signs in", () =>
      Effect.gen(function*() {
        const ada = yield* createUser("ada")
        const token = yield* createToken(ada.auth, "ada", "kept", ["all"])
        const stranger = from("203.0.113.66")
        for (let attempt = 0; attempt < 3; attempt++) {
          assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: basic("ada", `guess-${attempt}`), headers: stranger })).status, 401)
        }
        // Refused there now, even with the right password, before any hash is derived.
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: ada.auth, headers: stranger }), 600)
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: basic("ADA", "another-guess"), headers: stranger }), 600)
        assertThrottled(yield* request("GET", "/ada/anything.git/info/refs?service=git-upload-pack", { auth: ada.auth, headers: stranger }), 600)
        assertThrottled(yield* request("GET", "/attachments/00000000-0000-0000-0000-000000000000", { auth: ada.auth, headers: stranger }), 600)
        // The owner, from anywhere else, over the API and git: the stranger's failures do not lock ada out.
        const owner = from("192.0.2.10")
        assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: ada.auth, headers: owner })).status, 200)
        assert.strictEqual((yield* request("GET", "/ada/anything.git/info/refs?service=git-upload-pack", { auth: ada.auth, headers: owner })).status, 404)
        // Tokens are not passwords: they still work, and other accounts are untouched.
        assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: { token }, headers: stranger })).status, 200)
        assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: admin, headers: stranger })).status, 200)
      }))

    it.effect("forgets an account's failures once it signs in", () =>
      Effect.gen(function*() {
        const bo = yield* createUser("bo")
        for (let round = 0; round < 3; round++) {
          for (let attempt = 0; attempt < 2; attempt++) {
            assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: basic("bo", "guess") })).status, 401)
          }
          assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: bo.auth })).status, 200)
        }
      }))

    it.effect("counts unknown accounts too, by name", () =>
      Effect.gen(function*() {
        for (let attempt = 0; attempt < 3; attempt++) {
          assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: basic("nobody-here", "guess") })).status, 401)
        }
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: basic("nobody-here", "guess") }), 600)
      }))

    it.effect("replaces a hash made with older parameters when its account signs in", () =>
      Effect.gen(function*() {
        const cy = yield* createUser("cy")
        const users = yield* UserStore
        const account = yield* users.findByName("cy")
        assert.isTrue(Option.isSome(account))
        const id = Option.isSome(account) ? account.value.id : 0
        const salt = randomBytes(16)
        const weaker = TestServer.TEST_SCRYPT_COST - 1
        const key = scryptSync(cy.password, salt, 32, { N: 2 ** weaker, r: 8, p: 1 })
        yield* users.setPasswordHash(id, `scrypt$${2 ** weaker}$8$1$${salt.toString("base64")}$${key.toString("base64")}`)
        assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: cy.auth })).status, 200)
        const upgraded = yield* users.passwordHash(id)
        assert.match(Option.getOrElse(upgraded, () => ""), new RegExp(`^scrypt\\$${2 ** TestServer.TEST_SCRYPT_COST}\\$8\\$1\\$`))
        assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: cy.auth })).status, 200)
      }))
  }
)

layer(TestServer.layer({ signInMaxFailuresPerAccount: 0, signInMaxFailuresPerAddress: 4, trustedProxies: ["127.0.0.1"] }), {
  timeout: "120 seconds"
})(
  "failed sign-ins per client address",
  (it) => {
    it.effect("refuses password sign-ins from an address with too many failures, whatever the account; other addresses are untouched", () =>
      Effect.gen(function*() {
        for (const name of ["a1", "a2", "a3", "a4"]) {
          assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: basic(name, "guess"), headers: from("203.0.113.20") })).status, 401)
        }
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: admin, headers: from("203.0.113.20") }), 900)
        assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: admin, headers: from("203.0.113.21") })).status, 200)
      }))

    it.effect("counts git sign-ins for the client a trusted proxy forwards, not for the proxy", () =>
      Effect.gen(function*() {
        const refs = "/root/nothing.git/info/refs?service=git-upload-pack"
        for (let client = 1; client <= 5; client++) {
          const failed = yield* request("GET", refs, { auth: basic(`g${client}`, "guess"), headers: from(`198.51.100.${client}`) })
          assert.strictEqual(failed.status, 401)
        }
        // Five failures behind one proxy, each from its own client: a new client is not refused.
        assert.strictEqual((yield* request("GET", refs, { auth: admin, headers: from("198.51.100.6") })).status, 404)
        // One client's failures over git count for that client, over the API too.
        for (let attempt = 0; attempt < 4; attempt++) {
          assert.strictEqual((yield* request("GET", refs, { auth: basic("g9", "guess"), headers: from("198.51.100.9") })).status, 401)
        }
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: admin, headers: from("198.51.100.9") }), 900)
      }))

    it.effect("refuses names longer than any login without deriving, and counts them like any failure (never a 500)", () =>
      Effect.gen(function*() {
        // Random, as the review's were: a repeated letter compresses below the index's row limit.
        const longName = (_: number) => randomBytes(2_000).toString("hex")
        const statuses: Array<number> = []
        for (let attempt = 0; attempt < 6; attempt++) {
          statuses.push((yield* request("GET", "/api/v1/user", { auth: basic(longName(attempt), "guess"), headers: from("203.0.113.30") })).status)
        }
        assert.deepStrictEqual(statuses, [401, 401, 401, 401, 429, 429])
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: admin, headers: from("203.0.113.30") }), 900)
      }))
  }
)

const ADMIN_NAME = TestServer.ADMIN.username

/** One derivation at a time at production cost (N=2^17), with no failure limits in the way. */
const productionCost = TestServer.layer(
  { signInMaxFailuresPerAccount: 0, signInMaxFailuresPerAddress: 0, passwordHashMaxConcurrent: 1 },
  { scryptCost: 17 }
)

layer(productionCost, { timeout: "180 seconds" })("password hashing at production cost", (it) => {
  it.effect("an unknown account costs a derivation, as a wrong password does", () =>
    Effect.gen(function*() {
      const timed = (username: string) =>
        Effect.gen(function*() {
          const started = performance.now()
          const response = yield* request("GET", "/api/v1/user", { auth: basic(username, "wrong-password") })
          assert.strictEqual(response.status, 401)
          return performance.now() - started
        })
      yield* timed("no-such-user") // the first one also makes the stand-in hash
      const wrong = Math.min(yield* timed(ADMIN_NAME), yield* timed(ADMIN_NAME))
      const unknown = Math.min(yield* timed("no-such-user"), yield* timed("no-such-user-either"))
      assert.isAbove(unknown, wrong * 0.5, `unknown ${unknown} ms, wrong password ${wrong} ms`)
    }))

  it.effect("derives a bounded number of hashes at once: the excess waits its turn instead of being refused", () =>
    Effect.gen(function*() {
      // Ten derivations of a few hundred ms each, one at a time: seconds of waiting, well within the queue.
      const answers = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) => request("GET", "/api/v1/user", { auth: basic(`crowd-${i}`, "guess") })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(answers.map((answer) => answer.status), Array.from({ length: 10 }, () => 401))
      assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: admin })).status, 200)
    }))
})


layer(productionCost, { timeout: "180 seconds" })("git sign-ins whose client left", (it) => {
  it.effect("leave the queue of sign-ins waiting for a derivation: others take their places at once", () =>
    Effect.gen(function*() {
      const base = yield* TestServer.baseUrl
      const signIn = (name: string, signal?: AbortSignal) =>
        fetch(`${base}/someone/repo.git/info/refs?service=git-upload-pack`, {
          headers: { authorization: `Basic ${Buffer.from(`${name}:wrong`).toString("base64")}` },
          ...(signal === undefined ? {} : { signal })
        }).then((response) => response.status, () => "left" as const)
      // More wrong passwords over git at once than the queue holds (32 for one turn): one derives
      // (≥ 50 ms at N=2^17), 32 wait, and the rest are refused. A refusal says the queue is full.
      const controller = new AbortController()
      const crowd = Array.from({ length: 48 }, (_, i) => signIn(`leaver-${i}`, controller.signal))
      const refused = crowd.map((answer) => answer.then((status) => status === 429 ? status : new Promise<never>(() => {})))
      assert.strictEqual(yield* Effect.promise(() => Promise.race(refused)), 429)
      controller.abort()
      assert.isAtLeast((yield* Effect.promise(() => Promise.all(crowd))).filter((outcome) => outcome === "left").length, 30)
      // Their places are free: five more all wait their turn (401 each), where a queue still held
      // by the departed would refuse all but the one a finished derivation let in.
      const next = yield* Effect.promise(() => Promise.all(Array.from({ length: 5 }, (_, i) => signIn(`next-${i}`))))
      assert.deepStrictEqual(next, [401, 401, 401, 401, 401])
    }))
})
