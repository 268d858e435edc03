import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addToTeam, createOrg, createTeam, logins, names, ownersTeamId } from "../support/OrgFixtures.ts"
import { admin, at, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const notFound = { message: "The target couldn't be found.", url: errorUrl, errors: [] }
const plain = (message: string) => ({ message, url: errorUrl })
const allUnits = [
  "repo.code", "repo.issues", "repo.pulls", "repo.releases", "repo.wiki", "repo.ext_wiki", "repo.ext_issues",
  "repo.projects", "repo.packages", "repo.actions"
]
const sortedMap = (entries: ReadonlyArray<readonly [string, string]>) =>
  Object.fromEntries([...entries].sort(([a], [b]) => a < b ? -1 : 1))

layer(TestServer.layer(), { timeout: "120 seconds" })("teams", (it) => {
  it.effect("creates, edits and deletes teams with Forgejo's permission rules (TEAM-03 … TEAM-10)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("t-owner")
      const org = yield* createOrg(owner.auth, "t-org")

      const created = yield* request("POST", "/api/v1/orgs/t-org/teams", {
        auth: owner.auth,
        json: { name: "team1", description: "team one", includes_all_repositories: true, permission: "write", units: ["repo.code", "repo.issues"] }
      })
      assert.strictEqual(created.status, 201)
      const id = Number(at(created.body, "id"))
      assert.deepStrictEqual(created.body, {
        id,
        name: "team1",
        description: "team one",
        organization: org,
        includes_all_repositories: true,
        permission: "write",
        units: ["repo.code", "repo.issues"],
        units_map: { "repo.code": "write", "repo.issues": "write" },
        can_create_org_repo: false
      })
      assert.deepStrictEqual(Object.keys(created.body as object), [
        "id", "name", "description", "organization", "includes_all_repositories", "permission", "units", "units_map", "can_create_org_repo"
      ])

      // permission admin: every unit, the sent units ignored; includes_all applied with a permission (TEAM-04).
      const admined = yield* request("PATCH", `/api/v1/teams/${id}`, {
        auth: owner.auth,
        json: { name: "teamone", description: "team 1", permission: "admin", includes_all_repositories: false, units: ["repo.code", "repo.pulls"] }
      })
      assert.strictEqual(admined.status, 200)
      assert.strictEqual(at(admined.body, "organization"), null)
      assert.strictEqual(at(admined.body, "name"), "teamone")
      assert.strictEqual(at(admined.body, "permission"), "admin")
      assert.strictEqual(at(admined.body, "includes_all_repositories"), false)
      assert.deepStrictEqual(at(admined.body, "units"), allUnits)
      assert.deepStrictEqual(at(admined.body, "units_map"), sortedMap(allUnits.map((unit) => [unit, "admin"])))

      // A description alone changes nothing else (TEAM-05); without a permission includes_all is ignored.
      const described = yield* request("PATCH", `/api/v1/teams/${id}`, {
        auth: owner.auth,
        json: { description: "first team", includes_all_repositories: true }
      })
      assert.deepStrictEqual(described.body, { ...(admined.body as object), description: "first team" })
      const fetched = yield* request("GET", `/api/v1/teams/${id}`, { auth: owner.auth })
      assert.deepStrictEqual(fetched.body, { ...(described.body as object), organization: org })

      // units_map: the team level becomes the lowest level in the map (TEAM-08).
      const mapped = yield* request("POST", "/api/v1/orgs/t-org/teams", {
        auth: owner.auth,
        json: {
          name: "team2",
          description: "team two",
          includes_all_repositories: true,
          permission: "write",
          units_map: { "repo.code": "read", "repo.issues": "write", "repo.wiki": "none" }
        }
      })
      assert.strictEqual(mapped.status, 201)
      assert.strictEqual(at(mapped.body, "permission"), "read")
      assert.deepStrictEqual(at(mapped.body, "units_map"), { "repo.code": "read", "repo.issues": "write", "repo.wiki": "none" })
      assert.deepStrictEqual(at(mapped.body, "units"), ["repo.code", "repo.issues", "repo.wiki"])
      const mappedId = Number(at(mapped.body, "id"))
      const remapped = yield* request("PATCH", `/api/v1/teams/${mappedId}`, {
        auth: owner.auth,
        json: {
          name: "teamtwo",
          permission: "write",
          includes_all_repositories: false,
          units_map: { "repo.code": "read", "repo.pulls": "read", "repo.releases": "write" }
        }
      })
      assert.strictEqual(at(remapped.body, "permission"), "read")
      assert.deepStrictEqual(at(remapped.body, "units_map"), { "repo.code": "read", "repo.pulls": "read", "repo.releases": "write" })
      assert.strictEqual(at(remapped.body, "includes_all_repositories"), false)

      // An admin team without units (TEAM-10).
      const adminTeam = yield* request("POST", "/api/v1/orgs/t-org/teams", {
        auth: owner.auth,
        json: { name: "teamadmin", description: "admins", includes_all_repositories: true, permission: "admin", can_create_org_repo: true }
      })
      assert.strictEqual(adminTeam.status, 201)
      assert.deepStrictEqual(at(adminTeam.body, "units"), allUnits)
      assert.strictEqual(at(adminTeam.body, "can_create_org_repo"), true)

      const list = yield* request("GET", "/api/v1/orgs/t-org/teams", { auth: owner.auth })
      assert.deepStrictEqual(names(list.body), ["Owners", "teamadmin", "teamone", "teamtwo"])
      assert.strictEqual(list.headers.get("x-total-count"), "4")
      assert.isTrue((list.body as ReadonlyArray<unknown>).every((team) => at(team, "organization") === null))
      const paged = yield* request("GET", "/api/v1/orgs/t-org/teams?limit=2&page=2", { auth: owner.auth })
      assert.deepStrictEqual(names(paged.body), ["teamone", "teamtwo"])

      for (const team of [id, mappedId, Number(at(adminTeam.body, "id"))]) {
        const deleted = yield* request("DELETE", `/api/v1/teams/${team}`, { auth: owner.auth })
        assert.deepStrictEqual([deleted.status, deleted.text], [204, ""])
        assert.deepStrictEqual((yield* request("GET", `/api/v1/teams/${team}`, { auth: owner.auth })).body, notFound)
      }
    }))

  it.effect("keeps the Owners team at owner level", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("o-owner")
      yield* createOrg(owner.auth, "o-org")
      const owners = yield* ownersTeamId(owner.auth, "o-org")
      const edited = yield* request("PATCH", `/api/v1/teams/${owners}`, {
        auth: owner.auth,
        json: { permission: "read", units: ["repo.code"], can_create_org_repo: false, includes_all_repositories: false }
      })
      assert.strictEqual(edited.status, 200)
      assert.strictEqual(at(edited.body, "permission"), "owner")
      assert.strictEqual(at(edited.body, "can_create_org_repo"), true)
      assert.strictEqual(at(edited.body, "includes_all_repositories"), true)
      assert.deepStrictEqual(at(edited.body, "units"), allUnits)
    }))

  it.effect("refuses duplicate names case-insensitively and other bad teams with 422", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("d-owner")
      const org = yield* createOrg(owner.auth, "d-org")
      const orgId = String(at(org, "id"))
      yield* createTeam(owner.auth, "d-org", { name: "Devs", permission: "read", units: ["repo.code"] })
      const other = yield* createTeam(owner.auth, "d-org", { name: "ops", permission: "read", units: ["repo.code"] })
      const cases: ReadonlyArray<readonly [unknown, string]> = [
        [{ name: "DEVS", permission: "read", units: ["repo.code"] }, `team already exists [org_id: ${orgId}, name: devs]`],
        [{ name: "owners", permission: "admin" }, `team already exists [org_id: ${orgId}, name: owners]`],
        [{ permission: "read", units: ["repo.code"] }, "[Name]: Required"],
        [{ name: "", permission: "read", units: ["repo.code"] }, "[Name]: Required"],
        [{ name: "bad name", permission: "read", units: ["repo.code"] }, "[Name]: AlphaDashDot"],
        [{ name: "n".repeat(256), permission: "read", units: ["repo.code"] }, "[Name]: MaxSize"],
        [{ name: "long", description: "d".repeat(256), permission: "read", units: ["repo.code"] }, "[Description]: MaxSize"],
        // Forgejo answers these two with 500.
        [{ name: "nounits", permission: "write" }, "units permission should not be empty"],
        [{ name: "new", permission: "read", units: ["repo.code"] }, "name is reserved [name: new]"],
        [{ name: "typed", units_map: { "repo.code": 1 } }, "[UnitsMap]: Invalid type"]
      ]
      for (const [json, message] of cases) {
        const response = yield* request("POST", "/api/v1/orgs/d-org/teams", { auth: owner.auth, json })
        assert.deepStrictEqual([response.status, response.body], [422, plain(message)], JSON.stringify(json).slice(0, 80))
      }
      const rename = yield* request("PATCH", `/api/v1/teams/${other}`, { auth: owner.auth, json: { name: "dEvS" } })
      assert.deepStrictEqual([rename.status, rename.body], [422, plain(`team already exists [org_id: ${orgId}, name: devs]`)])
      const badRename = yield* request("PATCH", `/api/v1/teams/${other}`, { auth: owner.auth, json: { name: "bad name" } })
      assert.deepStrictEqual(badRename.body, plain("[Name]: AlphaDashDot"))
      // The same name in another organization is fine.
      yield* createOrg(owner.auth, "d-org2")
      yield* createTeam(owner.auth, "d-org2", { name: "devs", permission: "read", units: ["repo.code"] })
    }))

  it.effect("accepts urlencoded team bodies with repeated units", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("f-owner")
      yield* createOrg(owner.auth, "f-org")
      const response = yield* request("POST", "/api/v1/orgs/f-org/teams", {
        auth: owner.auth,
        body: "name=formed&permission=read&units=repo.code&units=repo.wiki&includes_all_repositories=true",
        contentType: "application/x-www-form-urlencoded"
      })
      assert.strictEqual(response.status, 201)
      assert.deepStrictEqual(at(response.body, "units"), ["repo.code", "repo.wiki"])
      assert.strictEqual(at(response.body, "includes_all_repositories"), true)
    }))

  it.effect("gates team routes as Forgejo does (TEAM-01, TEAM-02)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("g-owner")
      const member = yield* createUser("g-member")
      const colleague = yield* createUser("g-colleague")
      const outsider = yield* createUser("g-outsider")
      const org = yield* createOrg(owner.auth, "g-org")
      const devs = yield* createTeam(owner.auth, "g-org", { name: "devs", permission: "write", units: ["repo.code"] })
      const ops = yield* createTeam(owner.auth, "g-org", { name: "ops", permission: "read", units: ["repo.code"] })
      yield* addToTeam(owner.auth, devs, "g-member")
      yield* addToTeam(owner.auth, ops, "g-colleague")

      // Team member with a read:organization token (TEAM-01).
      const token = yield* createToken(member.auth, "g-member", "read-org", ["read:organization"])
      const team = yield* request("GET", `/api/v1/teams/${devs}`, { auth: { bearer: token } })
      assert.strictEqual(team.status, 200)
      assert.strictEqual(at(team.body, "name"), "devs")
      assert.deepStrictEqual(at(team.body, "organization"), org)
      const userToken = yield* createToken(member.auth, "g-member", "read-user", ["read:user"])
      assert.deepStrictEqual(
        (yield* request("GET", `/api/v1/teams/${devs}`, { auth: { token: userToken } })).body,
        plain("token does not have at least one of required scope(s): [read:organization]")
      )

      // An organization member outside the team: 403; a stranger: 404; anonymous: 401 (TEAM-02).
      const colleagueAsks = yield* request("GET", `/api/v1/teams/${devs}`, { auth: colleague.auth })
      assert.deepStrictEqual([colleagueAsks.status, colleagueAsks.body], [403, plain("Must be a team member")])
      assert.deepStrictEqual((yield* request("GET", `/api/v1/teams/${devs}/members`, { auth: colleague.auth })).body, plain("Must be a team member"))
      const strangerAsks = yield* request("GET", `/api/v1/teams/${devs}`, { auth: outsider.auth })
      assert.deepStrictEqual([strangerAsks.status, strangerAsks.body], [404, notFound])
      const anonymous = yield* request("GET", `/api/v1/teams/${devs}`)
      assert.deepStrictEqual([anonymous.status, anonymous.body], [401, plain("token is required")])
      assert.strictEqual((yield* request("GET", `/api/v1/teams/${devs}`, { auth: admin })).status, 200)
      // Unknown teams are 404 before the token is asked for; ids that are no number are unknown.
      assert.deepStrictEqual((yield* request("GET", "/api/v1/teams/999999")).body, notFound)
      assert.deepStrictEqual((yield* request("GET", "/api/v1/teams/abc", { auth: owner.auth })).body, notFound)

      // Only owners change teams; a team member who is no owner gets 404, even with a bad body.
      const edit = yield* request("PATCH", `/api/v1/teams/${devs}`, { auth: member.auth, json: { name: "bad name" } })
      assert.deepStrictEqual([edit.status, edit.body], [404, notFound])
      assert.strictEqual((yield* request("DELETE", `/api/v1/teams/${devs}`, { auth: member.auth })).status, 404)
      assert.strictEqual((yield* request("PUT", `/api/v1/teams/${devs}/members/g-outsider`, { auth: member.auth })).status, 404)
      assert.strictEqual((yield* request("PATCH", `/api/v1/teams/${devs}`, { auth: admin, json: { description: "by admin" } })).status, 200)

      // The organization's team list and creation: members list, owners create.
      assert.deepStrictEqual((yield* request("GET", "/api/v1/orgs/g-org/teams", { auth: outsider.auth })).body, plain("Must be an organization member"))
      assert.deepStrictEqual((yield* request("GET", "/api/v1/orgs/g-org/teams")).body, plain("token is required"))
      assert.strictEqual((yield* request("GET", "/api/v1/orgs/g-org/teams", { auth: member.auth })).status, 200)
      const body = { name: "x" }
      assert.deepStrictEqual((yield* request("POST", "/api/v1/orgs/g-org/teams", { auth: outsider.auth, json: body })).body, plain("Must be an organization member"))
      assert.deepStrictEqual((yield* request("POST", "/api/v1/orgs/g-org/teams", { auth: member.auth, json: body })).body, plain("Must be an organization owner"))
      assert.strictEqual((yield* request("POST", "/api/v1/orgs/g-org/teams", { auth: admin, json: { ...body, permission: "admin" } })).status, 201)
    }))

  it.effect("adds and removes team members, which makes and ends organization membership (TU-01)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("m-owner")
      const joiner = yield* createUser("m-joiner")
      yield* createOrg(owner.auth, "m-org")
      const team = yield* createTeam(owner.auth, "m-org", { name: "devs", permission: "write", units: ["repo.code"] })

      const missing = yield* request("GET", `/api/v1/teams/${team}/members/m-joiner`, { auth: owner.auth })
      assert.deepStrictEqual([missing.status, missing.body], [404, notFound])
      const added = yield* request("PUT", `/api/v1/teams/${team}/members/M-JOINER`, { auth: owner.auth })
      assert.deepStrictEqual([added.status, added.text], [204, ""])
      assert.strictEqual((yield* request("GET", "/api/v1/orgs/m-org/members/m-joiner", { auth: owner.auth })).status, 204)

      const members = yield* request("GET", `/api/v1/teams/${team}/members`, { auth: joiner.auth })
      assert.deepStrictEqual(logins(members.body), ["m-joiner"])
      assert.strictEqual(members.headers.get("x-total-count"), "1")
      // A member asking about themself gets their own, privileged view.
      const self = yield* request("GET", `/api/v1/teams/${team}/members/m-joiner`, { auth: joiner.auth })
      assert.strictEqual(self.status, 200)
      assert.deepStrictEqual(self.body, (yield* request("GET", "/api/v1/user", { auth: joiner.auth })).body)
      const seen = yield* request("GET", `/api/v1/teams/${team}/members/m-joiner`, { auth: owner.auth })
      assert.strictEqual(at(seen.body, "login_name"), "")

      const unknown = yield* request("PUT", `/api/v1/teams/${team}/members/nobody`, { auth: owner.auth })
      assert.deepStrictEqual([unknown.status, unknown.body], [404, {
        message: "GetUserByName",
        url: errorUrl,
        errors: ["user does not exist [uid: 0, name: nobody]"]
      }])

      const removed = yield* request("DELETE", `/api/v1/teams/${team}/members/m-joiner`, { auth: owner.auth })
      assert.deepStrictEqual([removed.status, removed.text], [204, ""])
      assert.strictEqual((yield* request("GET", "/api/v1/orgs/m-org/members/m-joiner", { auth: owner.auth })).status, 404)
      // Removing a non-member is a no-op.
      assert.strictEqual((yield* request("DELETE", `/api/v1/teams/${team}/members/m-joiner`, { auth: owner.auth })).status, 204)

      // The last owner cannot leave the Owners team; with a second owner they can.
      const owners = yield* ownersTeamId(owner.auth, "m-org")
      const last = yield* request("DELETE", `/api/v1/teams/${owners}/members/m-owner`, { auth: owner.auth })
      assert.deepStrictEqual([last.status, last.body], [422, plain(`user is the last member of owner team [uid: ${String(at(owner.user, "id"))}]`)])
      yield* addToTeam(owner.auth, owners, "m-joiner")
      assert.strictEqual((yield* request("DELETE", `/api/v1/teams/${owners}/members/m-owner`, { auth: joiner.auth })).status, 204)
      assert.deepStrictEqual(logins((yield* request("GET", `/api/v1/teams/${owners}/members`, { auth: joiner.auth })).body), ["m-joiner"])
      // No longer an owner, and no longer a member at all.
      assert.deepStrictEqual((yield* request("GET", `/api/v1/teams/${owners}`, { auth: owner.auth })).body, notFound)
    }))

  it.effect("keeps one membership when the same user joins a team ten times at once", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("c-owner")
      yield* createUser("c-joiner")
      yield* createOrg(owner.auth, "c-org")
      const team = yield* createTeam(owner.auth, "c-org", { name: "racers", permission: "read", units: ["repo.code"] })
      const statuses = yield* Effect.all(
        Array.from({ length: 10 }, () => Effect.map(request("PUT", `/api/v1/teams/${team}/members/c-joiner`, { auth: owner.auth }), (r) => r.status)),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(statuses, Array.from({ length: 10 }, () => 204))
      const members = yield* request("GET", `/api/v1/teams/${team}/members`, { auth: owner.auth })
      assert.deepStrictEqual(logins(members.body), ["c-joiner"])
      assert.strictEqual(members.headers.get("x-total-count"), "1")
      const orgMembers = yield* request("GET", "/api/v1/orgs/c-org/members", { auth: owner.auth })
      assert.deepStrictEqual(logins(orgMembers.body), ["c-joiner", "c-owner"])
      assert.strictEqual(orgMembers.headers.get("x-total-count"), "2")
    }))

  it.effect("lists a team's repositories (none before repositories exist)", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("r-owner")
      yield* createOrg(owner.auth, "r-org")
      const owners = yield* ownersTeamId(owner.auth, "r-org")
      const repos = yield* request("GET", `/api/v1/teams/${owners}/repos`, { auth: owner.auth })
      assert.deepStrictEqual([repos.status, repos.body, repos.headers.get("x-total-count")], [200, [], "0"])
      assert.strictEqual((yield* request("GET", `/api/v1/teams/${owners}/repos`)).status, 401)
    }))
})
