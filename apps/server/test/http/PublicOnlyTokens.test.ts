/**
 * Review finding 10: a token with the `public-only` scope reaches public resources only, on every
 * route: 403 with the category's text for a repository, organization, user or package owner that
 * is not public; lists leave out what is not public. The same calls with the account's password
 * show what the token is refused, so each refusal is the scope's doing.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createOrg, createTeam, logins, names, ownersTeamId } from "../support/OrgFixtures.ts"
import { at, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const refused = (what: string) => ({ message: `token scope is limited to public ${what}`, url: errorUrl })
const SCOPES = ["public-only", "write:repository", "write:organization", "write:user", "write:package"]

layer(TestServer.layer(), { timeout: "180 seconds" })("public-only tokens", (it) => {
  it.effect("are refused what is not public on every route, and see only public items in lists", () =>
    Effect.gen(function*() {
      const po = yield* createUser("po")
      const token = { token: yield* createToken(po.auth, "po", "public", SCOPES) }
      const base = yield* createUser("base")
      const lim = yield* createUser("lim", { visibility: "limited" })

      // GET /repositories/{id}
      yield* request("POST", "/api/v1/user/repos", { auth: po.auth, json: { name: "secret", private: true } })
      yield* request("POST", "/api/v1/user/repos", { auth: po.auth, json: { name: "open" } })
      const secretId = at((yield* request("GET", "/api/v1/repos/po/secret", { auth: po.auth })).body, "id")
      const openId = at((yield* request("GET", "/api/v1/repos/po/open", { auth: po.auth })).body, "id")
      assert.strictEqual((yield* request("GET", `/api/v1/repositories/${secretId}`, { auth: po.auth })).status, 200)
      const byId = yield* request("GET", `/api/v1/repositories/${secretId}`, { auth: token })
      assert.strictEqual(byId.status, 403)
      assert.deepStrictEqual(byId.body, refused("repos"))
      assert.strictEqual((yield* request("GET", `/api/v1/repositories/${openId}`, { auth: token })).status, 200)

      // /teams/{id}/** of a private organization
      yield* createOrg(po.auth, "hidden-org", { visibility: "private" })
      const hiddenTeam = yield* createTeam(po.auth, "hidden-org", { name: "devs", permission: "write", units: ["repo.code"] })
      assert.strictEqual((yield* request("GET", `/api/v1/teams/${hiddenTeam}`, { auth: po.auth })).status, 200)
      for (const [method, path] of [
        ["GET", `/api/v1/teams/${hiddenTeam}`],
        ["GET", `/api/v1/teams/${hiddenTeam}/repos`],
        ["GET", `/api/v1/teams/${hiddenTeam}/members`],
        ["PUT", `/api/v1/teams/${hiddenTeam}/members/base`],
        ["PATCH", `/api/v1/teams/${hiddenTeam}`]
      ] as const) {
        const response = yield* request(method, path, { auth: token, ...(method === "PATCH" ? { json: { name: "renamed" } } : {}) })
        assert.strictEqual(response.status, 403, `${method} ${path}`)
        assert.deepStrictEqual(response.body, refused("orgs"), `${method} ${path}`)
      }
      const members = yield* request("GET", `/api/v1/teams/${hiddenTeam}/members`, { auth: po.auth })
      assert.deepStrictEqual(logins(members.body), [])

      // /teams/{id}/repos of a public organization: its private repositories stay out of reach
      yield* createOrg(po.auth, "open-org")
      yield* request("POST", "/api/v1/orgs/open-org/repos", { auth: po.auth, json: { name: "internal", private: true } })
      yield* request("POST", "/api/v1/orgs/open-org/repos", { auth: po.auth, json: { name: "pub" } })
      const owners = yield* ownersTeamId(po.auth, "open-org")
      assert.deepStrictEqual(names((yield* request("GET", `/api/v1/teams/${owners}/repos`, { auth: po.auth })).body), ["internal", "pub"])
      assert.deepStrictEqual(names((yield* request("GET", `/api/v1/teams/${owners}/repos`, { auth: token })).body), ["pub"])
      const picked = yield* createTeam(po.auth, "open-org", {
        name: "picked",
        permission: "read",
        units: ["repo.code"],
        includes_all_repositories: false
      })
      for (const repo of ["internal", "pub"]) {
        assert.strictEqual((yield* request("PUT", `/api/v1/teams/${picked}/repos/open-org/${repo}`, { auth: po.auth })).status, 204)
      }
      assert.deepStrictEqual(names((yield* request("GET", `/api/v1/teams/${picked}/repos`, { auth: token })).body), ["pub"])
      const teamRepo = yield* request("GET", `/api/v1/teams/${picked}/repos/open-org/internal`, { auth: token })
      assert.strictEqual(teamRepo.status, 403)
      assert.deepStrictEqual(teamRepo.body, refused("repos"))
      assert.strictEqual((yield* request("DELETE", `/api/v1/teams/${picked}/repos/open-org/internal`, { auth: token })).status, 403)
      assert.strictEqual((yield* request("GET", `/api/v1/teams/${picked}/repos/open-org/internal`, { auth: po.auth })).status, 200)

      // /orgs/{org}/repos and the deprecated /org/{org}/repos of a private organization
      assert.strictEqual((yield* request("GET", "/api/v1/orgs/hidden-org/repos", { auth: po.auth })).status, 200)
      for (const [method, path] of [
        ["GET", "/api/v1/orgs/hidden-org/repos"],
        ["POST", "/api/v1/orgs/hidden-org/repos"],
        ["POST", "/api/v1/org/hidden-org/repos"]
      ] as const) {
        const response = yield* request(method, path, { auth: token, ...(method === "POST" ? { json: { name: "squat" } } : {}) })
        assert.strictEqual(response.status, 403, `${method} ${path}`)
        assert.deepStrictEqual(response.body, refused("orgs"), `${method} ${path}`)
      }
      assert.strictEqual((yield* request("GET", "/api/v1/repos/hidden-org/squat", { auth: po.auth })).status, 404)

      // GET /repos/{o}/{r}/forks: a fork in the private organization is not public
      yield* request("POST", "/api/v1/user/repos", { auth: base.auth, json: { name: "lib" } })
      const fork = yield* request("POST", "/api/v1/repos/base/lib/forks", { auth: po.auth, json: { organization: "hidden-org" } })
      assert.strictEqual(fork.status, 202, fork.text)
      assert.deepStrictEqual(names((yield* request("GET", "/api/v1/repos/base/lib/forks", { auth: po.auth })).body), ["lib"])
      const forks = yield* request("GET", "/api/v1/repos/base/lib/forks", { auth: token })
      assert.deepStrictEqual(forks.body, [])
      assert.strictEqual(forks.headers.get("x-total-count"), "0")

      // /users/{u}, /users/{u}/keys, /users/{u}/repos, /users/search for a limited user
      for (const path of ["/api/v1/users/lim", "/api/v1/users/lim/keys", "/api/v1/users/lim/repos"]) {
        assert.strictEqual((yield* request("GET", path, { auth: po.auth })).status, 200, path)
        const response = yield* request("GET", path, { auth: token })
        assert.strictEqual(response.status, 403, path)
        assert.deepStrictEqual(response.body, refused("users"), path)
      }
      assert.strictEqual((yield* request("GET", "/api/v1/users/base", { auth: token })).status, 200)
      const search = (auth: TestServer.Auth) =>
        Effect.map(request("GET", "/api/v1/users/search?q=lim", { auth }), (response) => logins(at(response.body, "data")))
      assert.deepStrictEqual(yield* search(po.auth), ["lim"])
      assert.deepStrictEqual(yield* search(token), [])

      // GET /orgs, /user/orgs and /users/{u}/orgs list public organizations only
      yield* createOrg(po.auth, "lim-org", { visibility: "limited" })
      assert.includeMembers([...names((yield* request("GET", "/api/v1/orgs", { auth: po.auth })).body)], ["lim-org", "open-org"])
      assert.deepStrictEqual(names((yield* request("GET", "/api/v1/orgs", { auth: token })).body), ["open-org"])
      assert.include(names((yield* request("GET", "/api/v1/user/orgs", { auth: po.auth })).body), "hidden-org")
      assert.notInclude(names((yield* request("GET", "/api/v1/user/orgs", { auth: token })).body), "hidden-org")
      assert.notInclude(names((yield* request("GET", "/api/v1/users/po/orgs", { auth: token })).body), "hidden-org")

      // GET /packages/{owner} and the generic registry for a limited owner
      const upload = yield* request("PUT", "/api/packages/lim/generic/tool/1.0.0/tool.bin", {
        auth: lim.auth,
        body: "bytes",
        contentType: "application/octet-stream"
      })
      assert.strictEqual(upload.status, 201, upload.text)
      assert.strictEqual((yield* request("GET", "/api/v1/packages/lim", { auth: po.auth })).status, 200)
      const packages = yield* request("GET", "/api/v1/packages/lim", { auth: token })
      assert.strictEqual(packages.status, 403)
      assert.deepStrictEqual(packages.body, refused("packages"))
      assert.strictEqual((yield* request("GET", "/api/packages/lim/generic/tool/1.0.0/tool.bin", { auth: token })).status, 403)
    }))
})
