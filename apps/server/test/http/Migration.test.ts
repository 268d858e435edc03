import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { startGitHttpBackend } from "../../../../packages/git/test/GitHttpBackend.ts"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { bareRepositoryPath, git, seedRepository } from "./ArchiveFixtures.ts"
import { admin, at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`

const refsOf = (gitdir: string) =>
  Effect.map(git(["--git-dir", gitdir, "for-each-ref", "--format=%(refname) %(objectname)"]), (out) => out.toString())

/** No row and no directory (staging included) is left for `owner/name`. */
const nothingLeft = (auth: TestServer.Auth, owner: string, name: string) =>
  Effect.gen(function*() {
    assert.strictEqual((yield* request("GET", `/api/v1/repos/${owner}/${name}`, { auth })).status, 404)
    assert.isFalse(existsSync(yield* bareRepositoryPath(owner, name)))
    const config = yield* KilnConfig
    const staging = join(config.dataDir, "repositories", ".staging")
    assert.deepStrictEqual(existsSync(staging) ? readdirSync(staging) : [], [])
  })

describe("migrations", () => {
  layer(TestServer.layer({ migrationsAllowLocal: true }), { timeout: "180 seconds" })("with local networks allowed", (it) => {
    it.effect("migrates from a git http-backend with credentials: all branches and tags, private, description, mirror", () =>
      Effect.gen(function*() {
        const ada = yield* createUser("ada")
        const source = yield* seedRepository(ada.auth, "ada", "source")
        const bare = yield* bareRepositoryPath("ada", "source")
        const backend = yield* Effect.promise(() => startGitHttpBackend(join(bare, ".."), { username: "u", password: "pw" }))
        yield* Effect.addFinalizer(() => Effect.promise(backend.close))
        const migrated = yield* request("POST", "/api/v1/repos/migrate", {
          auth: ada.auth,
          json: {
            clone_addr: `${backend.url}/source.git`,
            repo_name: "copy",
            auth_username: "u",
            auth_password: "pw",
            private: true,
            mirror: true,
            description: "migrated"
          }
        })
        assert.strictEqual(migrated.status, 201, migrated.text)
        assert.strictEqual(at(migrated.body, "full_name"), "ada/copy")
        assert.strictEqual(at(migrated.body, "private"), true)
        assert.strictEqual(at(migrated.body, "mirror"), true)
        // Forgejo shows a pull mirror's interval, its default without `mirror_interval` (issue 27).
        assert.strictEqual(at(migrated.body, "mirror_interval"), "8h0m0s")
        assert.strictEqual(at(migrated.body, "description"), "migrated")
        assert.strictEqual(at(migrated.body, "default_branch"), "main")
        assert.strictEqual(at(migrated.body, "empty"), false)
        assert.deepStrictEqual(at(migrated.body, "permissions"), { admin: true, push: true, pull: true })
        const copy = yield* bareRepositoryPath("ada", "copy")
        const copied = yield* refsOf(copy)
        assert.include(copied, `refs/heads/main ${source.main}`)
        assert.include(copied, `refs/heads/feature/one ${source.feature}`)
        assert.include(copied, "refs/tags/v1.0 ")
        const config = (yield* git(["--git-dir", copy, "config", "--list"])).toString()
        assert.notInclude(config, "pw")

        const wrong = yield* request("POST", "/api/v1/repos/migrate", {
          auth: ada.auth,
          json: { clone_addr: `${backend.url}/source.git`, repo_name: "wrong", auth_username: "u", auth_password: "nope" }
        })
        assert.strictEqual(wrong.status, 422)
        assert.match(String(at(wrong.body, "message")), /^Authentication failed: /)
        assert.notInclude(wrong.text, "nope")
        yield* nothingLeft(ada.auth, "ada", "wrong")

        const unreachable = yield* request("POST", "/api/v1/repos/migrate", {
          auth: ada.auth,
          json: { clone_addr: "http://127.0.0.1:9/none.git", repo_name: "unreachable" }
        })
        assert.strictEqual(unreachable.status, 422)
        assert.match(String(at(unreachable.body, "message")), /^Migration failed: /)
        yield* nothingLeft(ada.auth, "ada", "unreachable")
      }).pipe(Effect.scoped))

    it.effect("migrates into an owned organization, with Forgejo's owner rules and address checks", () =>
      Effect.gen(function*() {
        const bo = yield* createUser("bo")
        const cy = yield* createUser("cy")
        const org = yield* request("POST", "/api/v1/orgs", { auth: bo.auth, json: { username: "bo-org" } })
        assert.strictEqual(org.status, 201)
        yield* seedRepository(bo.auth, "bo", "base")
        const baseDir = yield* bareRepositoryPath("bo", "base")
        const backend = yield* Effect.promise(() => startGitHttpBackend(join(baseDir, "..")))
        yield* Effect.addFinalizer(() => Effect.promise(backend.close))
        const url = `${backend.url}/base.git`
        const intoOrg = yield* request("POST", "/api/v1/repos/migrate", { auth: bo.auth, json: { clone_addr: url, repo_name: "copy", repo_owner: "bo-org" } })
        assert.strictEqual(intoOrg.status, 201, intoOrg.text)
        assert.strictEqual(at(intoOrg.body, "full_name"), "bo-org/copy")
        const taken = yield* request("POST", "/api/v1/repos/migrate", { auth: bo.auth, json: { clone_addr: url, repo_name: "COPY", repo_owner: "bo-org" } })
        assert.deepStrictEqual([taken.status, taken.body], [409, { message: "The repository with the same name already exists.", url: errorUrl }])

        const intoUser = yield* request("POST", "/api/v1/repos/migrate", { auth: cy.auth, json: { clone_addr: url, repo_name: "x", repo_owner: "bo" } })
        assert.deepStrictEqual([intoUser.status, intoUser.body], [403, { message: "Given user is not an organization.", url: errorUrl }])
        const notOwner = yield* request("POST", "/api/v1/repos/migrate", { auth: cy.auth, json: { clone_addr: url, repo_name: "x", repo_owner: "bo-org" } })
        assert.deepStrictEqual([notOwner.status, notOwner.body], [403, { message: "Given user is not owner of organization.", url: errorUrl }])
        const byAdmin = yield* request("POST", "/api/v1/repos/migrate", { auth: admin, json: { clone_addr: url, repo_name: "by-admin", repo_owner: "cy" } })
        assert.strictEqual(byAdmin.status, 201, byAdmin.text)
        const unknown = yield* request("POST", "/api/v1/repos/migrate", { auth: cy.auth, json: { clone_addr: url, repo_name: "x", repo_owner: "ghost" } })
        assert.strictEqual(unknown.status, 422)
        assert.strictEqual((yield* request("POST", "/api/v1/repos/migrate", { json: { clone_addr: url, repo_name: "x" } })).status, 401)
        const local = yield* request("POST", "/api/v1/repos/migrate", { auth: admin, json: { clone_addr: "/tmp", repo_name: "local" } })
        assert.deepStrictEqual([local.status, at(local.body, "message")], [422, "You are not allowed to import local repositories."])
        const ssh = yield* request("POST", "/api/v1/repos/migrate", { auth: cy.auth, json: { clone_addr: "ssh://git@host/x.git", repo_name: "x" } })
        assert.strictEqual(ssh.status, 422)
        const missing = yield* request("POST", "/api/v1/repos/migrate", { auth: cy.auth, json: { repo_name: "x" } })
        assert.deepStrictEqual([missing.status, at(missing.body, "message")], [422, "[CloneAddr]: Required"])
      }).pipe(Effect.scoped))
  })

  layer(TestServer.layer(), { timeout: "180 seconds" })("with the default host policy", (it) => {
    it.effect("refuses loopback, private and unresolvable hosts, leaving nothing", () =>
      Effect.gen(function*() {
        const eve = yield* createUser("eve")
        for (const clone_addr of ["http://127.0.0.1:1/x.git", "https://localhost/x.git", "https://10.0.0.1/user/test_repo.git", "http://[::1]/x", "http://nothing.invalid/x.git"]) {
          const refused = yield* request("POST", "/api/v1/repos/migrate", { auth: eve.auth, json: { clone_addr, repo_name: "refused" } })
          assert.deepStrictEqual([refused.status, refused.body], [422, { message: "You can not import from disallowed hosts.", url: errorUrl }], clone_addr)
        }
        yield* nothingLeft(eve.auth, "eve", "refused")
      }))
  })
})
