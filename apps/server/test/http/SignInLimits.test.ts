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

layer(TestServer.layer({ signInMaxFailuresPerAccount: 3, signInMaxFailuresPerAddress: 0, signInFailureWindowSeconds: 600 }), { timeout: "120 seconds" })(
  "failed sign-ins per account",
  (it) => {
    it.effect("refuses an account's password sign-ins with 429 and Retry-After once it has too many failures, on every route", () =>
      Effect.gen(function*() {
        const ada = yield* createUser("ada")
        const token = yield* createToken(ada.auth, "ada", "kept", ["all"])
        for (let attempt = 0; attempt < 3; attempt++) {
          assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: basic("ada", `guess-${attempt}`) })).status, 401)
        }
        // Refused now, even with the right password, before any hash is derived.
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: ada.auth }), 600)
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: basic("ADA", "another-guess") }), 600)
        assertThrottled(yield* request("GET", "/ada/anything.git/info/refs?service=git-upload-pack", { auth: ada.auth }), 600)
        assertThrottled(yield* request("GET", "/attachments/00000000-0000-0000-0000-000000000000", { auth: ada.auth }), 600)
        // Tokens are not passwords: they still work, and other accounts are untouched.
        assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: { token } })).status, 200)
        assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: admin })).status, 200)
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

layer(TestServer.layer({ signInMaxFailuresPerAccount: 0, signInMaxFailuresPerAddress: 4 }), { timeout: "120 seconds" })(
  "failed sign-ins per client address",
  (it) => {
    it.effect("refuses password sign-ins from an address with too many failures, whatever the account", () =>
      Effect.gen(function*() {
        for (const name of ["a1", "a2", "a3", "a4"]) {
          assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: basic(name, "guess") })).status, 401)
        }
        assertThrottled(yield* request("GET", "/api/v1/user", { auth: admin }), 900)
      }))
  }
)

layer(
  TestServer.layer({ signInMaxFailuresPerAccount: 0, signInMaxFailuresPerAddress: 0, passwordHashMaxConcurrent: 1 }, { scryptCost: 17 }),
  { timeout: "180 seconds" }
)("password hashing at production cost", (it) => {
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

  it.effect("derives a bounded number of hashes at once: the excess waits, then gets 429 with Retry-After", () =>
    Effect.gen(function*() {
      const answers = yield* Effect.all(
        Array.from({ length: 10 }, (_, i) => request("GET", "/api/v1/user", { auth: basic(`crowd-${i}`, "guess") })),
        { concurrency: "unbounded" }
      )
      const statuses = answers.map((answer) => answer.status)
      assert.isTrue(statuses.every((status) => status === 401 || status === 429), statuses.join(","))
      assert.isAtLeast(statuses.filter((status) => status === 401).length, 1)
      const throttled = answers.filter((answer) => answer.status === 429)
      assert.isAtLeast(throttled.length, 1)
      for (const answer of throttled) assertThrottled(answer, 1)
      // Once the crowd is gone, sign-ins are served again.
      assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: admin })).status, 200)
    }))
})

const ADMIN_NAME = TestServer.ADMIN.username
