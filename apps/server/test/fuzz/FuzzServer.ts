/**
 * The server the fuzz test attacks: the shipped bundle in its own process (support/ServerProcess.ts),
 * on the embedded database or, with KILN_TEST_DATABASE_URL set, on a fresh database of that
 * server, seeded so that valid requests reach deep code: a user with a repository (branch `main`,
 * a release `v1`), an organization with a repository and a team, a quota group with a rule.
 */
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { ConnectionUrl } from "@kiln/postgres"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, listening, type ServerProcess, spawnServer } from "../support/ServerProcess.ts"

export interface FuzzServer {
  readonly process: ServerProcess
  readonly base: string
  readonly dataDir: string
  /** A token of the site administrator `root` with every scope. */
  readonly token: string
  readonly stop: () => Promise<void>
}

const withAdminDatabase = <A>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(TestDatabase.adminLayer(Redacted.make(url)))
    return yield* f(Context.get(context, SqlClient.SqlClient))
  })))

/** A fresh database on the server of KILN_TEST_DATABASE_URL, and how to drop it. */
const serverDatabase = async (url: string) => {
  const name = `kiln_fuzz_${randomBytes(6).toString("hex")}`
  await withAdminDatabase(url, (sql) => sql`CREATE DATABASE ${sql(name)}`)
  return {
    url: Redacted.value(ConnectionUrl.withDatabase(Redacted.make(url), name)),
    drop: () => withAdminDatabase(url, (sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`).then(() => undefined)
  }
}

const adminBasic = `Basic ${Buffer.from("root:root-password").toString("base64")}`

export const send = async (
  base: string,
  method: string,
  path: string,
  authorization: string,
  body?: unknown
): Promise<{ status: number; text: string }> => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, text: await response.text() }
}

/** Creates what is missing of the seed; run again after the fuzzer may have deleted some of it. */
export const seed = async (base: string, token: string) => {
  const auth = `token ${token}`
  const post = (path: string, body: unknown) => send(base, "POST", `/api/v1${path}`, auth, body)
  await post("/admin/users", { username: "fuzzer", email: "fuzzer@example.com", password: "fuzzer-password", must_change_password: false })
  await post("/admin/users/fuzzer/repos", { name: "fuzzrepo", auto_init: true, default_branch: "main" })
  await post("/repos/fuzzer/fuzzrepo/releases", { tag_name: "v1", name: "one", target_commitish: "main" })
  await post("/orgs", { username: "fuzzorg" })
  await post("/orgs/fuzzorg/repos", { name: "orgrepo", auto_init: true, default_branch: "main" })
  await post("/orgs/fuzzorg/teams", { name: "fuzzteam", permission: "write", units: ["repo.code"] })
  await post("/admin/quota/groups", { name: "fuzzgroup" })
  await post("/admin/quota/rules", { name: "fuzzrule", limit: 1000000, subjects: ["size:all"] })
}

/** `env`: settings for the server besides the test's own. */
export const start = async (env: Readonly<Record<string, string>> = {}): Promise<FuzzServer> => {
  const dataDir = mkdtempSync(join(tmpdir(), "kiln-fuzz-"))
  const serverUrl = process.env["KILN_TEST_DATABASE_URL"]
  const database = serverUrl ? await serverDatabase(serverUrl) : undefined
  const port = await freePort()
  const running = spawnServer({
    dataDir,
    port,
    env: { KILN_ACCESS_LOG: "false", ...env, ...(database === undefined ? {} : { DATABASE_URL: database.url }) }
  })
  await listening(running)
  const base = `http://127.0.0.1:${port}`
  const created = await send(base, "POST", "/api/v1/users/root/tokens", adminBasic, { name: "fuzz", scopes: ["all"] })
  if (created.status !== 201) throw new Error(`fuzz token: ${created.status} ${created.text}`)
  const token = String((JSON.parse(created.text) as { sha1: unknown }).sha1)
  await seed(base, token)
  return {
    process: running,
    base,
    dataDir,
    token,
    stop: async () => {
      running.child.kill("SIGTERM")
      await running.exited
      await database?.drop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
