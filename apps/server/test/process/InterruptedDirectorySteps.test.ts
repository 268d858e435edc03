/**
 * A server process killed between a repository's disk step and its commit (DirectorySteps.ts): real
 * server processes on one PostgreSQL database and one data directory, and SIGKILL while a trigger
 * holds the step's transaction open right after the directory was placed. The name is not blocked
 * by the directory left behind: the next create on another process, or the killed one's restart,
 * undoes it. A commit already on its way when its process died lands and is not undone. A delete
 * erases its files only after the transaction around it commits. Needs a
 * PostgreSQL server (KILN_TEST_DATABASE_URL); skipped without one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, listening, type ServerProcess, spawnServer } from "../support/ServerProcess.ts"
import { sharedDatabase } from "../support/SharedDatabase.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]
const ROOT = `Basic ${Buffer.from("root:root-password").toString("base64")}`
const ALICE = `Basic ${Buffer.from("alice:alice-password-1").toString("base64")}`

const until = async (what: string, done: () => boolean | Promise<boolean>, seconds = 20) => {
  for (let waited = 0; waited < seconds * 10; waited++) {
    if (await done()) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`not within ${seconds} s: ${what}`)
}

describe.skipIf(serverUrl === undefined)("a server process killed between a repository's disk step and its commit", () => {
  it("leaves nothing that blocks the name or misplaces a repository", async () => {
    const scope = Effect.runSync(Scope.make())
    const { databaseUrl, query, sql } = await sharedDatabase(serverUrl ?? "", scope)

    const dataDir = mkdtempSync(join(tmpdir(), "kiln-interrupted-"))
    const directory = (name: string, owner = "alice") => join(dataDir, "repositories", owner, `${name}.git`)
    const ports = [await freePort(), await freePort()]
    const start = (index: number) =>
      spawnServer({ dataDir, port: ports[index] ?? 0, env: { DATABASE_URL: Redacted.value(databaseUrl), KILN_ACCESS_LOG: "false" } })
    const processes: Array<ServerProcess> = [start(0), start(1)]
    const call = async (index: number, method: string, path: string, auth: string, json?: unknown) => {
      const response = await fetch(`http://127.0.0.1:${ports[index] ?? 0}${path}`, {
        method,
        headers: { authorization: auth, ...(json === undefined ? {} : { "content-type": "application/json" }) },
        ...(json === undefined ? {} : { body: JSON.stringify(json) })
      })
      return { status: response.status, text: await response.text() }
    }
    /** Sends a request to process `index` and kills that process once `stepped` holds and its transaction sleeps. */
    const killAfter = async (index: number, method: string, path: string, json: unknown, step: string, stepped: () => boolean) => {
      const sent = call(index, method, path, ALICE, json).catch((error: unknown) => error)
      await until(step, stepped)
      // The statement after the disk step sleeps in the trigger: the process dies inside the window.
      await new Promise((resolve) => setTimeout(resolve, 300))
      processes[index]?.child.kill("SIGKILL")
      await processes[index]?.exited
      assert.instanceOf(await sent, TypeError, "the request got no answer")
    }
    const killAfterPlacing = (index: number, method: string, path: string, json: unknown, placed: string) =>
      killAfter(index, method, path, json, `${placed} placed`, () => existsSync(placed))
    const marks = () => query(sql<{ id: unknown }>`SELECT id FROM pending_directory_steps`)

    try {
      await Promise.all(processes.map(listening))
      assert.strictEqual((await call(0, "POST", "/api/v1/admin/users", ROOT, {
        username: "alice", email: "alice@example.com", password: "alice-password-1", must_change_password: false
      })).status, 201)
      assert.strictEqual((await call(0, "POST", "/api/v1/user/repos", ALICE, { name: "torename", auto_init: true })).status, 201)

      // Statements on repositories named in slow_names sleep: after the disk step (the row update
      // that follows it) or at COMMIT (a deferred trigger).
      await query(sql`CREATE TABLE slow_names (name text PRIMARY KEY, at_commit boolean NOT NULL)`)
      await query(sql`CREATE FUNCTION slow_statement() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM slow_names WHERE name = NEW.lower_name AND NOT at_commit) THEN PERFORM pg_sleep(4); END IF;
          RETURN NEW;
        END $$`)
      await query(sql`CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM slow_names WHERE name = NEW.lower_name AND at_commit) THEN PERFORM pg_sleep(6); END IF;
          RETURN NULL;
        END $$`)
      await query(sql`CREATE TRIGGER slow_statement BEFORE UPDATE ON repositories FOR EACH ROW EXECUTE FUNCTION slow_statement()`)
      await query(sql`CREATE CONSTRAINT TRIGGER slow_commit AFTER UPDATE ON repositories
        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()`)

      // 1. A create killed after placing its directory: the same create through the other process succeeds.
      await query(sql`INSERT INTO slow_names VALUES ('placed', false)`)
      await killAfterPlacing(0, "POST", "/api/v1/user/repos", { name: "placed", auto_init: true }, directory("placed"))
      await query(sql`DELETE FROM slow_names`)
      assert.strictEqual((await call(1, "GET", "/api/v1/repos/alice/placed", ALICE)).status, 404)
      const again = await call(1, "POST", "/api/v1/user/repos", ALICE, { name: "placed", auto_init: true })
      assert.strictEqual(again.status, 201, `${again.text}\n${processes[1]?.output ?? ""}`)
      assert.strictEqual((await call(1, "GET", "/api/v1/repos/alice/placed/branches/main", ALICE)).status, 200)
      assert.deepStrictEqual(await marks(), [])

      // 2. The same, left alone: the killed process undoes it when it starts again.
      await query(sql`INSERT INTO slow_names VALUES ('abandoned', false)`)
      processes[0] = start(0)
      await listening(processes[0])
      await killAfterPlacing(0, "POST", "/api/v1/user/repos", { name: "abandoned", auto_init: true }, directory("abandoned"))
      await query(sql`DELETE FROM slow_names`)
      processes[0] = start(0)
      await listening(processes[0])
      // The undo runs inside the transaction that takes the mark: the mark goes a moment after the directory.
      await until("the left directory undone", async () => !existsSync(directory("abandoned")) && (await marks()).length === 0)
      assert.deepStrictEqual(await query(sql`SELECT id FROM repositories WHERE lower_name = 'abandoned'`), [])

      // 3. A rename killed while its COMMIT was on its way: it lands, and a settle meeting it waits and undoes nothing.
      await query(sql`INSERT INTO slow_names VALUES ('renamed', true)`)
      await killAfterPlacing(0, "PATCH", "/api/v1/repos/alice/torename", { name: "renamed" }, directory("renamed"))
      const taken = await call(1, "POST", "/api/v1/user/repos", ALICE, { name: "renamed" })
      assert.strictEqual(taken.status, 409, taken.text)
      await query(sql`DELETE FROM slow_names`)
      assert.strictEqual((await call(1, "GET", "/api/v1/repos/alice/renamed/branches/main", ALICE)).status, 200)
      assert.isFalse(existsSync(directory("torename")))
      assert.deepStrictEqual(await marks(), [])

      // 4. A delete killed before the transaction around it (with its webhook deliveries) committed:
      // the repository's files were not erased yet, and the restart puts them back.
      processes[0] = start(0)
      await listening(processes[0])
      assert.strictEqual((await call(0, "POST", "/api/v1/orgs", ALICE, { username: "acme" })).status, 201)
      assert.strictEqual((await call(0, "POST", "/api/v1/orgs/acme/hooks", ALICE, {
        type: "forgejo", config: { url: "http://127.0.0.1:9/", content_type: "json" }, events: ["repository"], active: true
      })).status, 201)
      assert.strictEqual((await call(0, "POST", "/api/v1/orgs/acme/repos", ALICE, { name: "doomed", auto_init: true })).status, 201)
      await query(sql`CREATE FUNCTION slow_delivery() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          IF EXISTS (SELECT 1 FROM slow_names WHERE name = 'deliveries') THEN PERFORM pg_sleep(4); END IF;
          RETURN NEW;
        END $$`)
      await query(sql`CREATE TRIGGER slow_delivery BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION slow_delivery()`)
      await query(sql`INSERT INTO slow_names VALUES ('deliveries', false)`)
      await killAfter(0, "DELETE", "/api/v1/repos/acme/doomed", undefined, "doomed moved away", () => !existsSync(directory("doomed", "acme")))
      await query(sql`DELETE FROM slow_names`)
      processes[0] = start(0)
      await listening(processes[0])
      await until("the deleted repository back in place", async () => existsSync(directory("doomed", "acme")) && (await marks()).length === 0)
      assert.strictEqual((await call(1, "GET", "/api/v1/repos/acme/doomed/branches/main", ALICE)).status, 200)
    } finally {
      for (const running of processes) running.child.kill("SIGTERM")
      await Promise.all(processes.map((running) => running.exited))
      await Effect.runPromise(Scope.close(scope, Exit.void))
    }
  }, 180_000)
})
