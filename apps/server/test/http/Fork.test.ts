import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { addToTeam, createTeam } from "../support/OrgFixtures.ts"
import { bareRepositoryPath, git, seedRepository } from "./ArchiveFixtures.ts"
import { at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`

const headOf = (owner: string, name: string, branch: string) =>
  Effect.flatMap(bareRepositoryPath(owner, name), (bare) =>
    Effect.map(git(["--git-dir", bare, "rev-parse", `refs/heads/${branch}`]), (out) => out.toString().trim()))

layer(TestServer.layer(), { timeout: "180 seconds" })("forks", (it) => {
  it.effect("forks into a user and an organization, lists forks, keeps counts and parents right through deletions", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      const bo = yield* createUser("bo")
      const { work, main } = yield* seedRepository(ada.auth, "ada", "content")
      yield* request("PATCH", "/api/v1/repos/ada/content", { auth: ada.auth, json: { description: "the base" } })

      assert.strictEqual((yield* request("POST", "/api/v1/repos/ada/content/forks", { json: {} })).status, 401)
      const forked = yield* request("POST", "/api/v1/repos/ada/content/forks", { auth: bo.auth, json: {} })
      assert.strictEqual(forked.status, 202, forked.text)
      assert.strictEqual(at(forked.body, "full_name"), "bo/content")
      assert.strictEqual(at(forked.body, "fork"), true)
      assert.strictEqual(at(forked.body, "description"), "the base")
      assert.strictEqual(at(forked.body, "default_branch"), "main")
      assert.strictEqual(at(forked.body, "empty"), false)
      assert.strictEqual(at(forked.body, "private"), false)
      assert.strictEqual(at(forked.body, "has_issues"), false)
      assert.strictEqual(at(forked.body, "has_wiki"), false)
      assert.strictEqual(at(forked.body, "has_pull_requests"), true)
      assert.deepStrictEqual(at(forked.body, "permissions"), { admin: true, push: true, pull: true })
      assert.strictEqual(at(forked.body, "parent", "full_name"), "ada/content")
      assert.strictEqual(at(forked.body, "parent", "parent"), null)
      assert.strictEqual(at(forked.body, "parent", "forks_count"), 1)
      assert.strictEqual(yield* headOf("bo", "content", "main"), main)

      const again = yield* request("POST", "/api/v1/repos/ada/content/forks", { auth: bo.auth, json: { name: "other" } })
      assert.strictEqual(again.status, 409)
      assert.deepStrictEqual(again.body, {
        message: "repository is already forked by user [uname: bo, repo path: ada/content, fork path: bo/content]",
        url: errorUrl
      })

      const org = yield* request("POST", "/api/v1/orgs", { auth: bo.auth, json: { username: "bo-org" } })
      assert.strictEqual(org.status, 201, org.text)
      const intoOrg = yield* request("POST", "/api/v1/repos/ada/content/forks", {
        auth: bo.auth,
        json: { organization: "bo-org", name: "renamed" }
      })
      assert.strictEqual(intoOrg.status, 202, intoOrg.text)
      assert.strictEqual(at(intoOrg.body, "full_name"), "bo-org/renamed")
      const noOrg = yield* request("POST", "/api/v1/repos/ada/content/forks", { auth: bo.auth, json: { organization: "nope" } })
      assert.strictEqual(noOrg.status, 422)
      yield* request("POST", "/api/v1/orgs", { auth: ada.auth, json: { username: "ada-org" } })
      const notMember = yield* request("POST", "/api/v1/repos/ada/content/forks", { auth: bo.auth, json: { organization: "ada-org" } })
      assert.strictEqual(notMember.status, 403)
      assert.strictEqual(at(notMember.body, "message"), "User is no Member of Organisation 'ada-org'")
      // A member of a team that may not create repositories may not fork into the organization either.
      const readers = yield* createTeam(ada.auth, "ada-org", { name: "readers", permission: "read", units: ["repo.code"], can_create_org_repo: false })
      yield* addToTeam(ada.auth, readers, "bo")
      const readOnly = yield* request("POST", "/api/v1/repos/ada/content/forks", { auth: bo.auth, json: { organization: "ada-org", name: "official" } })
      assert.strictEqual(readOnly.status, 403, readOnly.text)
      assert.deepStrictEqual(readOnly.body, { message: "User is not allowed to create repos in Organisation 'ada-org'", url: errorUrl })
      assert.strictEqual((yield* request("GET", "/api/v1/repos/ada-org/official", { auth: ada.auth })).status, 404)

      const listed = yield* request("GET", "/api/v1/repos/ada/content/forks")
      assert.strictEqual(listed.status, 200)
      assert.strictEqual(listed.headers.get("x-total-count"), "2")
      assert.deepStrictEqual((listed.body as ReadonlyArray<unknown>).map((item) => at(item, "full_name")), ["bo/content", "bo-org/renamed"])
      assert.strictEqual(at(yield* request("GET", "/api/v1/repos/ada/content"), "body", "forks_count"), 2)

      // A push to the fork leaves the base alone.
      writeFileSync(join(work, "fork-only.txt"), "fork\n")
      yield* git(["add", "-A"], work)
      yield* git(["commit", "--quiet", "-m", "fork only"], work)
      yield* git(["push", "--quiet", yield* bareRepositoryPath("bo", "content"), "main"], work)
      assert.notStrictEqual(yield* headOf("bo", "content", "main"), main)
      assert.strictEqual(yield* headOf("ada", "content", "main"), main)

      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/bo-org/renamed", { auth: bo.auth })).status, 204)
      assert.strictEqual(at((yield* request("GET", "/api/v1/repos/ada/content")).body, "forks_count"), 1)

      assert.strictEqual((yield* request("DELETE", "/api/v1/repos/ada/content", { auth: ada.auth })).status, 204)
      const orphan = yield* request("GET", "/api/v1/repos/bo/content", { auth: bo.auth })
      assert.strictEqual(orphan.status, 200)
      assert.strictEqual(at(orphan.body, "fork"), false)
      assert.strictEqual(at(orphan.body, "parent"), null)
      yield* git(["--git-dir", yield* bareRepositoryPath("bo", "content"), "fsck", "--strict"])
      const archive = yield* request("GET", "/api/v1/repos/bo/content/archive/main.zip", { auth: bo.auth })
      assert.strictEqual(archive.status, 200)
    }))

  it.effect("forks a private repository privately, for those who can read it", () =>
    Effect.gen(function*() {
      const cy = yield* createUser("cy")
      const dee = yield* createUser("dee")
      const eve = yield* createUser("eve")
      yield* seedRepository(cy.auth, "cy", "secret", { private: true })
      assert.strictEqual((yield* request("POST", "/api/v1/repos/cy/secret/forks", { auth: eve.auth, json: {} })).status, 404)
      yield* request("PUT", "/api/v1/repos/cy/secret/collaborators/dee", { auth: cy.auth, json: { permission: "read" } })
      const forked = yield* request("POST", "/api/v1/repos/cy/secret/forks", { auth: dee.auth, json: {} })
      assert.strictEqual(forked.status, 202, forked.text)
      assert.strictEqual(at(forked.body, "private"), true)
      assert.strictEqual(at(forked.body, "parent", "full_name"), "cy/secret")
      const anonymous = yield* request("GET", "/api/v1/repos/cy/secret/forks")
      assert.strictEqual(anonymous.status, 404)
      // The fork is dee's private repository: its owner sees it, the base's owner does not.
      const byForker = yield* request("GET", "/api/v1/repos/cy/secret/forks", { auth: dee.auth })
      assert.deepStrictEqual([byForker.headers.get("x-total-count"), at(byForker.body, 0, "full_name")], ["1", "dee/secret"])
      const byBaseOwner = yield* request("GET", "/api/v1/repos/cy/secret/forks", { auth: cy.auth })
      assert.deepStrictEqual([byBaseOwner.headers.get("x-total-count"), byBaseOwner.body], ["0", []])
    }))
})
