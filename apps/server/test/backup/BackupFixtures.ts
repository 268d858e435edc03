/**
 * For the backup tests: a real server process populated over its API and git, the CLI run as an
 * operator runs it, and everything a client can list read back for comparison.
 */
import { execFile, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { createHash, randomBytes } from "node:crypto"
import { Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { ConnectionUrl } from "@kiln/postgres"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"

export const adminAuth = `Basic ${Buffer.from("root:root-password").toString("base64")}`
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
export const aliceAuth = basic("alice", "alice-password")

const cliMain = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url))

export interface CliResult {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `pnpm kiln ...` from the sources, with `env` on top of the test's environment. */
export const runCli = (args: ReadonlyArray<string>, env: Readonly<Record<string, string>>): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += String(chunk)))
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

export const api = async (port: number, method: string, path: string, options: {
  readonly auth?: string
  readonly json?: unknown
  readonly body?: Buffer | FormData
} = {}) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: {
      authorization: options.auth ?? adminAuth,
      ...(options.json === undefined ? {} : { "content-type": "application/json" })
    },
    ...(options.json === undefined ? options.body === undefined ? {} : { body: options.body } : { body: JSON.stringify(options.json) })
  })
  const bytes = Buffer.from(await response.arrayBuffer())
  return { status: response.status, bytes, text: bytes.toString("utf8") }
}

/** The JSON of a request that must succeed. */
export const ok = async (port: number, method: string, path: string, options: Parameters<typeof api>[3] = {}): Promise<unknown> => {
  const response = await api(port, method, path, options)
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${response.text}`)
  return response.text === "" ? null : JSON.parse(response.text)
}

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null && name in value ? (value as Record<string, unknown>)[name] : undefined

export const gitEnv = (home: string): Record<string, string> => ({
  ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("GIT_"))),
  HOME: home,
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "Ada Author",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_COMMITTER_NAME: "Cy Committer",
  GIT_COMMITTER_EMAIL: "cy@example.com",
  LC_ALL: "C"
})

export const git = (args: ReadonlyArray<string>, options: { readonly cwd?: string; readonly env: Record<string, string> }) =>
  new Promise<string>((resolve, reject) =>
    execFile("git", [...args], { cwd: options.cwd, env: options.env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      error === null ? resolve(stdout) : reject(new Error(`git ${args.join(" ")}: ${stderr}`))))

export const cloneUrl = (port: number, path: string) => `http://alice:alice-password@127.0.0.1:${port}/${path}.git`

/** Users, an organization with a team and a hook, repositories with branches, statuses, a release with an attachment, a package, quota. */
/** The LFS object `populate` uploads to acme/app. */
export const LFS_OBJECT = (() => {
  const content = Buffer.alloc(40_000, 9)
  return { content, oid: createHash("sha256").update(content).digest("hex") }
})()

export const populate = async (port: number, work: string) => {
  for (const name of ["alice", "bob"]) {
    await ok(port, "POST", "/api/v1/admin/users", {
      json: { username: name, email: `${name}@example.com`, password: `${name}-password`, must_change_password: false }
    })
  }
  await ok(port, "POST", "/api/v1/orgs", { auth: aliceAuth, json: { username: "acme" } })
  const team = await ok(port, "POST", "/api/v1/orgs/acme/teams", {
    auth: aliceAuth,
    json: { name: "devs", permission: "write", units: ["repo.code"] }
  })
  await ok(port, "PUT", `/api/v1/teams/${String(field(team, "id"))}/members/bob`, { auth: aliceAuth })
  await ok(port, "POST", "/api/v1/orgs/acme/hooks", {
    auth: aliceAuth,
    json: { type: "forgejo", config: { content_type: "json", url: "https://hooks.example/receive", secret: "hook-secret" }, events: ["push"], active: false }
  })
  await ok(port, "POST", "/api/v1/orgs/acme/repos", { auth: aliceAuth, json: { name: "app", auto_init: true, description: "the app" } })
  await ok(port, "PUT", `/api/v1/teams/${String(field(team, "id"))}/repos/acme/app`, { auth: aliceAuth })
  await ok(port, "POST", "/api/v1/user/repos", { auth: aliceAuth, json: { name: "tools", auto_init: true, private: true } })
  // Pushed to during the dump; bob's, so that alice's quota usage stays still.
  await ok(port, "POST", "/api/v1/admin/users/bob/repos", { json: { name: "stream", auto_init: true } })
  await ok(port, "PUT", "/api/v1/repos/alice/tools/collaborators/bob", { auth: aliceAuth, json: { permission: "read" } })
  // A deploy key (its key row and its grant).
  const keyFile = join(work, "deploy-key")
  execFileSync("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "deploy", "-f", keyFile])
  await ok(port, "POST", "/api/v1/repos/alice/tools/keys", {
    auth: aliceAuth,
    json: { title: "deploy", key: readFileSync(`${keyFile}.pub`, "utf8").trim(), read_only: true }
  })

  // Branches and a tag pushed with git; a branch made through the API.
  const env = gitEnv(join(work, "home"))
  const clone = join(work, "app")
  await git(["clone", "-q", cloneUrl(port, "acme/app"), clone], { env })
  await git(["checkout", "-q", "-b", "topic"], { cwd: clone, env })
  await git(["commit", "-q", "--allow-empty", "-m", "topic work"], { cwd: clone, env })
  await git(["tag", "-a", "v0.1", "-m", "first"], { cwd: clone, env })
  await git(["push", "-q", "origin", "topic", "v0.1"], { cwd: clone, env })
  await ok(port, "POST", "/api/v1/repos/acme/app/branches", { auth: aliceAuth, json: { new_branch_name: "feature", old_branch_name: "topic" } })
  const head = (await git(["rev-parse", "HEAD"], { cwd: clone, env })).trim()
  await ok(port, "POST", `/api/v1/repos/acme/app/statuses/${head}`, {
    auth: aliceAuth,
    json: { state: "success", context: "ci/build", description: "built", target_url: "https://ci.example/1" }
  })

  const release = await ok(port, "POST", "/api/v1/repos/acme/app/releases", {
    auth: aliceAuth,
    json: { tag_name: "v1.0", target_commitish: "topic", name: "One", body: "notes" }
  })
  const form = new FormData()
  form.append("attachment", new Blob([Buffer.alloc(50_000, 7)]), "app.bin")
  await ok(port, "POST", `/api/v1/repos/acme/app/releases/${String(field(release, "id"))}/assets`, { auth: aliceAuth, body: form })
  await ok(port, "PUT", "/api/packages/alice/generic/tool/1.0.0/tool.bin", { auth: aliceAuth, body: Buffer.alloc(30_000, 3) })
  await ok(port, "PUT", `/acme/app.git/info/lfs/objects/${LFS_OBJECT.oid}/${LFS_OBJECT.content.length}`, { auth: aliceAuth, body: LFS_OBJECT.content })

  await ok(port, "POST", "/api/v1/admin/quota/rules", { json: { name: "roomy", limit: 1_000_000_000, subjects: ["size:all"] } })
  await ok(port, "POST", "/api/v1/admin/quota/groups", { json: { name: "standard", rules: [{ name: "roomy" }] } })
  await ok(port, "PUT", "/api/v1/admin/quota/groups/standard/users/alice")
}

/** Commits and pushes to bob/stream until `stop` is called; the commits pushed, in order. */
export const keepPushing = (port: number, work: string) => {
  const env = gitEnv(join(work, "home"))
  const clone = join(work, "stream")
  let stopped = false
  const pushed: Array<string> = []
  const running = (async () => {
    await git(["clone", "-q", `http://root:root-password@127.0.0.1:${port}/bob/stream.git`, clone], { env })
    for (let n = 0; !stopped; n++) {
      await git(["commit", "-q", "--allow-empty", "-m", `change ${n}`], { cwd: clone, env })
      await git(["push", "-q", "origin", "HEAD:main", `HEAD:refs/heads/side-${n % 3}`], { cwd: clone, env })
      pushed.push((await git(["rev-parse", "HEAD"], { cwd: clone, env })).trim())
    }
  })()
  return {
    pushed,
    stop: async () => {
      stopped = true
      await running
    }
  }
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex")

/** Everything a client can list, with this server's address taken out, and every ref of every repository. */
export const listEverything = async (port: number, options: { readonly skipRepository?: string } = {}) => {
  const state: Record<string, unknown> = {}
  const read = async (path: string, auth = adminAuth) => {
    state[path] = await ok(port, "GET", path, { auth })
    return state[path]
  }
  const users = await read("/api/v1/admin/users?limit=50")
  await read("/api/v1/admin/orgs?limit=50")
  const teams = await read("/api/v1/orgs/acme/teams", aliceAuth)
  for (const team of teams as ReadonlyArray<unknown>) {
    await read(`/api/v1/teams/${String(field(team, "id"))}/members`, aliceAuth)
    await read(`/api/v1/teams/${String(field(team, "id"))}/repos`, aliceAuth)
  }
  await read("/api/v1/orgs/acme/hooks", aliceAuth)
  await read("/api/v1/orgs/acme/members", aliceAuth)
  await read("/api/v1/admin/quota/rules")
  await read("/api/v1/admin/quota/groups")
  await read("/api/v1/admin/quota/groups/standard/users")
  await read("/api/v1/admin/users/alice/quota")
  const packages = await read("/api/v1/packages/alice", aliceAuth)
  state["package content"] = (packages as ReadonlyArray<unknown>).length > 0
    ? sha256((await api(port, "GET", "/api/packages/alice/generic/tool/1.0.0/tool.bin", { auth: aliceAuth })).bytes)
    : null
  const repositories: Array<string> = []
  for (const user of users as ReadonlyArray<unknown>) {
    for (const repository of (await ok(port, "GET", `/api/v1/users/${String(field(user, "login"))}/repos?limit=50`)) as ReadonlyArray<unknown>) {
      repositories.push(String(field(repository, "full_name")))
    }
  }
  for (const repository of (await ok(port, "GET", "/api/v1/orgs/acme/repos")) as ReadonlyArray<unknown>) {
    repositories.push(String(field(repository, "full_name")))
  }
  const env = gitEnv(tmpdir())
  for (const name of repositories.sort()) {
    if (name === options.skipRepository) continue
    await read(`/api/v1/repos/${name}`)
    await read(`/api/v1/repos/${name}/branches`)
    await read(`/api/v1/repos/${name}/collaborators`)
    await read(`/api/v1/repos/${name}/keys`)
    await read(`/api/v1/repos/${name}/commits/topic/statuses`).catch(() => undefined)
    const releases = await read(`/api/v1/repos/${name}/releases`)
    for (const release of releases as ReadonlyArray<unknown>) {
      for (const asset of field(release, "assets") as ReadonlyArray<unknown>) {
        const url = new URL(String(field(asset, "browser_download_url")))
        state[`content of ${url.pathname}`] = sha256((await api(port, "GET", url.pathname)).bytes)
      }
    }
    state[`refs of ${name}`] = await git(["ls-remote", `http://root:root-password@127.0.0.1:${port}/${name}.git`], { env })
  }
  return JSON.parse(JSON.stringify(state).replaceAll(`127.0.0.1:${port}`, "HOST").replaceAll(`localhost:${port}`, "HOST")) as Record<string, unknown>
}

export const temporaryDirectory = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]

/** A database of its own on the test server (none on the embedded database); dropped by `drop`. */
export const freshDatabase = async (): Promise<{ readonly env: Record<string, string>; readonly drop: () => Promise<void> }> => {
  if (serverUrl === undefined) return { env: {}, drop: async () => {} }
  const name = `kiln_t_${randomBytes(8).toString("hex")}`
  const admin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.runPromise(Effect.scoped(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* statement(sql)
    }).pipe(Effect.provide(Layer.fresh(TestDatabase.adminLayer(Redacted.make(serverUrl)))))))
  await admin((sql) => sql`CREATE DATABASE ${sql(name)}`)
  return {
    env: { DATABASE_URL: Redacted.value(ConnectionUrl.withDatabase(Redacted.make(serverUrl), name)) },
    drop: () => admin((sql) => sql`DROP DATABASE IF EXISTS ${sql(name)} WITH (FORCE)`)
  }
}

