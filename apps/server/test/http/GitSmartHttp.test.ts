/**
 * The stock git CLI against the real Kiln server over its socket: clone, fetch and push through
 * smart HTTP, with the repository record and the branch table following every push.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Path from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { admin, at, baseUrl, createToken, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, type GitClient, makeGitClient } from "./GitClient.ts"

const serverDir = (owner: string, name: string) =>
  Effect.map(Effect.service(KilnConfig), (config) => Path.join(config.dataDir, "repositories", owner, `${name}.git`))

/** Every object reachable from any ref, sorted: two repositories with equal sets hold the same history. */
const objects = (client: GitClient, dir: string) =>
  Effect.map(client.git(["rev-list", "--all", "--objects"], { cwd: dir }), (out) =>
    out.split("\n").filter((line) => line !== "").map((line) => line.split(" ")[0] ?? "").sort())

const branchNames = (body: unknown) => (Array.isArray(body) ? body : []).map((branch) => String(at(branch, "name")))

layer(TestServer.layer(), { timeout: "300 seconds" })("git smart HTTP", (it) => {
  it.effect("clones an empty repository, takes pushes of branches, tags, force-pushes and deletions, and clones it back whole", () =>
    Effect.scoped(Effect.gen(function*() {
      const alice = yield* createUser("alice")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "demo" } })
      assert.strictEqual(created.status, 201, created.text)
      const client = yield* makeGitClient
      const base = yield* baseUrl
      const url = cloneUrl(base, "alice", "demo", { username: "alice", password: alice.password })

      // An empty repository clones (git warns) and has no branches.
      const work = client.path("work")
      const cloned = yield* client.run(["clone", url, work])
      assert.strictEqual(cloned.code, 0, cloned.stderr)
      assert.include(cloned.stderr, "empty repository")
      const empty = yield* request("GET", "/api/v1/repos/alice/demo/branches")
      assert.strictEqual(empty.status, 200)
      assert.strictEqual(empty.text, "null")
      assert.strictEqual(empty.headers.get("x-total-count"), "0")

      // The first push, to a branch other than the configured default.
      yield* client.git(["checkout", "-q", "-b", "trunk"], { cwd: work })
      // Content that does not compress, so that the recorded size shows at least 1 KiB.
      const noise = Array.from({ length: 4000 }, (_, i) => ((i * 7919) % 65_521).toString(36)).join("")
      const first = yield* client.commit(work, { "README.md": "# demo\n", "noise.txt": noise }, "first")
      yield* client.git(["push", "-q", "origin", "trunk"], { cwd: work })
      const repo = yield* request("GET", "/api/v1/repos/alice/demo")
      assert.strictEqual(at(repo.body, "empty"), false)
      assert.strictEqual(at(repo.body, "default_branch"), "trunk")
      assert.isAbove(Number(at(repo.body, "size")), 0)
      const trunk = yield* request("GET", "/api/v1/repos/alice/demo/branches/trunk")
      assert.strictEqual(trunk.status, 200, trunk.text)
      assert.strictEqual(at(trunk.body, "commit", "id"), first)
      assert.strictEqual(at(trunk.body, "commit", "message"), "first\n")
      assert.strictEqual(at(trunk.body, "commit", "author", "email"), "ada@example.com")
      assert.strictEqual(at(trunk.body, "commit", "verification", "reason"), "gpg.error.not_signed_commit")

      // More branches (one with a slash) and tags, one annotated.
      yield* client.git(["checkout", "-q", "-b", "feature/x"], { cwd: work })
      const feature = yield* client.commit(work, { "src/x.ts": "export const x = 1\n" }, "feature x")
      yield* client.git(["checkout", "-q", "-b", "doomed", "trunk"], { cwd: work })
      yield* client.commit(work, { "doomed.txt": "soon gone\n" }, "doomed")
      yield* client.git(["tag", "v1", "trunk"], { cwd: work })
      yield* client.git(["tag", "-a", "v2", "-m", "release two", "feature/x"], { cwd: work })
      yield* client.git(["push", "-q", "origin", "feature/x", "doomed", "v1", "v2"], { cwd: work })
      const listed = yield* request("GET", "/api/v1/repos/alice/demo/branches")
      assert.sameMembers(branchNames(listed.body), ["trunk", "feature/x", "doomed"])
      assert.strictEqual(listed.headers.get("x-total-count"), "3")
      const slashed = yield* request("GET", "/api/v1/repos/alice/demo/branches/feature/x")
      assert.strictEqual(at(slashed.body, "commit", "id"), feature)

      // A force-push rewrites trunk; a push deletes a branch.
      yield* client.git(["checkout", "-q", "trunk"], { cwd: work })
      yield* client.git(["commit", "-q", "--amend", "-m", "first, rewritten"], { cwd: work })
      const rewritten = (yield* client.git(["rev-parse", "HEAD"], { cwd: work })).trim()
      const refused = yield* client.run(["push", "origin", "trunk"], { cwd: work })
      assert.notStrictEqual(refused.code, 0)
      yield* client.git(["push", "-q", "--force", "origin", "trunk"], { cwd: work })
      yield* client.git(["push", "-q", "origin", ":doomed"], { cwd: work })
      const after = yield* request("GET", "/api/v1/repos/alice/demo/branches")
      assert.sameMembers(branchNames(after.body), ["trunk", "feature/x"])
      const trunkNow = yield* request("GET", "/api/v1/repos/alice/demo/branches/trunk")
      assert.strictEqual(at(trunkNow.body, "commit", "id"), rewritten)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/alice/demo/branches/doomed")).status, 404)

      // A fresh clone (protocol v2, the default) and one over protocol v0 hold every ref and object.
      const server = yield* serverDir("alice", "demo")
      const serverRefs = yield* client.refs(server)
      for (const protocol of ["2", "0"]) {
        const again = client.path(`again-v${protocol}`)
        yield* client.git(["-c", `protocol.version=${protocol}`, "clone", "-q", "--mirror", url, again])
        assert.deepStrictEqual(yield* client.refs(again), serverRefs)
        assert.deepStrictEqual(yield* objects(client, again), yield* objects(client, server))
      }
      assert.strictEqual(serverRefs.get("refs/heads/trunk"), rewritten)
      assert.isFalse(serverRefs.has("refs/heads/doomed"))
      assert.isTrue(serverRefs.has("refs/tags/v2"))

      // A fetch brings new work into an existing clone.
      const other = client.path("other")
      yield* client.git(["clone", "-q", url, other])
      yield* client.commit(work, { "more.txt": "more\n" }, "more")
      yield* client.git(["push", "-q", "origin", "trunk"], { cwd: work })
      yield* client.git(["fetch", "-q", "origin"], { cwd: other })
      assert.strictEqual(
        (yield* client.git(["rev-parse", "origin/trunk"], { cwd: other })).trim(),
        (yield* client.git(["rev-parse", "HEAD"], { cwd: work })).trim()
      )
    })))

  it.effect("lets anyone clone a public repository, asks for credentials on a private one, and refuses pushes without write access", () =>
    Effect.scoped(Effect.gen(function*() {
      const owner = yield* createUser("olivia")
      const reader = yield* createUser("rita")
      const stranger = yield* createUser("sam")
      for (const [name, isPrivate] of [["open", false], ["closed", true]] as const) {
        const made = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name, private: isPrivate, auto_init: true } })
        assert.strictEqual(made.status, 201, made.text)
      }
      const added = yield* request("PUT", "/api/v1/repos/olivia/closed/collaborators/rita", { auth: owner.auth, json: { permission: "read" } })
      assert.strictEqual(added.status, 204, added.text)
      const client = yield* makeGitClient
      const base = yield* baseUrl

      assert.strictEqual((yield* client.run(["clone", "-q", cloneUrl(base, "olivia", "open"), client.path("anon-open")])).code, 0)
      // The path without `.git` serves the same repository.
      const bare = yield* client.run(["clone", "-q", `${base}/olivia/open`, client.path("anon-open-plain")])
      assert.strictEqual(bare.code, 0, bare.stderr)
      const anonPrivate = yield* client.run(["clone", "-q", cloneUrl(base, "olivia", "closed"), client.path("anon-closed")])
      assert.notStrictEqual(anonPrivate.code, 0)
      const challenge = yield* Effect.promise(() => fetch(`${base}/olivia/closed.git/info/refs?service=git-upload-pack`))
      assert.strictEqual(challenge.status, 401)
      assert.match(challenge.headers.get("www-authenticate") ?? "", /^Basic /)
      const missing = yield* Effect.promise(() => fetch(`${base}/olivia/nothing.git/info/refs?service=git-upload-pack`))
      assert.strictEqual(missing.status, 401)

      const strangerPrivate = yield* client.run(["clone", "-q", cloneUrl(base, "olivia", "closed", { username: "sam", password: stranger.password }), client.path("sam-closed")])
      assert.notStrictEqual(strangerPrivate.code, 0)
      assert.include(strangerPrivate.stderr, "not found")
      // git only sends credentials when challenged; a wrong password sent anyway is refused.
      const wrongPassword = yield* Effect.promise(() =>
        fetch(`${base}/olivia/open.git/info/refs?service=git-upload-pack`, {
          headers: { authorization: `Basic ${Buffer.from("sam:nope").toString("base64")}` }
        }))
      assert.strictEqual(wrongPassword.status, 401)

      // Rita reads the private repository but may not push to it; nothing changes on the server.
      const ritaUrl = cloneUrl(base, "olivia", "closed", { username: "rita", password: reader.password })
      const ritaWork = client.path("rita")
      yield* client.git(["clone", "-q", ritaUrl, ritaWork])
      yield* client.commit(ritaWork, { "rita.txt": "hello\n" }, "rita's change")
      const server = yield* serverDir("olivia", "closed")
      const before = yield* client.refs(server)
      const pushed = yield* client.run(["push", "origin", "HEAD:main", "HEAD:rita-branch"], { cwd: ritaWork })
      assert.notStrictEqual(pushed.code, 0)
      assert.include(pushed.stderr, "403")
      assert.deepStrictEqual(yield* client.refs(server), before)
      const branches = yield* request("GET", "/api/v1/repos/olivia/closed/branches", { auth: owner.auth })
      assert.deepStrictEqual(branchNames(branches.body), ["main"])

      // Anonymous pushes to a public repository are asked to sign in; tokens need write:repository.
      const anonWork = client.path("anon-open")
      yield* client.commit(anonWork, { "anon.txt": "x\n" }, "anonymous")
      const anonPush = yield* client.run(["push", "origin", "HEAD:main"], { cwd: anonWork })
      assert.notStrictEqual(anonPush.code, 0)
      const readToken = yield* createToken(owner.auth, "olivia", "read-only", ["read:repository"])
      const writeToken = yield* createToken(owner.auth, "olivia", "writer", ["write:repository"])
      const viaRead = yield* client.run(["push", cloneUrl(base, "olivia", "open", { username: "olivia", password: readToken }), "HEAD:main"], { cwd: anonWork })
      assert.notStrictEqual(viaRead.code, 0)
      const viaWrite = yield* client.run(["push", cloneUrl(base, "olivia", "open", { username: writeToken, password: "" }), "HEAD:token-branch"], { cwd: anonWork })
      assert.strictEqual(viaWrite.code, 0, viaWrite.stderr)
      const tokenBranch = yield* request("GET", "/api/v1/repos/olivia/open/branches/token-branch")
      assert.strictEqual(tokenBranch.status, 200, tokenBranch.text)
    })))

  it.effect("decides again once anything changed: a deleted token and a repository made private are refused at once, and one made public again is served", () =>
    // Access decisions are kept while the data version stands (GitDecisions.ts); each step below
    // asks twice, so that the second answer would come from a kept decision.
    Effect.gen(function*() {
      const dana = yield* createUser("dana")
      const made = yield* request("POST", "/api/v1/user/repos", { auth: dana.auth, json: { name: "kept", auto_init: true } })
      assert.strictEqual(made.status, 201, made.text)
      const token = yield* createToken(dana.auth, "dana", "reader", ["read:repository"])
      const base = yield* baseUrl
      const advertise = (credentials?: string, service = "git-upload-pack") =>
        Effect.promise(() =>
          fetch(`${base}/dana/kept.git/info/refs?service=${service}`, {
            headers: credentials === undefined ? {} : { authorization: `Basic ${Buffer.from(credentials).toString("base64")}` }
          }).then(async (response) => {
            await response.arrayBuffer()
            return response.status
          }))
      const twice = (credentials?: string) => Effect.all([advertise(credentials), advertise(credentials)])

      assert.deepStrictEqual(yield* twice(), [200, 200])
      assert.deepStrictEqual(yield* twice(`${token}:`), [200, 200])
      const deleted = yield* request("DELETE", "/api/v1/users/dana/tokens/reader", { auth: dana.auth })
      assert.strictEqual(deleted.status, 204, deleted.text)
      assert.deepStrictEqual(yield* twice(`${token}:`), [401, 401])

      const hidden = yield* request("PATCH", "/api/v1/repos/dana/kept", { auth: dana.auth, json: { private: true } })
      assert.strictEqual(hidden.status, 200, hidden.text)
      assert.deepStrictEqual(yield* twice(), [401, 401])
      assert.deepStrictEqual(yield* twice(`dana:${dana.password}`), [200, 200])
      // A refusal kept for an anonymous caller goes the same way.
      const shown = yield* request("PATCH", "/api/v1/repos/dana/kept", { auth: dana.auth, json: { private: false } })
      assert.strictEqual(shown.status, 200, shown.text)
      assert.deepStrictEqual(yield* twice(), [200, 200])

      // An anonymous push is asked to sign in, and refused outright once the repository is archived.
      const twicePushing = () => Effect.all([advertise(undefined, "git-receive-pack"), advertise(undefined, "git-receive-pack")])
      assert.deepStrictEqual(yield* twicePushing(), [401, 401])
      const archived = yield* request("PATCH", "/api/v1/repos/dana/kept", { auth: dana.auth, json: { archived: true } })
      assert.strictEqual(archived.status, 200, archived.text)
      assert.deepStrictEqual(yield* twicePushing(), [403, 403])
    }))

  it.effect("refuses an account that must change its password with Forgejo's 401, whatever the repository, until it no longer must", () =>
    Effect.scoped(Effect.gen(function*() {
      // An administrator's new account must change its password unless told otherwise.
      const created = yield* request("POST", "/api/v1/admin/users", {
        auth: admin,
        json: { username: "nell", email: "nell@example.com", password: "nell-password" }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: TestServer.basic("nell", "nell-password") })).status, 403)
      const made = yield* request("POST", "/api/v1/admin/users/nell/repos", { auth: admin, json: { name: "own", private: true, auto_init: true } })
      assert.strictEqual(made.status, 201, made.text)
      const base = yield* baseUrl
      const nell = `Basic ${Buffer.from("nell:nell-password").toString("base64")}`
      const advertise = (path: string) =>
        Effect.promise(() => fetch(`${base}/${path}/info/refs?service=git-upload-pack`, { headers: { authorization: nell } }))

      // Forgejo's web middleware answers before looking at the repository: its own, root's public
      // one, and one that does not exist alike. No challenge: the same credentials would not help.
      for (const path of ["nell/own.git", "nell/own", "nell/nothing.git"]) {
        const refused = yield* advertise(path)
        assert.strictEqual(refused.status, 401, path)
        assert.strictEqual(yield* Effect.promise(() => refused.text()), "Update your password\n")
        assert.isNull(refused.headers.get("www-authenticate"))
      }
      const client = yield* makeGitClient
      const url = cloneUrl(base, "nell", "own", { username: "nell", password: "nell-password" })
      const cloned = yield* client.run(["clone", "-q", url, client.path("nell-own")])
      assert.notStrictEqual(cloned.code, 0)
      const push = yield* request("POST", "/nell/own.git/git-receive-pack", {
        auth: TestServer.basic("nell", "nell-password"),
        body: "0000",
        contentType: "application/x-git-receive-pack-request"
      })
      assert.strictEqual(push.status, 401)

      const changed = yield* request("PATCH", "/api/v1/admin/users/nell", {
        auth: admin,
        json: { login_name: "nell", source_id: 0, must_change_password: false }
      })
      assert.strictEqual(changed.status, 200, changed.text)
      assert.strictEqual((yield* advertise("nell/own.git")).status, 200)
      const again = yield* client.run(["clone", "-q", url, client.path("nell-own-again")])
      assert.strictEqual(again.code, 0, again.stderr)
    })))

  it.effect("words its refusals as Forgejo's smart HTTP does: an archived repository's push, a disabled account", () =>
    Effect.gen(function*() {
      const dora = yield* createUser("dora")
      const made = yield* request("POST", "/api/v1/user/repos", { auth: dora.auth, json: { name: "kept", auto_init: true } })
      assert.strictEqual(made.status, 201, made.text)
      const base = yield* baseUrl
      const doraBasic = `Basic ${Buffer.from(`dora:${dora.password}`).toString("base64")}`
      const advertise = (service: string) =>
        Effect.promise(async () => {
          const response = await fetch(`${base}/dora/kept.git/info/refs?service=${service}`, { headers: { authorization: doraBasic } })
          return { status: response.status, text: await response.text() }
        })

      const archived = yield* request("PATCH", "/api/v1/repos/dora/kept", { auth: dora.auth, json: { archived: true } })
      assert.strictEqual(archived.status, 200, archived.text)
      assert.deepStrictEqual(yield* advertise("git-receive-pack"), {
        status: 403,
        text: "This repo is archived. You can view files and clone it, but cannot push or open issues/pull-requests.\n"
      })
      assert.strictEqual((yield* advertise("git-upload-pack")).status, 200)

      const disabled = yield* request("PATCH", "/api/v1/admin/users/dora", {
        auth: admin,
        json: { login_name: "dora", source_id: 0, prohibit_login: true }
      })
      assert.strictEqual(disabled.status, 200, disabled.text)
      assert.deepStrictEqual(yield* advertise("git-upload-pack"), { status: 403, text: "Your account is disabled.\n" })
    }))

  it.effect("serialises concurrent pushes to one repository without losing a ref update", () =>
    Effect.scoped(Effect.gen(function*() {
      const carol = yield* createUser("carol")
      const made = yield* request("POST", "/api/v1/user/repos", { auth: carol.auth, json: { name: "busy", auto_init: true } })
      assert.strictEqual(made.status, 201, made.text)
      const client = yield* makeGitClient
      const url = cloneUrl(yield* baseUrl, "carol", "busy", { username: "carol", password: carol.password })
      const workers = Array.from({ length: 6 }, (_, i) => i)
      const heads = yield* Effect.forEach(workers, (i) =>
        Effect.gen(function*() {
          const dir = client.path(`worker-${i}`)
          yield* client.git(["clone", "-q", url, dir])
          return yield* client.commit(dir, { [`file-${i}.txt`]: `${i}\n` }, `work ${i}`)
        }), { concurrency: "unbounded" })
      yield* Effect.forEach(workers, (i) => client.git(["push", "-q", "origin", `HEAD:refs/heads/parallel-${i}`], { cwd: client.path(`worker-${i}`) }), {
        concurrency: "unbounded"
      })
      const server = yield* client.refs(yield* serverDir("carol", "busy"))
      const listed = yield* request("GET", "/api/v1/repos/carol/busy/branches?limit=50")
      assert.strictEqual(listed.headers.get("x-total-count"), "7")
      for (const i of workers) {
        assert.strictEqual(server.get(`refs/heads/parallel-${i}`), heads[i])
        const branch = (listed.body as ReadonlyArray<unknown>).find((item) => at(item, "name") === `parallel-${i}`)
        assert.strictEqual(at(branch, "commit", "id"), heads[i])
      }
    })))
})
