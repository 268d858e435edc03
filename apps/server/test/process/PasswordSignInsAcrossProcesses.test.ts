/**
 * A password remembered by one process (SignInCache: a keyed hash, never the password) is
 * forgotten when another process changes the account: two real server processes on one PostgreSQL
 * database; a new password, then prohibited sign-in, set through one, are seen by the other at
 * once although it had verified the old password. Failed guesses counted through one refuse the
 * remembered password in the other at once (KnownFailures). Needs a PostgreSQL server
 * (KILN_TEST_DATABASE_URL); skipped without one (the embedded database has one process).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"
import { freePort, listening, spawnServer } from "../support/ServerProcess.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`

describe.skipIf(serverUrl === undefined)("password sign-ins on two processes", () => {
  it("a new password or a prohibited sign-in through one process is refused by the other at once, though it remembered the password", {
    timeout: 300_000
  }, async () => {
    const scope = Effect.runSync(Scope.make())
    try {
      const databaseUrl = await Effect.runPromise(TestDatabase.serverDatabase(Redacted.make(serverUrl ?? "")).pipe(Scope.provide(scope)))
      const dataDir = mkdtempSync(join(tmpdir(), "kiln-password-signins-"))
      const ports = [await freePort(), await freePort()]
      const processes = ports.map((port) =>
        spawnServer({
          dataDir,
          port,
          env: { DATABASE_URL: Redacted.value(databaseUrl), KILN_ACCESS_LOG: "false", KILN_SIGNIN_MAX_FAILURES_PER_ACCOUNT: "3" }
        })
      )
      try {
        await Promise.all(processes.map(listening))
        const call = async (port: number | undefined, method: string, path: string, authorization: string, json?: unknown) => {
          const response = await fetch(`http://127.0.0.1:${port}${path}`, {
            method,
            headers: { authorization, ...(json === undefined ? {} : { "content-type": "application/json" }) },
            ...(json === undefined ? {} : { body: JSON.stringify(json) })
          })
          return { status: response.status, text: await response.text() }
        }
        const [changing, remembering] = ports
        const root = basic("root", "root-password")
        const created = await call(changing, "POST", "/api/v1/admin/users", root, {
          username: "pat",
          email: "pat@example.com",
          password: "pat-password-1",
          must_change_password: false
        })
        assert.strictEqual(created.status, 201, created.text)
        const signIn = (password: string) => call(remembering, "GET", "/api/v1/user", basic("pat", password))
        // The second process verifies the password, then answers it from memory.
        assert.strictEqual((await signIn("pat-password-1")).status, 200)
        assert.strictEqual((await signIn("pat-password-1")).status, 200)

        /** Sign-ins sent more than 100 ms after the change through the other process get `status`. */
        const refusedAfterChange = async (password: string, status: number) => {
          const changedAt = Date.now()
          for (;;) {
            const sentAt = Date.now()
            const answer = await signIn(password)
            if (answer.status === status) return
            assert.strictEqual(answer.status, 200, answer.text)
            assert.isBelow(sentAt - changedAt, 100, "the other process still accepts what changed")
          }
        }

        // Guesses counted through the first process stop the remembered password in the second too:
        // a password it remembers cannot be tried there past the limit.
        const kim = await call(changing, "POST", "/api/v1/admin/users", root, {
          username: "kim",
          email: "kim@example.com",
          password: "kim-password",
          must_change_password: false
        })
        assert.strictEqual(kim.status, 201, kim.text)
        const kimAt = (port: number | undefined, password: string) => call(port, "GET", "/api/v1/user", basic("kim", password))
        assert.strictEqual((await kimAt(remembering, "kim-password")).status, 200)
        assert.strictEqual((await kimAt(remembering, "kim-password")).status, 200)
        for (let guess = 0; guess < 3; guess++) assert.strictEqual((await kimAt(changing, `guess-${guess}`)).status, 401)
        const guessedAt = Date.now()
        for (;;) {
          const sentAt = Date.now()
          const answer = await kimAt(remembering, "kim-password")
          if (answer.status === 429) break
          assert.strictEqual(answer.status, 200, answer.text)
          assert.isBelow(sentAt - guessedAt, 100, "the other process still answers the remembered password past the limit")
        }

        const renewed = await call(changing, "PATCH", "/api/v1/admin/users/pat", root, { password: "pat-password-2" })
        assert.strictEqual(renewed.status, 200, renewed.text)
        await refusedAfterChange("pat-password-1", 401)
        assert.strictEqual((await signIn("pat-password-2")).status, 200)
        assert.strictEqual((await signIn("pat-password-2")).status, 200)

        const prohibited = await call(changing, "PATCH", "/api/v1/admin/users/pat", root, { prohibit_login: true })
        assert.strictEqual(prohibited.status, 200, prohibited.text)
        await refusedAfterChange("pat-password-2", 403)
      } finally {
        for (const running of processes) running.child.kill("SIGTERM")
        await Promise.all(processes.map((running) => running.exited))
      }
    } finally {
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  })
})
