/**
 * The failed sign-in limit of an account holds across processes: two real server processes on one
 * PostgreSQL database count one account's failures together, so guesses spread over both are
 * refused once the account's limit is reached, whichever process answers, over git too (a git
 * access decision a password made is never kept past them). Needs a PostgreSQL
 * server (KILN_TEST_DATABASE_URL); skipped without one (the embedded database has one process).
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

/** Runs `use` with two server processes on one fresh PostgreSQL database, four failed sign-ins per account allowed. */
const withTwoServers = async (use: (ports: ReadonlyArray<number>) => Promise<void>) => {
  const scope = Effect.runSync(Scope.make())
  try {
    const databaseUrl = await Effect.runPromise(TestDatabase.serverDatabase(Redacted.make(serverUrl ?? "")).pipe(Scope.provide(scope)))
    const dataDir = mkdtempSync(join(tmpdir(), "kiln-signin-limits-"))
    const ports = [await freePort(), await freePort()]
    const processes = ports.map((port) =>
      spawnServer({
        dataDir,
        port,
        env: { DATABASE_URL: Redacted.value(databaseUrl), KILN_ACCESS_LOG: "false", KILN_SIGNIN_MAX_FAILURES_PER_ACCOUNT: "4" }
      })
    )
    try {
      await Promise.all(processes.map(listening))
      await use(ports)
    } finally {
      for (const running of processes) running.child.kill("SIGTERM")
      await Promise.all(processes.map((running) => running.exited))
    }
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

describe.skipIf(serverUrl === undefined)("failed sign-ins on two processes", () => {
  it("count once for the account: the limit holds whichever process answers", { timeout: 120_000 }, () =>
    withTwoServers(async (ports) => {
      const signIn = (port: number | undefined, password: string) =>
        fetch(`http://127.0.0.1:${port}/api/v1/user`, { headers: { authorization: basic("root", password) } }).then((response) => response.status)
      // Four wrong guesses, two through each process: each process alone has seen only two.
      for (let guess = 0; guess < 4; guess++) assert.strictEqual(await signIn(ports[guess % 2], `wrong-${guess}`), 401)
      // The account is at its limit from this address for both: even its right password waits for the window to end.
      assert.strictEqual(await signIn(ports[0], "root-password"), 429)
      assert.strictEqual(await signIn(ports[1], "root-password"), 429)
    }))

  it("throttle git sign-ins by password even right after the same password was let in", { timeout: 120_000 }, () =>
    withTwoServers(async (ports) => {
      const made = await fetch(`http://127.0.0.1:${ports[0]}/api/v1/user/repos`, {
        method: "POST",
        headers: { authorization: basic("root", "root-password"), "content-type": "application/json" },
        body: JSON.stringify({ name: "vault", private: true, auto_init: true })
      })
      assert.strictEqual(made.status, 201)
      const advertise = (port: number | undefined, password: string) =>
        fetch(`http://127.0.0.1:${port}/root/vault.git/info/refs?service=git-upload-pack`, {
          headers: { authorization: basic("root", password) }
        }).then(async (response) => {
          await response.arrayBuffer()
          return response.status
        })
      // The owner fetches through the second process, whose decision would then be at hand there.
      assert.strictEqual(await advertise(ports[1], "root-password"), 200)
      for (let guess = 0; guess < 4; guess++) assert.strictEqual(await advertise(ports[guess % 2], `wrong-${guess}`), 401)
      // A guesser at the limit learns nothing, the right password included, on either process.
      assert.strictEqual(await advertise(ports[1], "root-password"), 429)
      assert.strictEqual(await advertise(ports[0], "root-password"), 429)
    }))
})
