/**
 * Migrating from a second Kiln server (issue 6): a repository with branches and tags is pushed to
 * the source server over smart HTTP, then `POST /repos/migrate` on this server clones it, public or
 * private (with `auth_token` or `auth_username`/`auth_password`), and the refs must match. Wrong
 * credentials are 422 and leave nothing; credentials are never kept or shown.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { at, baseUrl, createToken, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { bareRepositoryPath } from "./ArchiveFixtures.ts"
import { cloneUrl, type GitClient, makeGitClient } from "./GitClient.ts"

/** A work tree with two branches (one with a slash), a lightweight and an annotated tag. */
const history = (client: GitClient) =>
  Effect.gen(function*() {
    const work = client.path("source-work")
    yield* client.git(["init", "-q", "-b", "main", work])
    yield* client.commit(work, { "README.md": "# source\n" }, "first")
    yield* client.git(["tag", "v1"], { cwd: work })
    yield* client.git(["checkout", "-q", "-b", "feature/x"], { cwd: work })
    yield* client.commit(work, { "src/x.ts": "export const x = 1\n" }, "feature")
    yield* client.git(["tag", "-a", "v2", "-m", "second"], { cwd: work })
    yield* client.git(["checkout", "-q", "main"], { cwd: work })
    yield* client.commit(work, { "CHANGES.md": "- more\n" }, "second")
    return work
  })

/**
 * The source: a second Kiln server with its own database and data directory. Its layers are built
 * with a memo map of their own, or they would be this server's, already built.
 */
class SourceServer extends Context.Service<SourceServer, Context.Context<never>>()("test/SourceServer") {}
const SourceServerLive = Layer.effect(SourceServer, Effect.gen(function*() {
  return yield* Layer.buildWithMemoMap(TestServer.layer(), yield* Layer.makeMemoMap, yield* Effect.scope)
}))

/** No row, no repository directory and no staging leftovers for `owner/name` on this server. */
const nothingLeft = (auth: TestServer.Auth, owner: string, name: string) =>
  Effect.gen(function*() {
    assert.strictEqual((yield* request("GET", `/api/v1/repos/${owner}/${name}`, { auth })).status, 404)
    assert.isFalse(existsSync(yield* bareRepositoryPath(owner, name)))
    const config = yield* KilnConfig
    const staging = join(config.dataDir, "repositories", ".staging")
    assert.deepStrictEqual(existsSync(staging) ? readdirSync(staging) : [], [])
  })

const Servers = Layer.merge(TestServer.layer({ migrationsAllowLocal: true }), SourceServerLive)

layer(Servers, { timeout: "300 seconds" })("migration from another Kiln server", (it) => {
  it.effect("clones public and private repositories with every branch and tag, and refuses wrong credentials", () =>
    Effect.scoped(Effect.gen(function*() {
      const source = yield* SourceServer
      const onSource = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, source)
      const sourceBase = yield* onSource(baseUrl)
      const ada = yield* onSource(createUser("ada"))
      for (const [name, isPrivate] of [["open", false], ["closed", true]] as const) {
        const created = yield* onSource(request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name, private: isPrivate } }))
        assert.strictEqual(created.status, 201, created.text)
      }
      const client = yield* makeGitClient
      const work = yield* history(client)
      const adaCredentials = { username: "ada", password: ada.password }
      for (const name of ["open", "closed"]) {
        yield* client.git(["push", "-q", cloneUrl(sourceBase, "ada", name, adaCredentials), "main", "feature/x", "v1", "v2"], { cwd: work })
      }
      const sourceRefs = yield* onSource(Effect.flatMap(bareRepositoryPath("ada", "open"), client.refs))
      assert.deepStrictEqual([...sourceRefs.keys()].sort(), ["refs/heads/feature/x", "refs/heads/main", "refs/tags/v1", "refs/tags/v2"])
      const token = yield* onSource(createToken(ada.auth, "ada", "migration", ["read:repository"]))

      const bo = yield* createUser("bo")
      const migrate = (json: Record<string, unknown>) => request("POST", "/api/v1/repos/migrate", { auth: bo.auth, json })
      const sameRefs = (name: string) =>
        Effect.gen(function*() {
          const copied = yield* client.refs(yield* bareRepositoryPath("bo", name))
          assert.deepStrictEqual(Object.fromEntries(copied), Object.fromEntries(sourceRefs), name)
        })

      // Public: no credentials needed; user information in the address is neither used nor kept.
      const openUrl = `${sourceBase}/ada/open.git`
      const open = yield* migrate({ clone_addr: openUrl.replace("http://", "http://someone:hunter2@"), repo_name: "open-copy" })
      assert.strictEqual(open.status, 201, open.text)
      assert.deepStrictEqual([at(open.body, "original_url"), at(open.body, "private"), at(open.body, "empty")], [openUrl, false, false])
      assert.notInclude(open.text, "hunter2")
      yield* sameRefs("open-copy")
      const shown = yield* request("GET", "/api/v1/repos/bo/open-copy")
      assert.strictEqual(at(shown.body, "original_url"), openUrl)

      // Private, with a token of the source server, then with the account's password.
      const closedUrl = `${sourceBase}/ada/closed.git`
      const withToken = yield* migrate({ clone_addr: closedUrl, repo_name: "by-token", auth_token: token, private: true })
      assert.strictEqual(withToken.status, 201, withToken.text)
      assert.deepStrictEqual([at(withToken.body, "original_url"), at(withToken.body, "private")], [closedUrl, true])
      yield* sameRefs("by-token")
      const withPassword = yield* migrate({ clone_addr: closedUrl, repo_name: "by-password", auth_username: "ada", auth_password: ada.password })
      assert.strictEqual(withPassword.status, 201, withPassword.text)
      yield* sameRefs("by-password")
      for (const [name, secret] of [["by-token", token], ["by-password", ada.password]] as const) {
        const config = yield* client.git(["--git-dir", yield* bareRepositoryPath("bo", name), "config", "--list"])
        assert.notInclude(config, secret, name)
        const listed = yield* request("GET", `/api/v1/repos/bo/${name}`, { auth: bo.auth })
        assert.notInclude(listed.text, secret, name)
      }

      // Wrong or missing credentials: 422, and nothing is left behind.
      const refusals: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
        ["wrong-password", { auth_username: "ada", auth_password: "not-the-password" }],
        ["wrong-token", { auth_token: "0123456789abcdef0123456789abcdef01234567" }],
        ["no-credentials", {}]
      ]
      for (const [name, credentials] of refusals) {
        const refused = yield* migrate({ clone_addr: closedUrl, repo_name: name, ...credentials })
        assert.strictEqual(refused.status, 422, `${name}: ${refused.text}`)
        assert.match(String(at(refused.body, "message")), /^Authentication failed: /, name)
        assert.notInclude(refused.text, "not-the-password")
        yield* nothingLeft(bo.auth, "bo", name)
      }
    })))
})
