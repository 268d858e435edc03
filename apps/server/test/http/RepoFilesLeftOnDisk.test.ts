/**
 * A repository directory without a row (left by a crash, or never adopted) holds its name: every
 * route that creates a repository answers Forgejo's 409 `repository files already exist` and
 * leaves the directory exactly as it was, and no row appears.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { bareRepositoryPath } from "./ArchiveFixtures.ts"
import { admin, at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

/** A directory where `owner/name` would go, holding one file; returns the check that it is unchanged. */
const leaveFiles = (owner: string, name: string) =>
  Effect.gen(function*() {
    const path = yield* bareRepositoryPath(owner, name)
    mkdirSync(path, { recursive: true })
    writeFileSync(join(path, "left-by-a-crash"), `${owner}/${name}`)
    return () => {
      assert.deepStrictEqual(readdirSync(path), ["left-by-a-crash"])
      assert.strictEqual(readFileSync(join(path, "left-by-a-crash"), "utf8"), `${owner}/${name}`)
    }
  })

const assertRefused = (response: TestServer.TestResponse, owner: string, name: string, unchanged: () => void) => {
  assert.strictEqual(response.status, 409, response.text)
  assert.deepStrictEqual(response.body, {
    message: `repository files already exist [uname: ${owner}, name: ${name}]`,
    url: `${ROOT_URL}api/swagger`
  })
  unchanged()
}

const noRow = (owner: string, name: string) =>
  Effect.map(request("GET", `/api/v1/repos/${owner}/${name}`, { auth: admin }), (response) => assert.strictEqual(response.status, 404))

layer(TestServer.layer({ migrationsAllowLocalPaths: true }), { timeout: "120 seconds" })("files left on disk without a row", (it) => {
  it.effect("POST /user/repos answers 409 and touches nothing, with or without auto_init", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      const files = yield* leaveFiles("ada", "crashed")
      for (const autoInit of [false, true]) {
        const response = yield* request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name: "crashed", auto_init: autoInit } })
        assertRefused(response, "ada", "crashed", files)
      }
      yield* noRow("ada", "crashed")
      // Another name is still free.
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name: "fine" } })).status, 201)
    }))

  it.effect("POST /orgs/{org}/repos answers 409 and touches nothing", () =>
    Effect.gen(function*() {
      const bo = yield* createUser("bo")
      assert.strictEqual((yield* request("POST", "/api/v1/orgs", { auth: bo.auth, json: { username: "bo-org" } })).status, 201)
      const files = yield* leaveFiles("bo-org", "crashed")
      const response = yield* request("POST", "/api/v1/orgs/bo-org/repos", { auth: bo.auth, json: { name: "crashed" } })
      assertRefused(response, "bo-org", "crashed", files)
      yield* noRow("bo-org", "crashed")
    }))

  it.effect("POST /admin/users/{u}/repos answers 409 and touches nothing (the name as asked, the directory lower-cased)", () =>
    Effect.gen(function*() {
      yield* createUser("cy")
      const files = yield* leaveFiles("cy", "crashed")
      const response = yield* request("POST", "/api/v1/admin/users/cy/repos", { auth: admin, json: { name: "Crashed" } })
      assertRefused(response, "cy", "Crashed", files)
      yield* noRow("cy", "crashed")
    }))

  it.effect("POST /repos/{o}/{r}/forks answers 409 and touches nothing", () =>
    Effect.gen(function*() {
      const di = yield* createUser("di")
      const ed = yield* createUser("ed")
      const base = yield* request("POST", "/api/v1/user/repos", { auth: di.auth, json: { name: "base", auto_init: true } })
      assert.strictEqual(base.status, 201, base.text)
      const files = yield* leaveFiles("ed", "base")
      const response = yield* request("POST", "/api/v1/repos/di/base/forks", { auth: ed.auth, json: {} })
      assertRefused(response, "ed", "base", files)
      yield* noRow("ed", "base")
      // Under another name the fork goes ahead.
      const renamed = yield* request("POST", "/api/v1/repos/di/base/forks", { auth: ed.auth, json: { name: "base-copy" } })
      assert.strictEqual(renamed.status, 202, renamed.text)
      assert.strictEqual(at(renamed.body, "full_name"), "ed/base-copy")
    }))

  it.effect("POST /repos/migrate answers 409 before cloning and touches nothing", () =>
    Effect.gen(function*() {
      const source = yield* request("POST", "/api/v1/admin/users/root/repos", { auth: admin, json: { name: "source", auto_init: true } })
      assert.strictEqual(source.status, 201, source.text)
      const files = yield* leaveFiles("root", "copy")
      const response = yield* request("POST", "/api/v1/repos/migrate", {
        auth: admin,
        json: { clone_addr: yield* bareRepositoryPath("root", "source"), repo_name: "copy" }
      })
      assertRefused(response, "root", "copy", files)
      yield* noRow("root", "copy")
    }))
})
