/**
 * The portal with Kiln mounted under /git-api (node:test: this file also runs in a project that
 * installs the packed packages from npm tarballs, outside the workspace).
 */
import assert from "node:assert/strict"
import { execFile } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { after, before, test } from "node:test"
import { promisify } from "node:util"
import { Option, Redacted } from "effect"
import { type Portal, startPortal } from "../src/Portal.ts"

const run = promisify(execFile)
const admin = { username: "portal-admin", password: "portal-admin-password" }
const auth = `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString("base64")}`

let portal: Portal
let dataDir: string

const api = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(`${portal.url}/git-api/api/v1${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as Record<string, unknown> }
}

before(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "portal-test-"))
  portal = await startPortal({
    dataDir,
    kiln: {
      admin: Option.some({ username: admin.username, password: Redacted.make(admin.password), email: "admin@portal.test" }),
      accessLog: false
    }
  })
})

after(async () => {
  await portal.close()
  await rm(dataDir, { recursive: true, force: true })
})

test("the portal's own routes answer beside Kiln", async () => {
  const home = await fetch(`${portal.url}/`)
  assert.equal(home.status, 200)
  assert.deepEqual(await home.json(), { service: "portal", git: "/git-api/" })
  const other = await fetch(`${portal.url}/elsewhere`)
  assert.equal(other.status, 404)
  assert.deepEqual(await other.json(), { error: "not found" })
})

test("Kiln's API answers under /git-api, and the URLs it writes carry the path", async () => {
  const version = await api("GET", "/version")
  assert.equal(version.status, 200)
  const created = await api("POST", "/admin/users", {
    username: "alice",
    email: "alice@portal.test",
    password: "alice-password",
    must_change_password: false
  })
  assert.equal(created.status, 201)
  const repo = await api("POST", "/admin/users/alice/repos", { name: "hello", auto_init: true })
  assert.equal(repo.status, 201)
  assert.equal(repo.body?.["clone_url"], `${portal.url}/git-api/alice/hello.git`)
  assert.equal(repo.body?.["html_url"], `${portal.url}/git-api/alice/hello`)
  const missing = await api("GET", "/repos/alice/nothing")
  assert.equal(missing.status, 404)
})

test("git clones through the mount point", async () => {
  const target = await mkdtemp(join(tmpdir(), "portal-clone-"))
  try {
    await run("git", ["clone", "--quiet", `${portal.url}/git-api/alice/hello.git`, join(target, "hello")])
    assert.ok(existsSync(join(target, "hello", "README.md")))
    assert.match(await readFile(join(target, "hello", "README.md"), "utf8"), /hello/)
    // A renamed repository's old URL redirects under the mount point, and git follows it.
    assert.equal((await api("PATCH", "/repos/alice/hello", { name: "greeting" })).status, 200)
    const moved = await fetch(`${portal.url}/git-api/alice/hello.git/info/refs?service=git-upload-pack`, { redirect: "manual" })
    assert.equal(moved.status, 301)
    assert.equal(moved.headers.get("location"), "/git-api/alice/greeting.git/info/refs?service=git-upload-pack")
    const refs = await run("git", ["ls-remote", `${portal.url}/git-api/alice/hello.git`])
    assert.match(refs.stdout, /refs\/heads\/main/)
  } finally {
    await rm(target, { recursive: true, force: true })
  }
})

test("the usage route reads quota usage through Kiln's domain services, for the owner or an admin only", async () => {
  // Without credentials: refused (it answered anyone, private owners included: review 4b30e64, finding 34).
  assert.equal((await fetch(`${portal.url}/usage/alice`)).status, 401)
  assert.equal((await fetch(`${portal.url}/usage/alice`, { headers: { authorization: "token not-a-token" } })).status, 401)
  const response = await fetch(`${portal.url}/usage/alice`, { headers: { authorization: auth } })
  assert.equal(response.status, 200)
  const body = await response.json() as { owner: string; usage: Record<string, number>; groups: Array<string> }
  assert.equal(body.owner, "alice")
  assert.ok((body.usage["reposPublic"] ?? 0) > 0, JSON.stringify(body))
  assert.deepEqual(body.groups, [])
  const unknown = await fetch(`${portal.url}/usage/nobody`, { headers: { authorization: auth } })
  assert.equal(unknown.status, 404)
  // alice sees her own usage, and someone else's is as hidden as an unknown owner.
  const alice = `Basic ${Buffer.from("alice:alice-password").toString("base64")}`
  assert.equal((await fetch(`${portal.url}/usage/alice`, { headers: { authorization: alice } })).status, 200)
  assert.equal((await fetch(`${portal.url}/usage/portal-admin`, { headers: { authorization: alice } })).status, 404)
})

test("@kiln/server/testing starts a throwaway Kiln for another project's tests", async () => {
  const { startTestKiln } = await import("@kiln/server/testing")
  const kiln = await startTestKiln()
  try {
    const me = await fetch(`${kiln.url}/api/v1/user`, { headers: { authorization: `token ${kiln.adminToken}` } })
    assert.equal(me.status, 200)
    assert.equal((await me.json() as { login: string }).login, kiln.admin.username)
  } finally {
    await kiln.close()
  }
  assert.equal(existsSync(kiln.dataDir), false)
})
