/**
 * Organizations, teams, members and webhooks through the domain services on a real database
 * (PGlite, or Postgres with KILN_TEST_DATABASE_URL). One database for the file: each test uses
 * names of its own.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { OrganizationDeletionGuards, Organizations } from "@kiln/domain/org/Organizations"
import * as OrganizationsLive from "@kiln/domain/org/Organizations"
import { OrgMembers } from "@kiln/domain/org/OrgMembers"
import * as OrgMembersLive from "@kiln/domain/org/OrgMembers"
import { ownsRepositoriesMessage } from "@kiln/domain/org/Organization"
import { Teams } from "@kiln/domain/org/Teams"
import * as TeamsLive from "@kiln/domain/org/Teams"
import { WebhookStore } from "@kiln/domain/org/WebhookStore"
import { pageRequest } from "@kiln/domain/Paging"
import { Webhooks } from "@kiln/domain/webhook/Webhooks"
import * as WebhooksLive from "@kiln/domain/webhook/Webhooks"
import { newAccount, type User } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import type { Visibility } from "@kiln/domain/user/Visibility"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as OrganizationStoreSql from "../../src/stores/OrganizationStoreSql.ts"
import * as TeamStoreSql from "../../src/stores/TeamStoreSql.ts"
import * as UserStoreSql from "../../src/stores/UserStoreSql.ts"
import * as WebhookStoreSql from "../../src/stores/WebhookStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"

const Stores = Layer.mergeAll(OrganizationStoreSql.layer, TeamStoreSql.layer, WebhookStoreSql.layer).pipe(
  Layer.provideMerge(UserStoreSql.layer)
)
const Services = Layer.mergeAll(OrganizationsLive.layer, TeamsLive.layer, OrgMembersLive.layer, WebhooksLive.layer).pipe(
  Layer.provideMerge(Stores)
)
const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))

const firstPage = pageRequest(1, 50)

const newUser = (name: string, fields: Partial<User> = {}) =>
  Effect.flatMap(UserStore, (users) =>
    users.insert(newAccount({
      name,
      kind: "individual",
      email: `${name}@example.com`,
      loginName: name,
      createdAt: 1,
      ...fields
    }), "").pipe(Effect.orDie))

const newOrg = (creator: User, username: string, visibility: Visibility = "public") =>
  Effect.flatMap(Organizations, (organizations) =>
    organizations.create(creator, { username, visibility, fullName: `${username} org` }).pipe(Effect.orDie))

const count = (query: string, ...params: ReadonlyArray<number>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql.unsafe<{ n: number }>(query, params), (rows) => Number(rows[0]?.n)).pipe(Effect.orDie))

layer(Services.pipe(Layer.provideMerge(Database)), { timeout: "120 seconds" })("organizations on a database", (it) => {
  it.effect("creating an organization makes the creator the only member of its Owners team", () =>
    Effect.gen(function*() {
      const alice = yield* newUser("alice")
      const { organization, ownerTeam } = yield* newOrg(alice, "Acme", "limited")
      assert.strictEqual(organization.kind, "organization")
      assert.strictEqual(organization.lowerName, "acme")
      assert.strictEqual(organization.visibility, "limited")
      assert.strictEqual(ownerTeam.name, "Owners")
      assert.strictEqual(ownerTeam.permission, "owner")
      assert.isTrue(ownerTeam.includesAllRepositories && ownerTeam.canCreateOrgRepo)
      assert.strictEqual(ownerTeam.units["repo.code"], "owner")
      assert.strictEqual(ownerTeam.units["repo.ext_wiki"], "read")

      const teams = yield* Teams
      const stored = yield* teams.byId(ownerTeam.id)
      assert.deepStrictEqual(stored, ownerTeam)
      const members = yield* OrgMembers
      assert.isTrue(yield* members.isOwner(organization.id, alice.id))
      assert.isFalse(yield* members.isPublicMember(organization.id, alice.id))
      const listed = yield* members.list(organization, alice, firstPage)
      assert.deepStrictEqual(listed.items.map((u) => u.name), ["alice"])

      const organizations = yield* Organizations
      const taken = yield* Effect.flip(organizations.create(alice, { username: "ACME" }))
      assert.strictEqual(taken._tag, "AlreadyExists")
      assert.strictEqual(taken.message, "user already exists [name: ACME]")
      const clash = yield* Effect.flip(organizations.create(alice, { username: "alice" }))
      assert.strictEqual(clash.message, "user already exists [name: alice]")
    }))

  it.effect("organization bindings and permissions answer with Forgejo's texts", () =>
    Effect.gen(function*() {
      const bob = yield* newUser("bob", { allowCreateOrganization: false })
      const organizations = yield* Organizations
      const attempts: ReadonlyArray<Effect.Effect<unknown, { readonly message: string }>> = [
        organizations.create(bob, { username: "" }),
        organizations.create(bob, { username: "bad name" }),
        organizations.create(bob, { username: "okname", visibility: "notvalid" }),
        organizations.create(bob, { username: "okname", website: "not a url" }),
        organizations.create(bob, { username: "okname" }),
        organizations.createForUser(bob, { username: "okname" })
      ]
      const texts = yield* Effect.forEach(attempts, (attempt) => Effect.map(Effect.flip(attempt), (error) => error.message))
      assert.deepStrictEqual(texts, [
        "[UserName]: Required",
        "[UserName]: invalid username",
        "[Visibility]: In",
        "[Website]: Url",
        "%!s(<nil>)",
        "user is not allowed to create organizations"
      ])
      const admin = yield* newUser("root", { isAdmin: true, allowCreateOrganization: false })
      const reserved = yield* Effect.flip(organizations.create(admin, { username: "admin" }))
      assert.strictEqual(reserved.message, "name is reserved [name: admin]")
    }))

  it.effect("editing clears omitted text fields, keeps the e-mail unless sent, and checks it", () =>
    Effect.gen(function*() {
      const carol = yield* newUser("carol")
      const { organization } = yield* newOrg(carol, "editco")
      const organizations = yield* Organizations
      const edited = yield* organizations.edit(organization, { description: "d", email: "org@example.com", visibility: "private" })
      assert.strictEqual(edited.fullName, "")
      assert.strictEqual(edited.description, "d")
      assert.strictEqual(edited.email, "org@example.com")
      assert.strictEqual(edited.visibility, "private")
      const kept = yield* organizations.edit(edited, {})
      assert.strictEqual(kept.email, "org@example.com")
      assert.strictEqual(kept.visibility, "private")
      assert.strictEqual(kept.description, "")
      assert.strictEqual((yield* Effect.flip(organizations.edit(kept, { email: "invalid" }))).message, "e-mail invalid [email: invalid]")
      assert.strictEqual((yield* Effect.flip(organizations.edit(kept, { visibility: "x" }))).message, "[Visibility]: In")
      assert.strictEqual((yield* organizations.edit(kept, { email: "" })).email, "")
    }))

  it.effect("who sees which organization", () =>
    Effect.gen(function*() {
      const owner = yield* newUser("vowner")
      const stranger = yield* newUser("vstranger")
      const restricted = yield* newUser("vrestricted", { restricted: true })
      const admin = yield* newUser("vadmin", { isAdmin: true })
      yield* newOrg(owner, "v-public", "public")
      yield* newOrg(owner, "v-limited", "limited")
      yield* newOrg(owner, "v-private", "private")
      const organizations = yield* Organizations
      const visible = (viewer: Option.Option<User>) =>
        Effect.map(organizations.list(viewer, { page: firstPage, publicOnly: false }), (page) =>
          page.items.map((o) => o.name).filter((name) => name.startsWith("v-")))
      assert.deepStrictEqual(yield* visible(Option.none()), ["v-public"])
      assert.deepStrictEqual(yield* visible(Option.some(stranger)), ["v-limited", "v-public"])
      assert.deepStrictEqual(yield* visible(Option.some(restricted)), [])
      assert.deepStrictEqual(yield* visible(Option.some(admin)), ["v-limited", "v-private", "v-public"])

      const hidden = yield* Effect.flip(organizations.visibleByName(Option.some(stranger), "V-PRIVATE"))
      assert.strictEqual(hidden.message, "HasOrgOrUserVisible")
      const anonymous = yield* Effect.flip(organizations.visibleByName(Option.none(), "v-limited"))
      assert.strictEqual(anonymous.message, "HasOrgOrUserVisible")
      assert.strictEqual((yield* organizations.visibleByName(Option.some(owner), "v-private")).name, "v-private")
      const unknown = yield* Effect.flip(organizations.visibleByName(Option.some(admin), "nothing-here"))
      assert.strictEqual(unknown.message, "org does not exist [id: 0, name: nothing-here]")

      const own = yield* organizations.listForUser(Option.some(owner), owner, firstPage)
      assert.deepStrictEqual(own.items.map((o) => o.name), ["v-limited", "v-private", "v-public"])
      const others = yield* organizations.listForUser(Option.some(stranger), owner, firstPage)
      assert.deepStrictEqual(others.items, [])
      const members = yield* OrgMembers
      const publicOrg = yield* organizations.byName("v-public")
      yield* members.publicize(publicOrg, owner, owner)
      const afterPublicize = yield* organizations.listForUser(Option.some(stranger), owner, firstPage)
      assert.deepStrictEqual(afterPublicize.items.map((o) => o.name), ["v-public"])
    }))

  it.effect("team names are unique per organization, case-insensitively", () =>
    Effect.gen(function*() {
      const dave = yield* newUser("dave")
      const { organization } = yield* newOrg(dave, "teamco")
      const teams = yield* Teams
      const team1 = yield* teams.create(organization, { name: "Team1", permission: "write", units: ["repo.code"] })
      const duplicate = yield* Effect.flip(teams.create(organization, { name: "TEAM1", permission: "read", units: ["repo.code"] }))
      assert.strictEqual(duplicate._tag, "AlreadyExists")
      assert.strictEqual(duplicate.message, `team already exists [org_id: ${organization.id}, name: team1]`)
      const owners = yield* Effect.flip(teams.create(organization, { name: "owners", permission: "read", units: ["repo.code"] }))
      assert.strictEqual(owners.message, `team already exists [org_id: ${organization.id}, name: owners]`)
      const { organization: other } = yield* newOrg(dave, "teamco2")
      assert.strictEqual((yield* teams.create(other, { name: "team1", permission: "read", units: ["repo.code"] })).name, "team1")
      const renamed = yield* Effect.flip(teams.edit(
        yield* teams.create(organization, { name: "team2", permission: "read", units: ["repo.code"] }),
        { name: "tEaM1" }
      ))
      assert.strictEqual(renamed.message, `team already exists [org_id: ${organization.id}, name: team1]`)
      assert.strictEqual((yield* Effect.flip(teams.create(organization, { name: "new", units: ["repo.code"] }))).message, "name is reserved [name: new]")

      const edited = yield* teams.edit(team1, {
        permission: "write",
        unitsMap: { "repo.code": "read", "repo.issues": "write", "repo.wiki": "none" }
      })
      assert.strictEqual(edited.permission, "read")
      assert.deepStrictEqual(yield* teams.byId(team1.id), edited)
      const listed = yield* teams.list(organization, firstPage)
      assert.deepStrictEqual(listed.items.map((t) => t.name), ["Owners", "Team1", "team2"])
      assert.strictEqual(listed.total, 3)
    }))

  it.effect("the last owner can neither leave the Owners team nor be removed from the organization", () =>
    Effect.gen(function*() {
      const erin = yield* newUser("erin")
      const frank = yield* newUser("frank")
      const { organization, ownerTeam } = yield* newOrg(erin, "ownerco")
      const teams = yield* Teams
      const members = yield* OrgMembers
      const last = `user is the last member of owner team [uid: ${erin.id}]`
      assert.deepStrictEqual((yield* Effect.flip(teams.removeMember(ownerTeam, erin))).message, last)
      assert.deepStrictEqual((yield* Effect.flip(members.remove(organization, erin))).message, last)
      assert.isTrue(yield* members.isOwner(organization.id, erin.id))

      yield* teams.addMember(ownerTeam, frank)
      yield* teams.removeMember(ownerTeam, erin)
      assert.isFalse(yield* members.isMember(organization.id, erin.id))
      assert.strictEqual(
        (yield* Effect.flip(members.remove(organization, frank))).message,
        `user is the last member of owner team [uid: ${frank.id}]`
      )
      // Removing a non-member is a no-op, as in Forgejo.
      yield* members.remove(organization, erin)
      yield* teams.removeMember(ownerTeam, erin)
    }))

  it.effect("two owners leaving at once: exactly one of them may go", () =>
    Effect.gen(function*() {
      const uma = yield* newUser("uma")
      const vic = yield* newUser("vic")
      const { organization, ownerTeam } = yield* newOrg(uma, "raceco")
      const teams = yield* Teams
      yield* teams.addMember(ownerTeam, vic)
      const exits = yield* Effect.all([
        Effect.exit(teams.removeMember(ownerTeam, uma)),
        Effect.exit(teams.removeMember(ownerTeam, vic))
      ], { concurrency: 2 })
      assert.strictEqual(exits.filter(Exit.isSuccess).length, 1)
      assert.strictEqual(yield* count("SELECT count(*) AS n FROM team_users WHERE team_id = $1", ownerTeam.id), 1)
      assert.strictEqual(yield* count("SELECT count(*) AS n FROM org_users WHERE org_id = $1", organization.id), 1)
    }))

  it.effect("ten concurrent joins of one user leave one team row and one membership row", () =>
    Effect.gen(function*() {
      const gina = yield* newUser("gina")
      const hank = yield* newUser("hank")
      const { organization } = yield* newOrg(gina, "joinco")
      const teams = yield* Teams
      const team = yield* teams.create(organization, { name: "joiners", permission: "read", units: ["repo.code"] })
      yield* Effect.all(Array.from({ length: 10 }, () => teams.addMember(team, hank)), { concurrency: "unbounded" })
      assert.strictEqual(yield* count("SELECT count(*) AS n FROM team_users WHERE team_id = $1 AND user_id = $2", team.id, hank.id), 1)
      assert.strictEqual(yield* count("SELECT count(*) AS n FROM org_users WHERE org_id = $1 AND user_id = $2", organization.id, hank.id), 1)
      assert.strictEqual((yield* teams.members(team, firstPage)).total, 1)
    }))

  it.effect("membership follows teams: leaving or deleting the last team ends it", () =>
    Effect.gen(function*() {
      const ida = yield* newUser("ida")
      const jack = yield* newUser("jack")
      const { organization } = yield* newOrg(ida, "memberco")
      const teams = yield* Teams
      const members = yield* OrgMembers
      const a = yield* teams.create(organization, { name: "a", permission: "read", units: ["repo.code"] })
      const b = yield* teams.create(organization, { name: "b", permission: "read", units: ["repo.code"] })
      yield* teams.addMember(a, jack)
      yield* teams.addMember(b, jack)
      yield* teams.removeMember(a, jack)
      assert.isTrue(yield* members.isMember(organization.id, jack.id))
      yield* teams.remove(b)
      assert.isFalse(yield* members.isMember(organization.id, jack.id))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(teams.byId(b.id))))
      yield* teams.addMember(a, jack)
      yield* members.remove(organization, jack)
      assert.isFalse(yield* teams.isMember(a, jack.id))
    }))

  it.effect("public membership: members change only their own, others see public members only", () =>
    Effect.gen(function*() {
      const kate = yield* newUser("kate")
      const liam = yield* newUser("liam")
      const outsider = yield* newUser("outsider")
      const admin = yield* newUser("padmin", { isAdmin: true })
      const { organization, ownerTeam } = yield* newOrg(kate, "pubco", "private")
      const teams = yield* Teams
      const members = yield* OrgMembers
      yield* teams.addMember(ownerTeam, liam)
      const denied = yield* Effect.flip(members.publicize(organization, kate, liam))
      assert.strictEqual(denied.message, "Cannot publicize another member")
      assert.strictEqual((yield* Effect.flip(members.conceal(organization, kate, liam))).message, "Cannot conceal another member")
      assert.strictEqual((yield* Effect.flip(members.publicize(organization, outsider, outsider))).message, "Must be an organization member")
      yield* members.publicize(organization, liam, liam)
      assert.isTrue(yield* members.isPublicMember(organization.id, liam.id))
      assert.deepStrictEqual((yield* members.listPublic(organization, firstPage)).items.map((u) => u.name), ["liam"])
      assert.deepStrictEqual((yield* members.list(organization, outsider, firstPage)).items.map((u) => u.name), ["liam"])
      assert.deepStrictEqual((yield* members.list(organization, admin, firstPage)).items.map((u) => u.name), ["kate", "liam"])
      assert.strictEqual(yield* members.membership(organization, kate, liam), "member")
      assert.strictEqual(yield* members.membership(organization, outsider, liam), "askPublicMembers")
      assert.strictEqual(yield* members.membership(organization, outsider, outsider), "notMember")
      assert.strictEqual(yield* members.membership(organization, admin, outsider), "notMember")
      yield* members.conceal(organization, liam, liam)
      assert.isFalse(yield* members.isPublicMember(organization.id, liam.id))
    }))

  it.effect("gates: owners, members, team members and strangers", () =>
    Effect.gen(function*() {
      const mia = yield* newUser("mia")
      const ned = yield* newUser("ned")
      const oli = yield* newUser("oli")
      const admin = yield* newUser("gadmin", { isAdmin: true })
      const { organization, ownerTeam } = yield* newOrg(mia, "gateco")
      const teams = yield* Teams
      const members = yield* OrgMembers
      const devs = yield* teams.create(organization, { name: "devs", permission: "write", units: ["repo.code"] })
      yield* teams.addMember(devs, ned)
      yield* members.requireOwner(mia, organization)
      yield* members.requireOwner(admin, organization)
      assert.strictEqual((yield* Effect.flip(members.requireOwner(ned, organization))).message, "Must be an organization owner")
      yield* members.requireMember(ned, organization)
      assert.strictEqual((yield* Effect.flip(members.requireMember(oli, organization))).message, "Must be an organization member")
      yield* members.requireTeamAccess(ned, devs)
      yield* members.requireTeamAccess(mia, devs)
      const notInTeam = yield* Effect.flip(members.requireTeamAccess(ned, ownerTeam))
      assert.strictEqual(notInTeam._tag, "Forbidden")
      assert.strictEqual(notInTeam.message, "Must be a team member")
      assert.strictEqual((yield* Effect.flip(members.requireTeamAccess(oli, devs)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(members.requireTeamOwner(ned, devs)))._tag, "NotFound")
    }))

  it.effect("teams covering a repository: all repositories, or listed", () =>
    Effect.gen(function*() {
      const pat = yield* newUser("pat")
      const quinn = yield* newUser("quinn")
      const { organization } = yield* newOrg(pat, "repoco")
      const teams = yield* Teams
      const all = yield* teams.create(organization, { name: "all", permission: "read", includesAllRepositories: true, units: ["repo.code"] })
      const listed = yield* teams.create(organization, { name: "listed", permission: "write", units: ["repo.code"] })
      yield* teams.addMember(all, quinn)
      yield* teams.addMember(listed, quinn)
      yield* teams.addRepository(listed, 42)
      yield* teams.addRepository(listed, 42)
      assert.deepStrictEqual((yield* teams.coveringTeams(organization.id, quinn.id, 42)).map((t) => t.name), ["all", "listed"])
      assert.deepStrictEqual((yield* teams.coveringTeams(organization.id, quinn.id, 43)).map((t) => t.name), ["all"])
      assert.deepStrictEqual(yield* teams.repositoryIds(listed, firstPage), { items: [42], total: 1 })
      assert.isTrue(yield* teams.hasRepository(all, 43))
      yield* teams.removeRepository(listed, 42)
      assert.isFalse(yield* teams.hasRepository(listed, 42))
    }))

  it.effect("deleting an organization is refused by a guard, and otherwise removes its teams and memberships", () =>
    Effect.gen(function*() {
      const rose = yield* newUser("rose")
      const { organization } = yield* newOrg(rose, "deleteco")
      const organizations = yield* Organizations
      const ownsRepos = (org: User) => Effect.succeed(Option.some(ownsRepositoriesMessage(org.id)))
      const refused = yield* Effect.flip(
        organizations.remove(organization).pipe(Effect.provideService(OrganizationDeletionGuards, [ownsRepos]))
      )
      assert.strictEqual(refused._tag, "Conflict")
      assert.strictEqual(refused.message, `user still has ownership of repositories [uid: ${organization.id}]`)
      assert.strictEqual((yield* organizations.byName("deleteco")).id, organization.id)
      assert.isTrue(Option.isSome(yield* organizations.membershipGuard(rose)))

      yield* organizations.remove(organization)
      assert.strictEqual((yield* Effect.flip(organizations.byName("deleteco")))._tag, "NotFound")
      assert.strictEqual(yield* count("SELECT count(*) AS n FROM teams WHERE org_id = $1", organization.id), 0)
      assert.strictEqual(yield* count("SELECT count(*) AS n FROM org_users WHERE org_id = $1", organization.id), 0)
      assert.isTrue(Option.isNone(yield* organizations.membershipGuard(rose)))
    }))

  it.effect("webhooks round trip; the secret is stored but never returned", () =>
    Effect.gen(function*() {
      const sam = yield* newUser("sam")
      const { organization } = yield* newOrg(sam, "hookco")
      const { organization: other } = yield* newOrg(sam, "hookco2")
      const orgScope = { kind: "owner", ownerId: organization.id } as const
      const otherScope = { kind: "owner", ownerId: other.id } as const
      const hooks = yield* Webhooks
      const created = yield* hooks.create(orgScope, {
        type: "gitea",
        config: { url: "https://example.com/hook", content_type: "json", secret: "top-secret" },
        events: ["issues", "push"],
        branchFilter: "{main,release/*}",
        authorizationHeader: "Bearer abc",
        active: true
      })
      assert.notInclude(JSON.stringify(created), "top-secret")
      assert.deepStrictEqual(yield* hooks.get(orgScope, created.id), created)
      const store = yield* WebhookStore
      assert.deepStrictEqual(yield* store.secretOf(created.id), Option.some("top-secret"))
      assert.strictEqual((yield* Effect.flip(hooks.get(otherScope, created.id)))._tag, "NotFound")

      const edited = yield* hooks.edit(orgScope, created.id, { config: { content_type: "form" } })
      assert.deepStrictEqual(edited.events, ["push"])
      assert.strictEqual(edited.contentType, "form")
      assert.strictEqual(edited.branchFilter, "")
      assert.strictEqual(edited.authorizationHeader, "")
      assert.isTrue(edited.active)
      assert.notInclude(JSON.stringify(edited), "top-secret")
      assert.deepStrictEqual(yield* store.secretOf(created.id), Option.some("top-secret"))

      const slack = yield* hooks.create(orgScope, {
        type: "slack",
        config: { url: "https://hooks.slack.com/x", content_type: "json", channel: " #general ", username: "bot" }
      })
      assert.deepStrictEqual(slack.slack, { channel: "#general", username: "bot", iconUrl: "", color: "" })
      assert.isFalse(slack.active)
      const listed = yield* hooks.list(orgScope, firstPage)
      assert.deepStrictEqual(listed.items.map((h) => h.id), [created.id, slack.id])
      assert.strictEqual(listed.total, 2)
      yield* hooks.remove(orgScope, created.id)
      assert.strictEqual((yield* Effect.flip(hooks.remove(orgScope, created.id))).message, `webhook does not exist [id: ${created.id}]`)
      assert.strictEqual((yield* Effect.flip(hooks.edit(orgScope, created.id, {})))._tag, "NotFound")
    }))
})
