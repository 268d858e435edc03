/**
 * Deleting an account that owns packages, as Forgejo (ErrUserOwnPackages): refused for users and
 * organizations unless purged; a purge deletes the packages and erases the blob files no other
 * owner's package shares, once the deletion has committed.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { createOrg } from "../support/OrgFixtures.ts"
import { admin, at, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const settings = TestServer.testSettings()

const blobFile = (content: string) => {
  const sha256 = createHash("sha256").update(content).digest("hex")
  return join(settings.dataDir, "packages", sha256.slice(0, 2), sha256.slice(2, 4), sha256)
}

const upload = (auth: TestServer.Auth, path: string, content: string) =>
  Effect.map(
    request("PUT", `/api/packages/${path}`, { auth, body: content, contentType: "application/octet-stream" }),
    (response) => assert.strictEqual(response.status, 201, response.text)
  )

layer(TestServer.layer(settings), { timeout: "120 seconds" })("deleting an owner of packages", (it) => {
  it.effect("refuses a user unless purged; the purge erases the blobs only that user had", () =>
    Effect.gen(function*() {
      const packer = yield* createUser("packer")
      const neighbour = yield* createUser("neighbour")
      yield* upload(packer.auth, "packer/generic/tool/1.0.0/tool.bin", "only packer's bytes")
      yield* upload(packer.auth, "packer/generic/tool/1.1.0/shared.bin", "bytes both have")
      yield* upload(neighbour.auth, "neighbour/generic/other/2.0.0/shared.bin", "bytes both have")
      assert.isTrue(existsSync(blobFile("only packer's bytes")))

      const refused = yield* request("DELETE", "/api/v1/admin/users/packer", { auth: admin })
      assert.strictEqual(refused.status, 422)
      assert.strictEqual(at(refused.body, "message"), `user still has ownership of packages [uid: ${String(at(packer.user, "id"))}]`)
      // Refused: nothing changed.
      const kept = yield* request("GET", "/api/packages/packer/generic/tool/1.0.0/tool.bin", { auth: packer.auth })
      assert.strictEqual(kept.status, 200)
      assert.strictEqual(kept.text, "only packer's bytes")

      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/users/packer?purge=true", { auth: admin })).status, 204)
      assert.strictEqual((yield* request("GET", "/api/v1/users/packer", { auth: admin })).status, 404)
      assert.isFalse(existsSync(blobFile("only packer's bytes")))
      assert.isTrue(existsSync(blobFile("bytes both have")))
      const shared = yield* request("GET", "/api/packages/neighbour/generic/other/2.0.0/shared.bin", { auth: neighbour.auth })
      assert.strictEqual(shared.status, 200)
      assert.strictEqual(shared.text, "bytes both have")
    }))

  it.effect("checks repositories and organizations before packages, as Forgejo", () =>
    Effect.gen(function*() {
      const joiner = yield* createUser("joiner")
      yield* upload(joiner.auth, "joiner/generic/kit/1.0.0/kit.bin", "joiner's kit")
      const founder = yield* createUser("founder")
      yield* createOrg(founder.auth, "joined-org")
      const teams = yield* request("GET", "/api/v1/orgs/joined-org/teams", { auth: founder.auth })
      const owners = (teams.body as ReadonlyArray<unknown>).find((team) => at(team, "name") === "Owners")
      assert.strictEqual((yield* request("PUT", `/api/v1/teams/${String(at(owners, "id"))}/members/joiner`, { auth: founder.auth })).status, 204)

      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: joiner.auth, json: { name: "kept" } })).status, 201)
      const uid = String(at(joiner.user, "id"))

      const first = yield* request("DELETE", "/api/v1/admin/users/joiner", { auth: admin })
      assert.strictEqual(first.status, 422)
      assert.strictEqual(at(first.body, "message"), `user still has ownership of repositories [uid: ${uid}]`)
      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/joiner/kept", { auth: joiner.auth })).status, 204)
      const second = yield* request("DELETE", "/api/v1/admin/users/joiner", { auth: admin })
      assert.strictEqual(second.status, 422)
      assert.strictEqual(at(second.body, "message"), `user still has membership of organizations [uid: ${uid}]`)
      assert.strictEqual((yield* request("DELETE", "/api/v1/orgs/joined-org/members/joiner", { auth: founder.auth })).status, 204)
      const third = yield* request("DELETE", "/api/v1/admin/users/joiner", { auth: admin })
      assert.strictEqual(third.status, 422)
      assert.strictEqual(at(third.body, "message"), `user still has ownership of packages [uid: ${uid}]`)
    }))

  it.effect("refuses an organization that owns packages until they are deleted", () =>
    Effect.gen(function*() {
      const boss = yield* createUser("boss")
      const organization = yield* createOrg(boss.auth, "packaging-org")
      yield* upload(boss.auth, "packaging-org/generic/lib/3.0.0/lib.bin", "the org's library")

      const refused = yield* request("DELETE", "/api/v1/orgs/packaging-org", { auth: boss.auth })
      assert.strictEqual(refused.status, 422)
      assert.strictEqual(at(refused.body, "message"), `user still has ownership of packages [uid: ${String(at(organization, "id"))}]`)
      assert.isTrue(existsSync(blobFile("the org's library")))

      assert.strictEqual((yield* request("DELETE", "/api/packages/packaging-org/generic/lib/3.0.0", { auth: boss.auth })).status, 204)
      assert.strictEqual((yield* request("DELETE", "/api/v1/orgs/packaging-org", { auth: boss.auth })).status, 204)
      assert.strictEqual((yield* request("GET", "/api/v1/orgs/packaging-org", { auth: boss.auth })).status, 404)
    }))
})
