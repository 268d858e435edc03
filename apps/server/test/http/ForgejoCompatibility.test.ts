/**
 * Issue 16: the answers a Forgejo client gets, checked against Forgejo's own (status, body,
 * headers), one test per reported class.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { keyOrderProblems } from "../support/ForgejoJsonKeys.ts"
import { admin, at, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`

/** Every User object, at any depth, carries `username` equal to its `login`, as its last key. */
const assertUsernames = (value: unknown, where: string): number => {
  if (Array.isArray(value)) return value.reduce((n: number, item) => n + assertUsernames(item, where), 0)
  if (typeof value !== "object" || value === null) return 0
  const record = value as Record<string, unknown>
  let users = 0
  if ("login" in record && "login_name" in record) {
    const keys = Object.keys(record)
    assert.strictEqual(keys[keys.length - 1], "username", `${where}: ${keys.join(",")}`)
    assert.strictEqual(record.username, record.login, where)
    users += 1
  }
  return Object.values(record).reduce((n: number, item) => n + assertUsernames(item, where), users)
}

layer(TestServer.layer(), { timeout: "180 seconds" })("Forgejo compatibility (issue 16)", (it) => {
  it.effect("every User object carries username, nested ones included", () =>
    Effect.gen(function*() {
      const alice = yield* createUser("u-alice")
      const bob = yield* createUser("u-bob")
      yield* request("POST", "/api/v1/user/repos", { auth: alice.auth, json: { name: "r", auto_init: true } })
      yield* request("PUT", "/api/v1/repos/u-alice/r/collaborators/u-bob", { auth: alice.auth, json: { permission: "read" } })
      yield* request("POST", "/api/v1/repos/u-alice/r/releases", { auth: alice.auth, json: { tag_name: "v1" } })
      const org = yield* request("POST", "/api/v1/orgs", { auth: alice.auth, json: { username: "u-org" } })
      assert.strictEqual(org.status, 201, org.text)
      const reads: ReadonlyArray<[string, string, TestServer.Auth | undefined, number]> = [
        ["GET", "/api/v1/user", alice.auth, 1],
        ["GET", "/api/v1/users/u-bob", alice.auth, 1],
        ["GET", "/api/v1/users/u-bob", undefined, 1],
        ["GET", "/api/v1/users/search?q=u-", alice.auth, 2],
        ["GET", "/api/v1/admin/users", admin, 3],
        ["GET", "/api/v1/repos/u-alice/r", undefined, 1],
        ["GET", "/api/v1/repos/u-alice/r/collaborators", alice.auth, 1],
        ["GET", "/api/v1/repos/u-alice/r/collaborators/u-bob/permission", alice.auth, 1],
        ["GET", "/api/v1/repos/u-alice/r/releases", alice.auth, 1],
        ["GET", "/api/v1/orgs/u-org/members", alice.auth, 1],
        ["GET", "/api/v1/orgs/u-org/public_members", alice.auth, 0]
      ]
      for (const [method, path, auth, least] of reads) {
        const response = yield* request(method, path, { auth })
        assert.strictEqual(response.status, 200, `${path}: ${response.text}`)
        assert.isAtLeast(assertUsernames(response.body, path), least, path)
      }
      const edited = yield* request("PATCH", "/api/v1/admin/users/u-bob", { auth: admin, json: { full_name: "Bob" } })
      assert.strictEqual(edited.status, 200, edited.text)
      assert.strictEqual(assertUsernames(edited.body, "admin edit"), 1)
      assert.strictEqual(assertUsernames(bob.user, "admin create"), 1)

      const swagger = yield* request("GET", "/swagger.v1.json")
      assert.deepStrictEqual(at(swagger.body, "definitions", "User", "properties", "username"), { type: "string" })
    }))

  it.effect("every wire object has Forgejo's keys, in the order of Forgejo's structs (docs/wire-audit.md)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("o-owner")
      const other = yield* createUser("o-other")
      const json = (body: unknown) => ({ auth: owner.auth, json: body })
      yield* request("POST", "/api/v1/user/repos", json({ name: "r", auto_init: true }))
      yield* request("PUT", "/api/v1/repos/o-owner/r/collaborators/o-other", json({ permission: "read" }))
      yield* request("POST", "/api/v1/repos/o-owner/r/forks", { auth: other.auth, json: {} })
      const release = yield* request("POST", "/api/v1/repos/o-owner/r/releases", json({ tag_name: "v1" }))
      yield* request("POST", `/api/v1/repos/o-owner/r/releases/${String(at(release.body, "id"))}/assets?name=a.bin`, {
        auth: owner.auth, body: "bytes", contentType: "application/octet-stream"
      })
      yield* request("POST", "/api/v1/repos/o-owner/r/statuses/main", json({ state: "success", context: "ci" }))
      yield* request("POST", "/api/v1/admin/users/o-owner/keys", {
        auth: admin,
        json: { title: "k", key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl o@k" }
      })
      const token = yield* createToken(owner.auth, "o-owner", "o-token", ["all"])
      yield* request("PUT", "/api/packages/o-owner/generic/p/1.0.0/p.bin", { auth: { token }, body: "bytes", contentType: "application/octet-stream" })
      yield* request("POST", "/api/v1/orgs", json({ username: "o-org" }))
      const team = yield* request("POST", "/api/v1/orgs/o-org/teams", json({ name: "t", permission: "read", units: ["repo.code"] }))
      yield* request("POST", "/api/v1/orgs/o-org/hooks", json({ type: "gitea", config: { url: "https://h.example", content_type: "json" } }))
      yield* request("POST", "/api/v1/admin/quota/rules", { auth: admin, json: { name: "o-rule", limit: 0, subjects: ["size:all"] } })
      yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: "o-group", rules: [{ name: "o-rule" }] } })
      yield* request("PUT", "/api/v1/admin/quota/groups/o-group/users/o-owner", { auth: admin })

      const reads: ReadonlyArray<readonly [string, string]> = [
        ["/api/v1/user", "User"],
        ["/api/v1/users/search?q=o-", "UserSearchResults"],
        ["/api/v1/repos/o-other/r", "Repository"],
        ["/api/v1/repos/search?q=r", "SearchResults"],
        ["/api/v1/repos/o-owner/r/collaborators/o-other/permission", "RepoCollaboratorPermission"],
        ["/api/v1/repos/o-owner/r/releases", "Release"],
        ["/api/v1/repos/o-owner/r/branches", "Branch"],
        ["/api/v1/repos/o-owner/r/statuses/main", "CommitStatus"],
        ["/api/v1/repos/o-owner/r/commits/main/status", "CombinedStatus"],
        ["/api/v1/users/o-owner/tokens", "AccessToken"],
        ["/api/v1/user/keys", "PublicKey"],
        ["/api/v1/users/o-owner/keys", "PublicKey"],
        ["/api/v1/packages/o-owner", "Package"],
        ["/api/v1/user/quota", "QuotaInfo"],
        ["/api/v1/orgs/o-org", "Organization"],
        ["/api/v1/orgs/o-org/teams", "Team"],
        [`/api/v1/teams/${String(at(team.body, "id"))}`, "Team"],
        ["/api/v1/orgs/o-org/hooks", "Hook"],
        ["/api/v1/version", "ServerVersion"]
      ]
      for (const [path, struct] of reads) {
        const response = yield* request("GET", path, { auth: owner.auth })
        assert.strictEqual(response.status, 200, `${path}: ${response.text}`)
        assert.isNotEmpty(Array.isArray(response.body) ? response.body : [response.body], path)
        assert.deepStrictEqual(keyOrderProblems(response.body, struct), [], path)
      }
    }))

  it.effect("PUT collaborators with no body adds a writer (204)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("c-owner")
      yield* createUser("c-writer")
      yield* createUser("c-nulled")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "r" } })
      const added = yield* request("PUT", "/api/v1/repos/c-owner/r/collaborators/c-writer", { auth: owner.auth })
      assert.deepStrictEqual([added.status, added.text], [204, ""])
      const permission = yield* request("GET", "/api/v1/repos/c-owner/r/collaborators/c-writer/permission", { auth: owner.auth })
      assert.strictEqual(at(permission.body, "permission"), "write")
      const nulled = yield* request("PUT", "/api/v1/repos/c-owner/r/collaborators/c-nulled", { auth: owner.auth, body: "null" })
      assert.deepStrictEqual([nulled.status, nulled.text], [204, ""])
      // An option with a required field still answers Forgejo's binding error to an empty body.
      const noName = yield* request("POST", "/api/v1/orgs", { auth: owner.auth, body: "" })
      assert.deepStrictEqual([noName.status, noName.body], [422, { message: "[UserName]: Required", url: errorUrl }])
    }))

  it.effect("a body that is not JSON answers 422 with Go's decoder error on every route that binds JSON", () =>
    Effect.gen(function*() {
      yield* createUser("m-alice")
      yield* createUser("m-bob")
      const setup: ReadonlyArray<readonly [string, string, unknown]> = [
        ["POST", "/api/v1/admin/users/m-alice/repos", { name: "r", auto_init: true }],
        ["POST", "/api/v1/repos/m-alice/r/releases", { tag_name: "v1" }],
        ["POST", "/api/v1/admin/users/m-alice/orgs", { username: "m-org" }],
        ["POST", "/api/v1/orgs/m-org/hooks", { type: "gitea", config: { url: "https://h.example", content_type: "json" } }],
        ["POST", "/api/v1/admin/quota/rules", { name: "m-rule", limit: 1, subjects: ["size:all"] }]
      ]
      for (const [method, path, json] of setup) {
        const response = yield* request(method, path, { auth: admin, json })
        assert.strictEqual(response.status, 201, `${path}: ${response.text}`)
      }
      const release = at((yield* request("GET", "/api/v1/repos/m-alice/r/releases/tags/v1", { auth: admin })).body, "id")
      const asset = yield* request("POST", `/api/v1/repos/m-alice/r/releases/${String(release)}/assets?name=a.bin`, {
        auth: admin, body: "bytes", contentType: "application/octet-stream"
      })
      const team = at((yield* request("GET", "/api/v1/orgs/m-org/teams", { auth: admin })).body, 0, "id")
      const hook = at((yield* request("GET", "/api/v1/orgs/m-org/hooks", { auth: admin })).body, 0, "id")
      const values: Record<string, string> = {
        username: "m-alice", owner: "m-alice", repo: "r", org: "m-org", collaborator: "m-bob", sha: "main", quotarule: "m-rule",
        attachment_id: String(at(asset.body, "id"))
      }
      const idOf = (path: string) => String(path.startsWith("/teams/") ? team : path.includes("/hooks/") ? hook : release)

      const swagger = yield* request("GET", "/swagger.v1.json")
      const paths = at(swagger.body, "paths") as Record<string, Record<string, { consumes?: ReadonlyArray<string> }>>
      const routes = Object.entries(paths).flatMap(([path, methods]) =>
        Object.entries(methods)
          .filter(([, operation]) => operation.consumes?.includes("application/json") === true)
          .map(([method]) => [method.toUpperCase(), path] as const)
      )
      assert.isAtLeast(routes.length, 25)
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["{bad", "[]: invalid character 'b' looking for beginning of object key string"],
        [`{"name":`, "[]: unexpected EOF"],
        [`{"name" "x"}`, "[]: invalid character '\"' after object key"],
        ["nope", "[]: invalid character 'o' in literal null (expecting 'u')"]
      ]
      for (const [method, template] of routes) {
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => name === "id" ? idOf(template) : values[name] ?? name)
        for (const [body, message] of cases) {
          const response = yield* request(method, `/api/v1${path}`, { auth: admin, body })
          assert.deepStrictEqual([response.status, response.body], [422, { message, url: errorUrl }], `${method} ${path} ${body}`)
        }
      }
    }))

  it.effect("Repository JSON carries internal_tracker while the issues unit is on, and drops it with the unit", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("t-owner")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "r" } })
      const keys = Object.keys(created.body as object)
      assert.strictEqual(keys[keys.indexOf("has_issues") + 1], "internal_tracker")
      assert.deepStrictEqual(at(created.body, "internal_tracker"), {
        enable_time_tracker: true,
        allow_only_contributors_to_track_time: true,
        enable_issue_dependencies: true
      })
      // A repository without topics answers an empty list (Forgejo stores `[]` on insert), never null.
      assert.deepStrictEqual(at(created.body, "topics"), [])
      // Forgejo omits external_tracker and external_wiki (omitempty) without those units.
      assert.isFalse(keys.includes("external_tracker"))
      assert.isFalse(keys.includes("external_wiki"))
      const off = yield* request("PATCH", "/api/v1/repos/t-owner/r", { auth: owner.auth, json: { has_issues: false } })
      assert.isFalse(Object.keys(off.body as object).includes("internal_tracker"))
    }))

  it.effect("PATCH binds internal_tracker, external_tracker and external_wiki as Forgejo's updateRepoUnits", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("x-owner")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "r" } })
      const edit = (json: unknown) => request("PATCH", "/api/v1/repos/x-owner/r", { auth: owner.auth, json })
      const tracker = { enable_time_tracker: false, allow_only_contributors_to_track_time: true, enable_issue_dependencies: false }
      const internal = yield* edit({ internal_tracker: tracker })
      assert.deepStrictEqual([internal.status, at(internal.body, "internal_tracker")], [200, tracker])

      const external = {
        external_tracker_url: "https://tracker.example/x",
        external_tracker_format: "https://tracker.example/{user}/{repo}/issues/{index}",
        external_tracker_style: "numeric",
        external_tracker_regexp_pattern: ""
      }
      const switched = yield* edit({ has_issues: true, external_tracker: external, external_wiki: { external_wiki_url: "https://wiki.example" } })
      assert.strictEqual(switched.status, 200, switched.text)
      assert.deepStrictEqual(keyOrderProblems(switched.body, "Repository"), [])
      assert.deepStrictEqual(
        [at(switched.body, "has_issues"), at(switched.body, "internal_tracker"), at(switched.body, "external_tracker")],
        [true, undefined, external]
      )
      assert.deepStrictEqual([at(switched.body, "has_wiki"), at(switched.body, "external_wiki")], [true, { external_wiki_url: "https://wiki.example" }])
      const keys = Object.keys(switched.body as object)
      assert.deepStrictEqual(keys.slice(keys.indexOf("has_issues"), keys.indexOf("has_wiki") + 6), [
        "has_issues", "external_tracker", "has_wiki", "has_wiki_contents", "external_wiki", "wiki_branch", "wiki_ssh_url", "wiki_clone_url"
      ])
      assert.deepStrictEqual((yield* request("GET", "/api/v1/repos/x-owner/r", { auth: owner.auth })).body, switched.body)

      // Forgejo's IsValidExternalURL and IsValidExternalTrackerURLFormat; a refused edit changes nothing.
      const refusals: ReadonlyArray<readonly [unknown, string]> = [
        [{ external_tracker: { ...external, external_tracker_url: "not a url" } }, "External tracker URL not valid"],
        [{ external_tracker: { ...external, external_tracker_url: "http://localhost/x" } }, "External tracker URL not valid"],
        [{ external_tracker: { ...external, external_tracker_url: "http://127.0.0.2/x" } }, "External tracker URL not valid"],
        [{ external_tracker: { ...external, external_tracker_url: "http://[::1]:3000/x" } }, "External tracker URL not valid"],
        [{ external_tracker: { ...external, external_tracker_format: "https://t.example/{index/" } }, "External tracker URL format not valid"],
        [{ external_wiki: { external_wiki_url: "ftp://wiki.example" } }, "Invalid external wiki URL"]
      ]
      for (const [body, message] of refusals) {
        const refused = yield* edit({ description: "changed", has_issues: true, has_wiki: true, ...(body as object) })
        assert.deepStrictEqual([refused.status, refused.body], [422, { message, url: errorUrl }], JSON.stringify(body))
      }
      assert.deepStrictEqual((yield* request("GET", "/api/v1/repos/x-owner/r", { auth: owner.auth })).body, switched.body)

      // Leaving has_issues out keeps the external tracker (only the built-in unit counts as on).
      assert.deepStrictEqual(at((yield* edit({ description: "d" })).body, "external_tracker"), external)
      // Back to the built-in units: a re-created issues unit starts from Forgejo's defaults.
      const back = yield* edit({ has_issues: true, has_wiki: true })
      assert.deepStrictEqual(
        [at(back.body, "external_tracker"), at(back.body, "external_wiki"), at(back.body, "has_wiki")],
        [undefined, undefined, true]
      )
      assert.deepStrictEqual(at(back.body, "internal_tracker"), {
        enable_time_tracker: true,
        allow_only_contributors_to_track_time: true,
        enable_issue_dependencies: true
      })
    }))

  it.effect("URL fields are bound as Forgejo's ValidUrl: user and organization website, hook URLs", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("w-owner")
      const refusals: ReadonlyArray<[string, string, TestServer.Auth, unknown, string]> = [
        ["PATCH", "/api/v1/admin/users/w-owner", admin, { website: "not a url" }, "[Website]: Url"],
        ["PATCH", "/api/v1/admin/users/w-owner", admin, { website: "ftp://example.com" }, "[Website]: Url"],
        ["POST", "/api/v1/orgs", owner.auth, { username: "w-org", website: "not a url" }, "[Website]: Url"]
      ]
      for (const [method, path, auth, json, message] of refusals) {
        const response = yield* request(method, path, { auth, json })
        assert.deepStrictEqual([response.status, response.body], [422, { message, url: errorUrl }], `${path} ${JSON.stringify(json)}`)
        // Forgejo adds `;charset=utf-8`; Kiln's JSON responses leave it out everywhere (not this issue's).
        assert.match(response.headers.get("content-type") ?? "", /^application\/json/)
      }
      // The account is assigned (404) before the option is bound.
      const unknown = yield* request("PATCH", "/api/v1/admin/users/nobody-here", { auth: admin, json: { website: "not a url" } })
      assert.deepStrictEqual([unknown.status, unknown.body], [404, { message: "user does not exist [uid: 0, name: nobody-here]", url: errorUrl }])
      const user = yield* request("GET", "/api/v1/users/w-owner", { auth: owner.auth })
      assert.strictEqual(at(user.body, "website"), "")
      for (const website of ["https://example.com/me", ""]) {
        const kept = yield* request("PATCH", "/api/v1/admin/users/w-owner", { auth: admin, json: { website } })
        assert.deepStrictEqual([kept.status, at(kept.body, "website")], [200, website])
      }
      yield* request("POST", "/api/v1/orgs", { auth: owner.auth, json: { username: "w-org" } })
      const orgEdit = yield* request("PATCH", "/api/v1/orgs/w-org", { auth: owner.auth, json: { website: "not a url" } })
      assert.deepStrictEqual([orgEdit.status, orgEdit.body], [422, { message: "[Website]: Url", url: errorUrl }])
      const hook = yield* request("POST", "/api/v1/orgs/w-org/hooks", {
        auth: owner.auth,
        json: { type: "forgejo", config: { url: "not a url", content_type: "json" } }
      })
      assert.deepStrictEqual([hook.status, hook.body], [422, { message: "Invalid url", url: errorUrl }])

      // External release assets: IsValidReleaseAssetURL is IsValidURL, user info and all (400 when refused).
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "r", auto_init: true } })
      const release = yield* request("POST", "/api/v1/repos/w-owner/r/releases", { auth: owner.auth, json: { tag_name: "v1" } })
      const assets = `/api/v1/repos/w-owner/r/releases/${String(at(release.body, "id"))}/assets`
      // An external URL comes in a multipart form (any other body is an upload).
      const form = (fields: Record<string, string>) => ({
        auth: owner.auth,
        contentType: "multipart/form-data; boundary=kiln",
        body: Object.entries(fields).map(([name, value]) =>
          `--kiln\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
        ).join("") + "--kiln--\r\n"
      })
      const external = "http://mirror@files.example/a b.bin"
      const linked = yield* request("POST", assets, form({ name: "a.bin", external_url: external }))
      assert.deepStrictEqual([linked.status, at(linked.body, "type"), at(linked.body, "browser_download_url")], [201, "external", external])
      const refused = yield* request("POST", assets, form({ name: "b.bin", external_url: "ftp://files.example/b" }))
      assert.deepStrictEqual([refused.status, refused.body], [400, { message: "invalid external URL: 'ftp://files.example/b'", url: errorUrl }])
      const edited = yield* request("PATCH", `${assets}/${String(at(linked.body, "id"))}`, {
        auth: owner.auth,
        json: { browser_download_url: "not a url" }
      })
      assert.deepStrictEqual([edited.status, edited.body], [400, { message: "invalid external URL: 'not a url'", url: errorUrl }])
    }))

  it.effect("a private organization's repositories: not hidden by orgAssignment, listed by read access, creation hidden by CreateOrgRepo", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("p-owner")
      const stranger = yield* createUser("p-stranger")
      for (const [name, visibility] of [["p-private", "private"], ["p-limited", "limited"]] as const) {
        yield* request("POST", "/api/v1/orgs", { auth: owner.auth, json: { username: name, visibility } })
        yield* request("POST", `/api/v1/orgs/${name}/repos`, { auth: owner.auth, json: { name: "open" } })
        yield* request("POST", `/api/v1/orgs/${name}/repos`, { auth: owner.auth, json: { name: "closed", private: true } })
      }
      const names = (body: unknown) => (body as ReadonlyArray<{ name: string }>).map((repo) => repo.name)
      // orgAssignment does not hide the organization. listUserRepos drops the repositories the caller
      // cannot read (a private organization's public ones too, for outsiders). Forgejo's
      // X-Total-Count counts the whole queried set; Kiln's counts what the caller sees (security
      // review finding 16: the total told outsiders how many hidden repositories there are).
      const listings: ReadonlyArray<readonly [string, TestServer.Auth | undefined, ReadonlyArray<string>, string]> = [
        ["p-private", stranger.auth, [], "0"],
        ["p-private", undefined, [], "0"],
        ["p-private", owner.auth, ["closed", "open"], "2"],
        ["p-limited", stranger.auth, ["open"], "1"],
        ["p-limited", undefined, [], "0"]
      ]
      for (const [org, auth, expected, total] of listings) {
        const listed = yield* request("GET", `/api/v1/orgs/${org}/repos`, { auth })
        const where = `${org} ${auth === undefined ? "anonymous" : "signed in"}`
        assert.deepStrictEqual([listed.status, [...names(listed.body)].sort(), listed.headers.get("x-total-count")], [200, expected, total], where)
      }
      for (const org of ["p-private", "p-limited"]) {
        const anonymous = yield* request("POST", `/api/v1/orgs/${org}/repos`, { json: { name: "x" } })
        assert.deepStrictEqual([anonymous.status, anonymous.body], [401, { message: "token is required", url: errorUrl }])
      }
      // CreateOrgRepo checks HasOrgOrUserVisible itself: a private organization is hidden from outsiders.
      const hidden = yield* request("POST", "/api/v1/orgs/p-private/repos", { auth: stranger.auth, json: { name: "x" } })
      assert.deepStrictEqual([hidden.status, hidden.body], [404, { message: "HasOrgOrUserVisible", url: errorUrl, errors: [] }])
      const refused = yield* request("POST", "/api/v1/orgs/p-limited/repos", { auth: stranger.auth, json: { name: "x" } })
      assert.deepStrictEqual([refused.status, refused.body], [
        403,
        { message: "Given user is not allowed to create repository in organization.", url: errorUrl }
      ])
    }))

  it.effect("tokens of a user the caller may not see answer 404, of a visible one 403", () =>
    Effect.gen(function*() {
      yield* createUser("k-private", { visibility: "private" })
      yield* createUser("k-public")
      const other = yield* createUser("k-other")
      const notFound = { message: "user does not exist [uid: 0, name: k-private]", url: errorUrl }
      const refused = { message: "doer should be the site admin or be same as the contextUser", url: errorUrl }
      const calls: ReadonlyArray<[string, string, unknown]> = [
        ["GET", "/tokens", undefined],
        ["POST", "/tokens", { name: "t" }],
        ["DELETE", "/tokens/1", undefined]
      ]
      for (const [method, suffix, json] of calls) {
        const hidden = yield* request(method, `/api/v1/users/k-private${suffix}`, { auth: other.auth, json })
        assert.deepStrictEqual([hidden.status, hidden.body], [404, notFound], `${method} ${suffix}`)
        const visible = yield* request(method, `/api/v1/users/k-public${suffix}`, { auth: other.auth, json })
        assert.deepStrictEqual([visible.status, visible.body], [403, refused], `${method} ${suffix}`)
      }
      // The account itself and site admins still reach them.
      assert.strictEqual((yield* request("GET", "/api/v1/users/k-private/tokens", { auth: admin })).status, 200)
    }))

  it.effect("a deactivated account is refused every signed-in request, git over HTTP included", () =>
    Effect.gen(function*() {
      const user = yield* createUser("d-user")
      yield* request("POST", "/api/v1/user/repos", { auth: user.auth, json: { name: "r", private: true, auto_init: true } })
      const token = yield* TestServer.createToken(user.auth, "d-user", "all", ["all"])
      const deactivated = yield* request("PATCH", "/api/v1/admin/users/d-user", { auth: admin, json: { active: false } })
      assert.strictEqual(at(deactivated.body, "active"), false)
      const refusal = { message: "This account is prohibited from signing in, please contact your site administrator." }
      for (const auth of [user.auth, { token }, { bearer: token }]) {
        const response = yield* request("GET", "/api/v1/user", { auth })
        assert.deepStrictEqual([response.status, response.body], [403, refusal])
        // Forgejo adds `;charset=utf-8`; Kiln's JSON responses leave it out everywhere (not this issue's).
        assert.match(response.headers.get("content-type") ?? "", /^application\/json/)
      }
      const git = yield* request("GET", "/d-user/r.git/info/refs?service=git-upload-pack", { auth: user.auth })
      assert.strictEqual(git.status, 403)
      yield* request("PATCH", "/api/v1/admin/users/d-user", { auth: admin, json: { active: true } })
      assert.strictEqual((yield* request("GET", "/api/v1/user", { auth: { token } })).status, 200)
      assert.strictEqual((yield* request("GET", "/d-user/r.git/info/refs?service=git-upload-pack", { auth: user.auth })).status, 200)
    }))

  it.effect("quota subjects accept Forgejo's size:assets:wiki beside size:wiki, kept as written", () =>
    Effect.gen(function*() {
      const user = yield* createUser("q-user")
      const rule = yield* request("POST", "/api/v1/admin/quota/rules", {
        auth: admin,
        json: { name: "q-wiki", limit: 0, subjects: ["size:assets:wiki", "size:wiki"] }
      })
      assert.deepStrictEqual([rule.status, rule.body], [201, { name: "q-wiki", limit: 0, subjects: ["size:assets:wiki", "size:wiki"] }])
      const group = yield* request("POST", "/api/v1/admin/quota/groups", { auth: admin, json: { name: "q-group", rules: [{ name: "q-wiki" }] } })
      assert.strictEqual(group.status, 201, group.text)
      assert.strictEqual((yield* request("PUT", "/api/v1/admin/quota/groups/q-group/users/q-user", { auth: admin })).status, 204)
      for (const subject of ["size:assets:wiki", "size:wiki"]) {
        const check = yield* request("GET", `/api/v1/user/quota/check?subject=${subject}`, { auth: user.auth })
        assert.deepStrictEqual([check.status, check.text], [200, "false"], subject)
      }
      const info = yield* request("GET", "/api/v1/user/quota", { auth: user.auth })
      assert.deepStrictEqual(at(info.body, "groups", 0, "rules", 0, "subjects"), ["size:assets:wiki", "size:wiki"])
      const edited = yield* request("PATCH", "/api/v1/admin/quota/rules/q-wiki", { auth: admin, json: { subjects: ["size:assets:wiki"] } })
      assert.deepStrictEqual(at(edited.body, "subjects"), ["size:assets:wiki"])
    }))
})
