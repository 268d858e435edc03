/** Branches over HTTP (api-facts §1.5, §4.6; behaviour cases BR-01, BR-02, BR-05, RB-01). */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { join } from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { at, baseUrl, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { cloneUrl, makeGitClient } from "./GitClient.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const names = (body: unknown) => (Array.isArray(body) ? body : []).map((branch) => String(at(branch, "name")))

const BRANCH_KEYS = [
  "name", "commit", "protected", "required_approvals", "enable_status_check", "status_check_contexts", "user_can_push",
  "user_can_merge", "effective_branch_protection_name"
]
const COMMIT_KEYS = ["id", "message", "url", "author", "committer", "verification", "timestamp", "added", "removed", "modified"]

layer(TestServer.layer(), { timeout: "300 seconds" })("branches", (it) => {
  it.effect("reads, creates and deletes branches with Forgejo's answers", () =>
    Effect.gen(function*() {
      const alice = yield* createUser("alice")
      const made = yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "repo1", auto_init: true } })
      assert.strictEqual(made.status, 201, made.text)
      const token = yield* createToken(alice.auth, "alice", "reader", ["read:repository"])
      const writer = yield* createToken(alice.auth, "alice", "writer", ["write:repository"])

      const main = yield* request("GET", "/api/v1/repos/alice/repo1/branches/main", { auth: { token } })
      assert.strictEqual(main.status, 200, main.text)
      assert.deepStrictEqual(Object.keys(main.body as object), BRANCH_KEYS)
      assert.deepStrictEqual(Object.keys(at(main.body, "commit") as object), COMMIT_KEYS)
      assert.strictEqual(at(main.body, "name"), "main")
      assert.strictEqual(at(main.body, "user_can_push"), true)
      assert.strictEqual(at(main.body, "user_can_merge"), true)
      assert.strictEqual(at(main.body, "protected"), false)
      assert.deepStrictEqual(at(main.body, "status_check_contexts"), [])
      assert.strictEqual(at(main.body, "commit", "message"), "Initial commit\n")
      assert.strictEqual(at(main.body, "commit", "url"), `${ROOT_URL}alice/repo1/commit/${String(at(main.body, "commit", "id"))}`)
      assert.strictEqual(at(main.body, "commit", "author", "username"), "alice")
      assert.strictEqual(at(main.body, "commit", "added"), null)
      assert.deepStrictEqual(at(main.body, "commit", "verification"), {
        verified: false, reason: "gpg.error.not_signed_commit", signature: "", signer: null, payload: ""
      })
      const anonymous = yield* request("GET", "/api/v1/repos/alice/repo1/branches/main")
      assert.strictEqual(at(anonymous.body, "user_can_push"), false)
      const deeper = yield* request("GET", "/api/v1/repos/alice/repo1/branches/main/doesnotexist")
      assert.strictEqual(deeper.status, 404)
      assert.deepStrictEqual(deeper.body, {
        message: "The target couldn't be found.", url: errorUrl, errors: ["branch does not exist [name: main/doesnotexist]"]
      })

      // BR-02: creation from the default, from a named branch, from a ref; conflicts and bad names.
      const create = (json: Record<string, string>, auth: TestServer.Auth = alice.auth) =>
        request("POST", "/api/v1/repos/alice/repo1/branches", { auth, json })
      const fromDefault = yield* create({ new_branch_name: "from-default", old_branch_name: "" })
      assert.strictEqual(fromDefault.status, 201, fromDefault.text)
      assert.strictEqual(at(fromDefault.body, "name"), "from-default")
      assert.strictEqual(at(fromDefault.body, "commit", "id"), at(main.body, "commit", "id"))
      assert.strictEqual((yield* create({ new_branch_name: "from-main", old_branch_name: "main" })).status, 201)
      const again = yield* create({ new_branch_name: "from-main", old_branch_name: "main" })
      assert.deepStrictEqual([again.status, again.body], [409, { message: "The branch already exists.", url: errorUrl }])
      assert.strictEqual((yield* create({ new_branch_name: "feature/1", old_branch_name: "from-main" })).status, 201)
      const featureOne = yield* request("GET", "/api/v1/repos/alice/repo1/branches/feature/1")
      assert.strictEqual(featureOne.status, 200)
      assert.strictEqual(at(featureOne.body, "name"), "feature/1")
      assert.strictEqual((yield* request("GET", "/api/v1/repos/alice/repo1/branches/feature/1/doesnotexist")).status, 404)
      const noOld = yield* create({ new_branch_name: "x", old_branch_name: "does_not_exist" })
      assert.deepStrictEqual([noOld.status, noOld.body], [404, { message: "The old branch does not exist", url: errorUrl }])
      const emoji = yield* create({ new_branch_name: "test-👀", old_ref_name: "refs/heads/main" })
      assert.strictEqual(emoji.status, 201, emoji.text)
      assert.strictEqual(at(emoji.body, "name"), "test-👀")
      assert.strictEqual((yield* request("GET", `/api/v1/repos/alice/repo1/branches/${encodeURIComponent("test-👀")}`)).status, 200)
      const bySha = yield* create({ new_branch_name: "by-sha", old_ref_name: String(at(main.body, "commit", "id")).slice(0, 10) })
      assert.strictEqual(bySha.status, 201, bySha.text)
      // Forgejo answers 500 (GetCommit) for a source that names nothing; a client's mistake is 404 here (issue 27 item 3).
      assert.strictEqual((yield* create({ new_branch_name: "nowhere", old_ref_name: "no-such-ref" })).status, 404)
      const nested = yield* create({ new_branch_name: "feature/1/deeper" })
      assert.deepStrictEqual([nested.status, nested.body], [409, { message: "The branch with the same name already exists.", url: errorUrl }])
      for (const [name, rule] of [["", "Required"], ["bad..name", "GitRefName"], ["a".repeat(101), "MaxSize"]] as const) {
        const bad = yield* create({ new_branch_name: name })
        assert.deepStrictEqual([bad.status, bad.body], [422, { message: `[BranchName]: ${rule}`, url: errorUrl }])
      }
      assert.strictEqual((yield* create({ new_branch_name: "scoped" }, { token })).status, 403)
      assert.strictEqual((yield* create({ new_branch_name: "scoped" }, { token: writer })).status, 201)
      assert.strictEqual((yield* request("POST", "/api/v1/repos/alice/repo1/branches", { json: { new_branch_name: "anon" } })).status, 401)

      // Listing: every branch at one commit, so by name; paged with the headers.
      const listed = yield* request("GET", "/api/v1/repos/alice/repo1/branches")
      assert.deepStrictEqual(names(listed.body), ["by-sha", "feature/1", "from-default", "from-main", "main", "scoped", "test-👀"])
      assert.strictEqual(listed.headers.get("x-total-count"), "7")
      const paged = yield* request("GET", "/api/v1/repos/alice/repo1/branches?limit=2&page=2")
      assert.deepStrictEqual(names(paged.body), ["from-default", "from-main"])
      assert.strictEqual(
        paged.headers.get("link"),
        `<${ROOT_URL}api/v1/repos/alice/repo1/branches?limit=2&page=3>; rel="next",<${ROOT_URL}api/v1/repos/alice/repo1/branches?limit=2&page=4>; rel="last",` +
          `<${ROOT_URL}api/v1/repos/alice/repo1/branches?limit=2&page=1>; rel="first",<${ROOT_URL}api/v1/repos/alice/repo1/branches?limit=2&page=1>; rel="prev"`
      )
      assert.strictEqual((yield* request("GET", "/api/v1/repos/alice/repo1/branches?page=9")).text, "[]")

      // Deletion.
      const remove = (name: string, auth: TestServer.Auth | "anonymous" = alice.auth) =>
        request("DELETE", `/api/v1/repos/alice/repo1/branches/${name}`, auth === "anonymous" ? {} : { auth })
      const defaultBranch = yield* remove("main")
      assert.deepStrictEqual([defaultBranch.status, defaultBranch.body], [403, { message: "can not delete default branch", url: errorUrl }])
      assert.strictEqual((yield* remove("feature/1", "anonymous")).status, 401)
      assert.strictEqual((yield* remove("feature/1")).status, 204)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/alice/repo1/branches/feature/1")).status, 404)
      const gone = yield* remove("feature/1")
      assert.deepStrictEqual([gone.status, at(gone.body, "errors")], [404, ["branch does not exist [name: feature/1]"]])
    }))

  it.effect("hides private repositories, keeps readers from writing, and answers for empty and archived repositories", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("bob")
      const reader = yield* createUser("rhea")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "secret", private: true, auto_init: true } })
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "blank" } })
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "old", auto_init: true } })
      yield* request("PUT", "/api/v1/repos/bob/secret/collaborators/rhea", { auth: owner.auth, json: { permission: "read" } })

      assert.strictEqual((yield* request("GET", "/api/v1/repos/bob/secret/branches")).status, 404)
      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/bob/secret/branches/main")).status, 404)
      const publicOnly = yield* createToken(owner.auth, "bob", "public-only", ["public-only", "write:repository"])
      assert.strictEqual((yield* request("GET", "/api/v1/repos/bob/secret/branches", { auth: { token: publicOnly } })).status, 403)
      const asReader = yield* request("GET", "/api/v1/repos/bob/secret/branches", { auth: reader.auth })
      assert.deepStrictEqual(names(asReader.body), ["main"])
      assert.strictEqual(at(asReader.body, 0, "user_can_push"), false)
      const readerCreate = yield* request("POST", "/api/v1/repos/bob/secret/branches", { auth: reader.auth, json: { new_branch_name: "r" } })
      assert.deepStrictEqual([readerCreate.status, readerCreate.body], [403, {
        message: "user should have a permission to write to a repo", url: errorUrl
      }])

      const emptyList = yield* request("GET", "/api/v1/repos/bob/blank/branches")
      assert.deepStrictEqual([emptyList.status, emptyList.text, emptyList.headers.get("x-total-count")], [200, "null", "0"])
      const emptyCreate = yield* request("POST", "/api/v1/repos/bob/blank/branches", { auth: owner.auth, json: { new_branch_name: "x" } })
      assert.deepStrictEqual([emptyCreate.status, emptyCreate.body], [404, { message: "Git Repository is empty.", url: errorUrl }])
      const emptyDelete = yield* request("DELETE", "/api/v1/repos/bob/blank/branches/x", { auth: owner.auth })
      assert.deepStrictEqual([emptyDelete.status, emptyDelete.body], [404, { message: "Git Repository is empty.", url: errorUrl }])
      assert.strictEqual((yield* request("GET", "/api/v1/repos/bob/blank/branches/main")).status, 404)

      const archived = yield* request("PATCH", "/api/v1/repos/bob/old", { auth: owner.auth, json: { archived: true } })
      assert.strictEqual(archived.status, 200, archived.text)
      const locked = yield* request("POST", "/api/v1/repos/bob/old/branches", { auth: owner.auth, json: { new_branch_name: "x" } })
      assert.strictEqual(locked.status, 423)
      assert.match(String(at(locked.body, "message")), /^<Repository \d+:bob\/old> is archived$/)
      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/bob/old/branches/main", { auth: owner.auth })).status, 423)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/bob/old/branches/main")).status, 200)
    }))

  it.effect("re-reads the branches from git when the table lost them (BR-05), and orders by the latest commit", () =>
    Effect.scoped(Effect.gen(function*() {
      const carol = yield* createUser("carol")
      yield* request("POST", "/api/v1/user/repos", { auth: carol.auth, json: { name: "timeline", auto_init: true } })
      const client = yield* makeGitClient
      const url = cloneUrl(yield* baseUrl, "carol", "timeline", { username: "carol", password: carol.password })
      const work = client.path("timeline")
      yield* client.git(["clone", "-q", url, work])
      const dated = (date: string) => ({ GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date })
      yield* client.git(["checkout", "-q", "-b", "old"], { cwd: work })
      yield* client.git(["commit", "-q", "--allow-empty", "-m", "old"], { cwd: work, env: dated("2001-01-01T00:00:00+0000") })
      yield* client.git(["checkout", "-q", "-b", "future", "main"], { cwd: work })
      yield* client.git(["commit", "-q", "--allow-empty", "-m", "future"], {
        cwd: work,
        env: { GIT_AUTHOR_DATE: "2099-01-02T15:04:05+0130", GIT_COMMITTER_DATE: "2099-01-02T15:04:05+0130", GIT_AUTHOR_EMAIL: "carol@example.com" }
      })
      yield* client.git(["push", "-q", "origin", "old", "future"], { cwd: work })
      // Latest commit first, then by name (the initial commit's time depends on the server's clock).
      const inOrder = (body: unknown) => {
        const items = (Array.isArray(body) ? body : []).map((item) => ({
          name: String(at(item, "name")),
          time: Date.parse(String(at(item, "commit", "timestamp")))
        }))
        const sorted = [...items].sort((a, b) => b.time - a.time || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        return items.map((item) => item.name).join() === sorted.map((item) => item.name).join()
      }
      const listed = yield* request("GET", "/api/v1/repos/carol/timeline/branches")
      assert.sameMembers(names(listed.body), ["future", "main", "old"])
      assert.isTrue(inOrder(listed.body), listed.text)
      assert.strictEqual(at(listed.body, 0, "name"), "future")
      assert.strictEqual(at(listed.body, 0, "commit", "timestamp"), "2099-01-02T15:04:05+01:30")
      assert.strictEqual(at(listed.body, 0, "commit", "author", "username"), "carol")
      assert.strictEqual(at(listed.body, 0, "commit", "committer", "username"), "")

      const sql = yield* SqlClient.SqlClient
      yield* sql`DELETE FROM branches WHERE repo_id = (SELECT r.id FROM repositories r JOIN users u ON u.id = r.owner_id
        WHERE u.lower_name = 'carol' AND r.lower_name = 'timeline')`
      const created = yield* request("POST", "/api/v1/repos/carol/timeline/branches", { auth: carol.auth, json: { new_branch_name: "new_branch" } })
      assert.strictEqual(created.status, 201, created.text)
      const relisted = yield* request("GET", "/api/v1/repos/carol/timeline/branches")
      assert.sameMembers(names(relisted.body), ["future", "main", "new_branch", "old"])
      assert.isTrue(inOrder(relisted.body), relisted.text)
    })))

  it.effect("heals a table whose write section never finished: a left mark makes the next read re-read the refs", () =>
    Effect.scoped(Effect.gen(function*() {
      const dave = yield* createUser("dave")
      yield* request("POST", "/api/v1/user/repos", { auth: dave.auth, json: { name: "crashed", auto_init: true } })
      const config = yield* KilnConfig
      const gitdir = join(config.dataDir, "repositories", "dave", "crashed.git")
      const sql = yield* SqlClient.SqlClient
      const repoId = sql`(SELECT r.id FROM repositories r JOIN users u ON u.id = r.owner_id
        WHERE u.lower_name = 'dave' AND r.lower_name = 'crashed')`
      const client = yield* makeGitClient

      // What a process killed mid-push leaves: git has the ref, the table never learnt of it.
      yield* client.git(["--git-dir", gitdir, "branch", "unrecorded", "main"])
      const unmarked = yield* request("GET", "/api/v1/repos/dave/crashed/branches/unrecorded")
      assert.strictEqual(unmarked.status, 404, "without a mark the table is trusted")

      // The section marked the table before its git step, and died before clearing the mark.
      yield* sql`INSERT INTO branch_sync_pending (repo_id) SELECT ${repoId}`
      const healed = yield* request("GET", "/api/v1/repos/dave/crashed/branches/unrecorded")
      assert.strictEqual(healed.status, 200, healed.text)
      const [left] = yield* sql<{ n: unknown }>`SELECT count(*) AS n FROM branch_sync_pending WHERE repo_id = ${repoId}`
      assert.strictEqual(Number(left?.n), 0)

      // A push finding a mark re-reads every ref, not only those it changed.
      yield* client.git(["--git-dir", gitdir, "branch", "second", "main"])
      yield* sql`INSERT INTO branch_sync_pending (repo_id) SELECT ${repoId}`
      const url = cloneUrl(yield* baseUrl, "dave", "crashed", { username: "dave", password: dave.password })
      const work = client.path("crashed")
      yield* client.git(["clone", "-q", url, work])
      yield* client.git(["push", "-q", "origin", "main:pushed"], { cwd: work })
      const [stillMarked] = yield* sql<{ n: unknown }>`SELECT count(*) AS n FROM branch_sync_pending WHERE repo_id = ${repoId}`
      assert.strictEqual(Number(stillMarked?.n), 0)
      yield* sql`DELETE FROM branch_sync_pending`
      const listed = yield* request("GET", "/api/v1/repos/dave/crashed/branches")
      assert.sameMembers(names(listed.body), ["main", "pushed", "second", "unrecorded"])
    })))
})
