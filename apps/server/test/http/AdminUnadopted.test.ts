/**
 * Unadopted repositories over HTTP: directories without a row are listed (owners that exist,
 * usable lower-case names; work directories and tombstones never), adopted as private repositories
 * whose default branch, emptiness, size and branches come from git, or deleted; site admins only.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import { TestClock } from "effect/testing"
import { repositoryDirectoryKey, WriteLocks } from "@kiln/domain/coordination/WriteLocks"
import { newRepository } from "@kiln/domain/repo/Repository"
import { RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { bareRepositoryPath, git } from "./ArchiveFixtures.ts"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { admin, at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const notFoundBody = { message: "The target couldn't be found.", url: `${ROOT_URL}api/swagger`, errors: [] }

const repositoriesRoot = Effect.map(Effect.service(KilnConfig), (config) => join(config.dataDir, "repositories"))

/** A bare copy of `from` at `owner/name`'s place, with no row. */
const copyWithoutRow = (from: string, owner: string, name: string) =>
  Effect.gen(function*() {
    const target = join(yield* repositoriesRoot, owner, `${name}.git`)
    yield* git(["clone", "--quiet", "--bare", from, target])
    return target
  })

const branchNames = (body: unknown) => (Array.isArray(body) ? body.map((branch) => at(branch, "name")) : [])

layer(TestServer.layer(), { timeout: "120 seconds" })("unadopted repositories", (it) => {
  it.effect("are listed, paged and filtered; adopted with git's branches; deleted; admins only", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      assert.strictEqual((yield* request("POST", "/api/v1/orgs", { auth: ada.auth, json: { username: "ada-org" } })).status, 201)
      const base = yield* request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name: "base", auto_init: true } })
      assert.strictEqual(base.status, 201, base.text)
      const basePath = yield* bareRepositoryPath("ada", "base")
      const root = yield* repositoriesRoot

      // ada/lost: HEAD on main, plus a branch.
      const lost = yield* copyWithoutRow(basePath, "ada", "lost")
      yield* git(["--git-dir", lost, "branch", "feature", "main"])
      // ada/moved: HEAD names a branch that is gone; master and feature exist.
      const moved = yield* copyWithoutRow(basePath, "ada", "moved")
      yield* git(["--git-dir", moved, "branch", "-m", "main", "master"])
      yield* git(["--git-dir", moved, "branch", "feature", "master"])
      yield* git(["--git-dir", moved, "symbolic-ref", "HEAD", "refs/heads/gone"])
      // ada-org/void: no branches at all.
      yield* git(["init", "--quiet", "--bare", "--initial-branch=trunk", join(root, "ada-org", "void.git")])
      // Never listed: an unknown owner, an upper-case name, a tombstone, a creation's work directory.
      for (const path of ["ghost/x.git", "ada/Upper.git", "ada/base.deleted-7.git.git", "ada/half.git.tmp-0a1b2c"]) {
        mkdirSync(join(root, path), { recursive: true })
      }

      const all = yield* request("GET", "/api/v1/admin/unadopted", { auth: admin })
      assert.strictEqual(all.status, 200, all.text)
      // In directory order, as Forgejo walks them.
      assert.deepStrictEqual(all.body, ["ada/lost", "ada/moved", "ada-org/void"])
      assert.strictEqual(all.headers.get("x-total-count"), "3")
      const second = yield* request("GET", "/api/v1/admin/unadopted?limit=1&page=2", { auth: admin })
      assert.deepStrictEqual(second.body, ["ada/moved"])
      assert.strictEqual(second.headers.get("x-total-count"), "3")
      assert.deepStrictEqual((yield* request("GET", "/api/v1/admin/unadopted?pattern=ada/m*", { auth: admin })).body, ["ada/moved"])
      const orgs = yield* request("GET", "/api/v1/admin/unadopted?pattern=ada-*", { auth: admin })
      assert.deepStrictEqual(orgs.body, ["ada-org/void"], orgs.text)
      assert.deepStrictEqual((yield* request("GET", "/api/v1/admin/unadopted?query=*/{lost,void}", { auth: admin })).body, [
        "ada/lost",
        "ada-org/void"
      ])
      // A pattern past 256 characters is refused (matching costs pattern × name).
      const long = yield* request("GET", `/api/v1/admin/unadopted?pattern=${"*a".repeat(129)}`, { auth: admin })
      assert.strictEqual(long.status, 422, long.text)
      assert.strictEqual((yield* request("GET", `/api/v1/admin/unadopted?query=${"*a".repeat(128)}`, { auth: admin })).status, 200)
      const none = yield* request("GET", "/api/v1/admin/unadopted?pattern=nobody", { auth: admin })
      assert.deepStrictEqual(none.body, [])
      assert.strictEqual(none.headers.get("x-total-count"), "0")

      // Site administrators only, before anything else is looked at.
      assert.strictEqual((yield* request("GET", "/api/v1/admin/unadopted")).status, 401)
      assert.strictEqual((yield* request("GET", "/api/v1/admin/unadopted", { auth: ada.auth })).status, 403)
      assert.strictEqual((yield* request("POST", "/api/v1/admin/unadopted/ada/lost", { auth: ada.auth })).status, 403)
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/unadopted/ada/lost", { auth: ada.auth })).status, 403)
      assert.isTrue(existsSync(lost))

      // Adoption: a private repository whose HEAD branch is the default.
      const adopted = yield* request("POST", "/api/v1/admin/unadopted/ada/lost", { auth: admin })
      assert.strictEqual(adopted.status, 204, adopted.text)
      assert.strictEqual(adopted.text, "")
      const lostJson = yield* request("GET", "/api/v1/repos/ada/lost", { auth: ada.auth })
      assert.strictEqual(lostJson.status, 200, lostJson.text)
      assert.strictEqual(at(lostJson.body, "private"), true)
      assert.strictEqual(at(lostJson.body, "empty"), false)
      assert.strictEqual(at(lostJson.body, "default_branch"), "main")
      assert.isAbove(Number(at(lostJson.body, "size")), 0)
      const lostBranches = yield* request("GET", "/api/v1/repos/ada/lost/branches", { auth: ada.auth })
      assert.deepStrictEqual(branchNames(lostBranches.body), ["feature", "main"])
      assert.deepStrictEqual((yield* request("GET", "/api/v1/admin/unadopted", { auth: admin })).body, ["ada/moved", "ada-org/void"])
      // Now it has a row: neither adopted again nor deleted as unadopted.
      assert.deepStrictEqual((yield* request("POST", "/api/v1/admin/unadopted/ada/lost", { auth: admin })).body, notFoundBody)
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/unadopted/ada/lost", { auth: admin })).status, 404)
      assert.isTrue(existsSync(lost))

      // HEAD naming a missing branch: master wins (the instance default `main` is absent), HEAD follows.
      assert.strictEqual((yield* request("POST", "/api/v1/admin/unadopted/ada/moved", { auth: admin })).status, 204)
      const movedJson = yield* request("GET", "/api/v1/repos/ada/moved", { auth: admin })
      assert.strictEqual(at(movedJson.body, "default_branch"), "master")
      assert.strictEqual(readFileSync(join(moved, "HEAD"), "utf8"), "ref: refs/heads/master\n")

      // No branches: an empty repository on the instance default.
      assert.strictEqual((yield* request("POST", "/api/v1/admin/unadopted/ada-org/void", { auth: admin })).status, 204)
      const voidJson = yield* request("GET", "/api/v1/repos/ada-org/void", { auth: admin })
      assert.strictEqual(at(voidJson.body, "empty"), true)
      assert.strictEqual(at(voidJson.body, "default_branch"), "main")
      assert.strictEqual(at(voidJson.body, "private"), true)

      // Nothing to adopt: unknown owner, no directory, unusable or unstorable names.
      for (const path of ["ghost/x", "ada/nothing", "ada/base.deleted-7.git", "ada/a%20b", "nobody/lost"]) {
        const response = yield* request("POST", `/api/v1/admin/unadopted/${path}`, { auth: admin })
        assert.strictEqual(response.status, 404, `${path}: ${response.text}`)
        assert.deepStrictEqual(response.body, notFoundBody)
      }
      assert.isTrue(existsSync(join(root, "ada", "base.deleted-7.git.git")))

      // Deletion removes the directory and nothing else.
      const doomed = yield* copyWithoutRow(basePath, "ada", "doomed")
      assert.deepStrictEqual((yield* request("GET", "/api/v1/admin/unadopted", { auth: admin })).body, ["ada/doomed"])
      const deleted = yield* request("DELETE", "/api/v1/admin/unadopted/ada/doomed", { auth: admin })
      assert.strictEqual(deleted.status, 204, deleted.text)
      assert.isFalse(existsSync(doomed))
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/unadopted/ada/doomed", { auth: admin })).status, 404)
      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/unadopted/ada/base", { auth: admin })).status, 404)
      assert.isTrue(existsSync(basePath))
      assert.deepStrictEqual((yield* request("GET", "/api/v1/admin/unadopted", { auth: admin })).body, [])
      // An adopted directory's name is free again once deleted through the usual route.
      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/ada/lost", { auth: ada.auth })).status, 204)
      assert.isFalse(existsSync(lost))
    }))

  it.effect("are described in the served Swagger document", () =>
    Effect.gen(function*() {
      const document = yield* request("GET", "/swagger.v1.json")
      assert.strictEqual(document.status, 200)
      assert.strictEqual(at(document.body, "paths", "/admin/unadopted", "get", "operationId"), "adminUnadoptedList")
      assert.strictEqual(at(document.body, "paths", "/admin/unadopted/{owner}/{repo}", "post", "operationId"), "adminAdoptRepository")
      assert.strictEqual(at(document.body, "paths", "/admin/unadopted/{owner}/{repo}", "delete", "operationId"), "adminDeleteUnadoptedRepository")
      const parameters = at(document.body, "paths", "/admin/unadopted", "get", "parameters")
      assert.includeMembers(Array.isArray(parameters) ? parameters.map((parameter) => at(parameter, "name")) : [], ["page", "limit", "pattern"])
    }))

  it.effect("deleting one waits for a creation holding its directory, and then finds it adopted by the new row (review 4b30e64, finding 32)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("racer")
      const base = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "base", auto_init: true } })
      assert.strictEqual(base.status, 201, base.text)
      const directory = yield* copyWithoutRow(yield* bareRepositoryPath("racer", "base"), "racer", "racing")
      const locks = yield* WriteLocks
      const store = yield* RepositoryStore
      const holding = yield* Deferred.make<void>()
      const commit = yield* Deferred.make<void>()
      // What a creation, fork, migration or rename does: its directory is in place, its row not yet committed.
      const creation = yield* Effect.forkChild(locks.withLock(
        repositoryDirectoryKey({ owner: "racer", name: "racing" }),
        Effect.gen(function*() {
          yield* Deferred.succeed(holding, undefined)
          yield* Deferred.await(commit)
          yield* store.insert(newRepository({
            ownerId: Number(at(owner.user, "id")),
            name: "racing",
            description: "",
            defaultBranch: "main",
            wikiBranch: "main",
            isPrivate: false,
            isEmpty: false
          }, 1))
        })
      ))
      yield* Deferred.await(holding)
      const deletion = yield* Effect.forkChild(request("DELETE", "/api/v1/admin/unadopted/racer/racing", { auth: admin }))
      // Given time to run, the deletion has not: it waits for the directory's key.
      yield* TestClock.withLive(Effect.sleep("500 millis"))
      assert.isTrue(existsSync(directory), "not deleted while its creation is in progress")
      yield* Deferred.succeed(commit, undefined)
      yield* Fiber.join(creation)
      const answer = yield* Fiber.join(deletion)
      assert.strictEqual(answer.status, 404, answer.text)
      assert.isTrue(existsSync(join(directory, "HEAD")), "the created repository keeps its files")
    }))
})
