import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { addToTeam, createOrg, createTeam, logins, ownersTeamId } from "../support/OrgFixtures.ts"
import { admin, at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`
const notFound = { message: "The target couldn't be found.", url: errorUrl, errors: [] }
const plain = (message: string) => ({ message, url: errorUrl })
const tokenRequired = { message: "token is required", url: errorUrl }

/** An organization "Crew" owned by `owner`, with `member` in a team, and an outsider. */
const crew = (prefix: string) =>
  Effect.gen(function*() {
    const owner = yield* createUser(`${prefix}-owner`)
    const member = yield* createUser(`${prefix}-member`)
    const outsider = yield* createUser(`${prefix}-outsider`)
    const org = `${prefix}-Crew`
    yield* createOrg(owner.auth, org)
    const team = yield* createTeam(owner.auth, org, { name: "devs", permission: "read", units: ["repo.code"] })
    yield* addToTeam(owner.auth, team, `${prefix}-member`)
    return { owner, member, outsider, org, team }
  })

layer(TestServer.layer(), { timeout: "120 seconds" })("organization members", (it) => {
  it.effect("lists every member to members and admins, public members to others, none to anonymous callers", () =>
    Effect.gen(function*() {
      const { owner, member, outsider, org } = yield* crew("list")
      const anonymous = yield* request("GET", `/api/v1/orgs/${org}/members`)
      assert.deepStrictEqual([anonymous.status, anonymous.body], [401, tokenRequired])
      for (const auth of [owner.auth, member.auth, admin]) {
        const all = yield* request("GET", `/api/v1/orgs/${org}/members`, { auth })
        assert.deepStrictEqual(logins(all.body), ["list-member", "list-owner"])
        assert.strictEqual(all.headers.get("x-total-count"), "2")
      }
      // Memberships start private: an outsider sees nobody, until one is made public.
      assert.deepStrictEqual((yield* request("GET", `/api/v1/orgs/${org}/members`, { auth: outsider.auth })).body, [])
      assert.strictEqual((yield* request("PUT", `/api/v1/orgs/${org}/public_members/list-member`, { auth: member.auth })).status, 204)
      const visible = yield* request("GET", `/api/v1/orgs/${org}/members`, { auth: outsider.auth })
      assert.deepStrictEqual(logins(visible.body), ["list-member"])
      assert.strictEqual(visible.headers.get("x-total-count"), "1")
      // Users are rendered for the viewer: the member's own e-mail shows to signed-in callers.
      assert.strictEqual(at(visible.body, 0, "email"), "list-member@example.com")
      assert.strictEqual(at(visible.body, 0, "is_admin"), false)

      const publicList = yield* request("GET", `/api/v1/orgs/${org}/public_members`)
      assert.strictEqual(publicList.status, 200)
      assert.deepStrictEqual(logins(publicList.body), ["list-member"])
      assert.strictEqual(at(publicList.body, 0, "email"), "list-member@noreply.kiln.test")
      assert.strictEqual(publicList.headers.get("x-total-count"), "1")
    }))

  it.effect("answers membership checks with 204, 404 or a 303 to the public membership (api-facts §5.2)", () =>
    Effect.gen(function*() {
      const { owner, member, outsider, org } = yield* crew("check")
      const check = (auth: TestServer.Auth | undefined, username: string) => request("GET", `/api/v1/orgs/${org}/members/${username}`, { auth })

      const yes = yield* check(member.auth, "check-owner")
      assert.deepStrictEqual([yes.status, yes.text], [204, ""])
      const no = yield* check(owner.auth, "check-outsider")
      assert.deepStrictEqual([no.status, no.body], [404, notFound])
      assert.strictEqual((yield* check(admin, "check-member")).status, 204)
      assert.strictEqual((yield* check(admin, "check-outsider")).status, 404)
      // A non-member asking about themself learns only that they are no member.
      assert.deepStrictEqual((yield* check(outsider.auth, "check-outsider")).body, notFound)
      // ... and about anyone else is sent to the public membership.
      const redirected = yield* check(outsider.auth, "CHECK-member")
      assert.strictEqual(redirected.status, 303)
      assert.strictEqual(redirected.headers.get("location"), `/api/v1/orgs/check-Crew/public_members/check-member`)
      // The user is looked up first.
      assert.strictEqual((yield* check(outsider.auth, "nobody")).status, 404)
      const unknown = yield* check(member.auth, "nobody")
      assert.deepStrictEqual(unknown.body, { message: "GetUserByName", url: errorUrl, errors: ["user does not exist [uid: 0, name: nobody]"] })
      assert.deepStrictEqual((yield* check(undefined, "check-owner")).body, tokenRequired)

      const isPublic = (username: string) => request("GET", `/api/v1/orgs/${org}/public_members/${username}`)
      const notYet = yield* isPublic("check-member")
      assert.deepStrictEqual([notYet.status, notYet.body], [404, notFound])
      assert.strictEqual((yield* request("PUT", `/api/v1/orgs/${org}/public_members/check-member`, { auth: member.auth })).status, 204)
      const now = yield* isPublic("check-member")
      assert.deepStrictEqual([now.status, now.text], [204, ""])
      assert.strictEqual((yield* isPublic("check-outsider")).status, 404)
    }))

  it.effect("lets only the member themself publicize or conceal their membership, site admins included", () =>
    Effect.gen(function*() {
      const { owner, member, outsider, org } = yield* crew("pub")
      const path = (username: string) => `/api/v1/orgs/${org}/public_members/${username}`
      assert.deepStrictEqual((yield* request("PUT", path("pub-member"))).body, tokenRequired)
      assert.deepStrictEqual((yield* request("DELETE", path("pub-member"))).body, tokenRequired)
      const stranger = yield* request("PUT", path("pub-outsider"), { auth: outsider.auth })
      assert.deepStrictEqual([stranger.status, stranger.body], [403, plain("Must be an organization member")])
      const other = yield* request("PUT", path("pub-member"), { auth: owner.auth })
      assert.deepStrictEqual([other.status, other.body], [403, plain("Cannot publicize another member")])
      const conceal = yield* request("DELETE", path("pub-member"), { auth: owner.auth })
      assert.deepStrictEqual([conceal.status, conceal.body], [403, plain("Cannot conceal another member")])
      // Site admins are refused too (Forgejo compares the user with the doer, nothing else).
      const byAdmin = yield* request("PUT", path("pub-member"), { auth: admin })
      assert.deepStrictEqual([byAdmin.status, byAdmin.body], [403, plain("Cannot publicize another member")])
      assert.strictEqual((yield* request("GET", path("pub-member"))).status, 404)
      const concealByAdmin = yield* request("DELETE", path("pub-member"), { auth: admin })
      assert.deepStrictEqual([concealByAdmin.status, concealByAdmin.body], [403, plain("Cannot conceal another member")])
      const unknown = yield* request("PUT", path("nobody"), { auth: member.auth })
      assert.strictEqual(unknown.status, 404)

      assert.strictEqual((yield* request("PUT", path("pub-member"), { auth: member.auth })).status, 204)
      assert.strictEqual((yield* request("PUT", path("pub-member"), { auth: member.auth })).status, 204)
      assert.strictEqual((yield* request("GET", path("pub-member"))).status, 204)
      const concealed = yield* request("DELETE", path("pub-member"), { auth: member.auth })
      assert.deepStrictEqual([concealed.status, concealed.text], [204, ""])
      assert.strictEqual((yield* request("GET", path("pub-member"))).status, 404)
    }))

  it.effect("removes members (owners only) but never the last owner", () =>
    Effect.gen(function*() {
      const { owner, member, outsider, org } = yield* crew("rm")
      const remove = (auth: TestServer.Auth | undefined, username: string) => request("DELETE", `/api/v1/orgs/${org}/members/${username}`, { auth })
      assert.deepStrictEqual((yield* remove(undefined, "rm-member")).body, tokenRequired)
      assert.deepStrictEqual((yield* remove(member.auth, "rm-owner")).body, plain("Must be an organization owner"))
      assert.deepStrictEqual((yield* remove(outsider.auth, "rm-member")).body, plain("Must be an organization owner"))

      const last = yield* remove(owner.auth, "rm-owner")
      assert.strictEqual(last.status, 422)
      assert.deepStrictEqual(last.body, plain(`user is the last member of owner team [uid: ${String(at(owner.user, "id"))}]`))
      assert.strictEqual((yield* remove(admin, "rm-owner")).status, 422)

      // A non-member: nothing to do.
      assert.strictEqual((yield* remove(owner.auth, "rm-outsider")).status, 204)
      const removed = yield* remove(owner.auth, "rm-member")
      assert.deepStrictEqual([removed.status, removed.text], [204, ""])
      assert.deepStrictEqual(logins((yield* request("GET", `/api/v1/orgs/${org}/members`, { auth: owner.auth })).body), ["rm-owner"])
      // Gone from the organization's teams too, and no longer a member for the team gate.
      assert.strictEqual((yield* request("GET", `/api/v1/orgs/${org}/teams`, { auth: member.auth })).status, 403)

      // With a second owner, the first may go.
      const owners = yield* ownersTeamId(owner.auth, org)
      yield* addToTeam(owner.auth, owners, "rm-outsider")
      assert.strictEqual((yield* remove(outsider.auth, "rm-owner")).status, 204)
      assert.deepStrictEqual(logins((yield* request("GET", `/api/v1/orgs/${org}/members`, { auth: outsider.auth })).body), ["rm-outsider"])
      const unknown = yield* remove(outsider.auth, "nobody")
      assert.deepStrictEqual(unknown.body, { message: "GetUserByName", url: errorUrl, errors: ["user does not exist [uid: 0, name: nobody]"] })
    }))
})
