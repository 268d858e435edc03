import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { createOrg } from "../support/OrgFixtures.ts"
import { admin, at, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const settings = TestServer.testSettings()

layer(TestServer.layer(settings), { timeout: "120 seconds" })("deleting users", (it) => {
  it.effect("refuses owners of repositories and organization members unless purged, then purges both", () =>
    Effect.gen(function*() {
      const olga = yield* createUser("olga")
      const repo = yield* request("POST", "/api/v1/user/repos", { auth: olga.auth, json: { name: "keepsake", auto_init: true } })
      assert.strictEqual(repo.status, 201)
      const directory = join(settings.dataDir, "repositories", "olga", "keepsake.git")
      assert.isTrue(existsSync(directory))
      const colleague = yield* createUser("colleague")
      yield* createOrg(colleague.auth, "shared-org")
      const owners = yield* request("GET", "/api/v1/orgs/shared-org/teams", { auth: colleague.auth })
      const ownersId = at((owners.body as Array<unknown>).find((team) => at(team, "name") === "Owners"), "id")
      assert.strictEqual((yield* request("PUT", `/api/v1/teams/${String(ownersId)}/members/olga`, { auth: colleague.auth })).status, 204)

      const refused = yield* request("DELETE", "/api/v1/admin/users/olga", { auth: admin })
      assert.strictEqual(refused.status, 422)
      assert.match(String(at(refused.body, "message")), /^user still has ownership of repositories \[uid: \d+\]$/)

      const purged = yield* request("DELETE", "/api/v1/admin/users/olga?purge=true", { auth: admin })
      assert.strictEqual(purged.status, 204)
      assert.isFalse(existsSync(directory))
      assert.strictEqual((yield* request("GET", "/api/v1/users/olga")).status, 404)
      assert.strictEqual((yield* request("GET", "/api/v1/orgs/shared-org/members/olga", { auth: colleague.auth })).status, 404)
    }))

  it.effect("refuses to purge the last owner of an organization", () =>
    Effect.gen(function*() {
      const solo = yield* createUser("solo")
      yield* createOrg(solo.auth, "solo-org")
      const refused = yield* request("DELETE", "/api/v1/admin/users/solo?purge=true", { auth: admin })
      assert.strictEqual(refused.status, 422)
      assert.strictEqual((yield* request("GET", "/api/v1/users/solo")).status, 200)
    }))
})
