import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { admin, at, basic, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { askedTwiceByEach } from "./KeptAnswers.ts"

const errorUrl = `${ROOT_URL}api/swagger`

/** A real key pair from ssh-keygen, with the fingerprint ssh-keygen prints. */
const sshKey = (type: "ed25519" | "ecdsa", comment: string) => {
  const dir = mkdtempSync(join(tmpdir(), "kiln-key-"))
  const file = join(dir, "key")
  execFileSync("ssh-keygen", ["-q", "-t", type, "-N", "", "-C", comment, "-f", file])
  const publicKey = readFileSync(`${file}.pub`, "utf8").trim()
  const fingerprint = execFileSync("ssh-keygen", ["-lf", `${file}.pub`], { encoding: "utf8" }).split(" ")[1]
  return { publicKey, fingerprint }
}

layer(TestServer.layer(), { timeout: "120 seconds" })("users, tokens and keys", (it) => {
  it.effect("serves the version without authentication", () =>
    Effect.gen(function*() {
      const response = yield* request("GET", "/api/v1/version")
      assert.strictEqual(response.status, 200)
      assert.match(String(at(response.body, "version")), /^\d+\.\d+\.\d+/)
    }))

  it.effect("normalises paths and answers unknown routes with JSON 404", () =>
    Effect.gen(function*() {
      assert.strictEqual((yield* request("GET", "/api/v1/version/")).status, 200)
      assert.strictEqual((yield* request("GET", "/api/v1//version")).status, 200)
      const unknown = yield* request("GET", "/api/v1/no/such/route")
      assert.strictEqual(unknown.status, 404)
      assert.deepStrictEqual(unknown.body, { message: "The target couldn't be found.", url: errorUrl, errors: [] })
    }))

  it.effect("shows users by name case-insensitively, hiding private fields from others", () =>
    Effect.gen(function*() {
      const dora = yield* createUser("Dora")
      const other = yield* createUser("eve")
      const anonymous = yield* request("GET", "/api/v1/users/DORA")
      assert.strictEqual(anonymous.status, 200)
      assert.strictEqual(at(anonymous.body, "login"), "Dora")
      assert.strictEqual(at(anonymous.body, "email"), "dora@noreply.kiln.test")
      assert.strictEqual(at(anonymous.body, "login_name"), "")
      assert.strictEqual(at(anonymous.body, "last_login"), "0001-01-01T00:00:00Z")
      const signedIn = yield* request("GET", "/api/v1/users/dora", { auth: other.auth })
      assert.strictEqual(at(signedIn.body, "email"), "Dora@example.com")
      assert.strictEqual(at(signedIn.body, "is_admin"), false)
      const self = yield* request("GET", "/api/v1/user", { auth: dora.auth })
      // Created without `login_name`: Forgejo keeps none (issue 27).
      assert.strictEqual(at(self.body, "login_name"), "")
      assert.strictEqual(at(self.body, "last_login"), "1970-01-01T00:00:00Z")
      const unknown = yield* request("GET", "/api/v1/users/nobody")
      assert.strictEqual(unknown.status, 404)
      assert.deepStrictEqual(unknown.body, { message: "user does not exist [uid: 0, name: nobody]", url: errorUrl })
    }))

  it.effect("answers each viewer of an account with their own view whatever it answered before, and every change at once", () =>
    Effect.gen(function*() {
      // Answers are kept per account and kind of viewer (UserAnswers.ts): a cache that served one
      // viewer's answer to another, or outlived a change, would show here.
      const owner = yield* createUser("Tilda")
      const stranger = yield* createUser("ursula")
      const path = "/api/v1/users/tilda"
      const callers = [
        { auth: undefined, email: "tilda@noreply.kiln.test", loginName: "" },
        { auth: stranger.auth, email: "Tilda@example.com", loginName: "" },
        { auth: owner.auth, email: "Tilda@example.com", loginName: "tilda-login" },
        { auth: admin, email: "Tilda@example.com", loginName: "tilda-login" }
      ]
      const named = yield* request("PATCH", "/api/v1/admin/users/tilda", { auth: admin, json: { login_name: "tilda-login", source_id: 0 } })
      assert.strictEqual(named.status, 200, named.text)
      const get = (auth: TestServer.Auth | undefined) => request("GET", path, auth === undefined ? {} : { auth })
      yield* askedTwiceByEach(path, callers, (answer, caller, label) => {
        assert.strictEqual(at(answer.body, "email"), caller.email, label)
        assert.strictEqual(at(answer.body, "login_name"), caller.loginName, label)
        assert.isFalse(Number.isNaN(Date.parse(answer.headers.get("last-modified") ?? "")), label)
      })

      // Changes: every viewer sees each at once.
      const renamed = yield* request("PATCH", "/api/v1/admin/users/tilda", { auth: admin, json: { full_name: "Tilda Owner" } })
      assert.strictEqual(renamed.status, 200, renamed.text)
      for (const caller of callers) assert.strictEqual(at((yield* get(caller.auth)).body, "full_name"), "Tilda Owner")
      const promoted = yield* request("PATCH", "/api/v1/admin/users/tilda", { auth: admin, json: { admin: true } })
      assert.strictEqual(promoted.status, 200, promoted.text)
      for (const caller of callers) {
        assert.strictEqual(at((yield* get(caller.auth)).body, "is_admin"), caller.loginName !== "", caller.email)
      }
    }))

  it.effect("hides private users from strangers and limited users from anonymous callers", () =>
    Effect.gen(function*() {
      yield* createUser("hidden", { visibility: "private" })
      yield* createUser("semi", { visibility: "limited" })
      const stranger = yield* createUser("stranger")
      assert.strictEqual((yield* request("GET", "/api/v1/users/hidden", { auth: stranger.auth })).status, 404)
      assert.strictEqual((yield* request("GET", "/api/v1/users/hidden", { auth: admin })).status, 200)
      assert.strictEqual((yield* request("GET", "/api/v1/users/semi")).status, 404)
      assert.strictEqual((yield* request("GET", "/api/v1/users/semi", { auth: stranger.auth })).status, 200)
      const search = yield* request("GET", "/api/v1/users/search?q=e")
      const logins = (at(search.body, "data") as Array<unknown>).map((u) => at(u, "login"))
      assert.notInclude(logins, "hidden")
      assert.notInclude(logins, "semi")
      assert.strictEqual(at(search.body, "ok"), true)
      assert.strictEqual(search.headers.get("x-total-count"), String(logins.length))
    }))

  it.effect("issues, lists and revokes access tokens (TOK-01 … TOK-05)", () =>
    Effect.gen(function*() {
      const frank = yield* createUser("frank")
      const created = yield* request("POST", "/api/v1/users/frank/tokens", { auth: frank.auth, json: { name: "test-key-1", scopes: ["all"] } })
      assert.strictEqual(created.status, 201)
      const secret = String(at(created.body, "sha1"))
      assert.match(secret, /^[0-9a-f]{40}$/)
      assert.strictEqual(at(created.body, "token_last_eight"), secret.slice(-8))
      assert.deepStrictEqual(at(created.body, "scopes"), ["all"])

      const viaToken = yield* request("GET", "/api/v1/user", { auth: { token: secret } })
      assert.strictEqual(at(viaToken.body, "login"), "frank")
      const viaBasicToken = yield* request("GET", "/api/v1/user", { auth: basic(secret, "") })
      assert.strictEqual(at(viaBasicToken.body, "login"), "frank")

      const duplicate = yield* request("POST", "/api/v1/users/frank/tokens", { auth: frank.auth, json: { name: "test-key-1", scopes: ["all"] } })
      assert.strictEqual(duplicate.status, 400)
      assert.strictEqual(at(duplicate.body, "message"), "access token name has been used already")
      const badScope = yield* request("POST", "/api/v1/users/frank/tokens", { auth: frank.auth, json: { name: "x", scopes: ["read:everything"] } })
      assert.strictEqual(badScope.status, 400)
      assert.strictEqual(at(badScope.body, "message"), "invalid access token scope provided: invalid access token scope: read:everything")
      const noScope = yield* request("POST", "/api/v1/users/frank/tokens", { auth: frank.auth, json: { name: "y" } })
      assert.strictEqual(at(noScope.body, "message"), "access token must have a scope")
      const normalised = yield* request("POST", "/api/v1/users/frank/tokens", {
        auth: frank.auth,
        json: { name: "norm", scopes: ["read:user", "write:user", "read:repository", "read:repository"] }
      })
      assert.deepStrictEqual(at(normalised.body, "scopes"), ["read:repository", "write:user"])

      const plainToken = yield* request("POST", "/api/v1/users/frank/tokens", { auth: { token: secret }, json: { name: "z", scopes: ["all"] } })
      assert.strictEqual(plainToken.status, 401)
      assert.strictEqual(at(plainToken.body, "message"), "auth required")
      // A token can never mint, list or revoke tokens, however it is presented and whatever its scopes.
      const scoped = yield* createToken(frank.auth, "frank", "scoped", ["public-only", "write:user"])
      for (const tokenAuth of [basic("frank", scoped), basic(scoped, ""), basic(scoped, "x-oauth-basic"), basic("frank", secret), { bearer: secret }]) {
        const minted = yield* request("POST", "/api/v1/users/frank/tokens", { auth: tokenAuth, json: { name: "escalated", scopes: ["all"] } })
        assert.strictEqual(minted.status, 401, minted.text)
        assert.deepStrictEqual(minted.body, { message: "auth required", url: `${ROOT_URL}api/swagger` })
        assert.strictEqual((yield* request("GET", "/api/v1/users/frank/tokens", { auth: tokenAuth })).status, 401)
        assert.strictEqual((yield* request("DELETE", "/api/v1/users/frank/tokens/norm", { auth: tokenAuth })).status, 401)
      }
      assert.strictEqual((yield* request("DELETE", "/api/v1/users/frank/tokens/scoped", { auth: frank.auth })).status, 204)

      const listed = yield* request("GET", "/api/v1/users/frank/tokens", { auth: frank.auth })
      assert.strictEqual(listed.status, 200)
      assert.deepStrictEqual((listed.body as Array<unknown>).map((t) => at(t, "sha1")), ["", ""])
      assert.strictEqual(listed.headers.get("x-total-count"), "2")

      const stranger = yield* createUser("grace")
      assert.strictEqual((yield* request("GET", "/api/v1/users/frank/tokens", { auth: stranger.auth })).status, 403)
      assert.strictEqual((yield* request("GET", "/api/v1/users/frank/tokens")).status, 403)
      assert.strictEqual((yield* request("GET", "/api/v1/users/frank/tokens", { auth: admin })).status, 200)
      assert.strictEqual((yield* request("DELETE", "/api/v1/users/frank/tokens/test-key-1", { auth: stranger.auth })).status, 403)

      const revoked = yield* request("DELETE", "/api/v1/users/frank/tokens/test-key-1", { auth: frank.auth })
      assert.strictEqual(revoked.status, 204)
      const afterRevoke = yield* request("GET", "/api/v1/user", { auth: { token: secret } })
      assert.strictEqual(afterRevoke.status, 401)
      assert.include(String(at(afterRevoke.body, "message")), "user does not exist")
      assert.strictEqual((yield* request("DELETE", "/api/v1/users/frank/tokens/999999", { auth: frank.auth })).status, 404)
      const wrong = yield* request("GET", "/api/v1/user", { auth: { bearer: "wrong_token" } })
      assert.strictEqual(wrong.status, 401)
      assert.include(String(at(wrong.body, "message")), "user does not exist")
    }))

  it.effect("lets site admins act as another user with Sudo, and nobody else (ADM-04, ADM-05)", () =>
    Effect.gen(function*() {
      const henry = yield* createUser("henry")
      const asHenry = yield* request("GET", "/api/v1/user?sudo=henry", { auth: admin })
      assert.strictEqual(at(asHenry.body, "login"), "henry")
      const header = yield* request("GET", "/api/v1/user", { auth: admin, headers: { sudo: "henry" } })
      assert.strictEqual(at(header.body, "login"), "henry")
      const refused = yield* request("GET", "/api/v1/user?sudo=root", { auth: henry.auth })
      assert.strictEqual(refused.status, 403)
      assert.deepStrictEqual(refused.body, { message: "Only administrators allowed to sudo." })
      assert.strictEqual((yield* request("GET", "/api/v1/user?sudo=nobody", { auth: admin })).status, 404)
      const token = yield* createToken(admin, "root", "sudo-read-user", ["read:user"])
      const viaToken = yield* request("GET", "/api/v1/user?sudo=henry", { auth: { token } })
      assert.strictEqual(at(viaToken.body, "login"), "henry")
    }))

  it.effect("refuses prohibited accounts with 403", () =>
    Effect.gen(function*() {
      const ivan = yield* createUser("ivan")
      yield* request("PATCH", "/api/v1/admin/users/ivan", { auth: admin, json: { prohibit_login: true } })
      const refused = yield* request("GET", "/api/v1/user", { auth: ivan.auth })
      assert.strictEqual(refused.status, 403)
      assert.deepStrictEqual(refused.body, {
        message: "This account is prohibited from signing in, please contact your site administrator."
      })
    }))

  it.effect("applies changes to a token's account at once, although token sign-ins are remembered", () =>
    Effect.gen(function*() {
      yield* createUser("judy")
      const token = yield* createToken(admin, "judy", "judy-all", ["all"])
      const asJudy = { auth: { token } }
      assert.strictEqual((yield* request("GET", "/api/v1/user", asJudy)).status, 200)
      assert.strictEqual((yield* request("GET", "/api/v1/admin/users", asJudy)).status, 403)

      yield* request("PATCH", "/api/v1/admin/users/judy", { auth: admin, json: { admin: true } })
      assert.strictEqual((yield* request("GET", "/api/v1/admin/users", asJudy)).status, 200)
      yield* request("PATCH", "/api/v1/admin/users/judy", { auth: admin, json: { prohibit_login: true } })
      assert.strictEqual((yield* request("GET", "/api/v1/user", asJudy)).status, 403)
      yield* request("PATCH", "/api/v1/admin/users/judy", { auth: admin, json: { prohibit_login: false, full_name: "Judy H" } })
      assert.strictEqual(at((yield* request("GET", "/api/v1/user", asJudy)).body, "full_name"), "Judy H")

      assert.strictEqual((yield* request("DELETE", "/api/v1/admin/users/judy", { auth: admin })).status, 204)
      assert.strictEqual((yield* request("GET", "/api/v1/user", asJudy)).status, 401)
    }))

  it.effect("adds, lists and deletes SSH keys (ADM-01 … ADM-03, P)", () =>
    Effect.gen(function*() {
      const judy = yield* createUser("judy")
      const key = sshKey("ed25519", "judy@laptop")
      const created = yield* request("POST", "/api/v1/admin/users/judy/keys", { auth: admin, form: { key: `${key.publicKey}\n`, title: "test-key" } })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(at(created.body, "fingerprint"), key.fingerprint)
      assert.strictEqual(at(created.body, "title"), "test-key")
      assert.strictEqual(at(created.body, "key"), key.publicKey)
      assert.strictEqual(at(created.body, "key_type"), "user")
      assert.strictEqual(at(created.body, "user", "login"), "judy")
      const id = Number(at(created.body, "id"))
      assert.strictEqual(at(created.body, "url"), `${ROOT_URL}api/v1/user/keys/${id}`)

      const duplicate = yield* request("POST", "/api/v1/admin/users/judy/keys", { auth: admin, json: { key: key.publicKey, title: "again" } })
      assert.strictEqual(duplicate.status, 422)
      assert.strictEqual(at(duplicate.body, "message"), "Key content has been used as non-deploy key")
      const malformed = yield* request("POST", "/api/v1/admin/users/judy/keys", { auth: admin, json: { key: "ssh-ed25519 AAAA!!!", title: "bad" } })
      assert.strictEqual(malformed.status, 422)
      assert.match(String(at(malformed.body, "message")), /^Invalid key content: /)

      const own = yield* request("GET", `/api/v1/user/keys?fingerprint=${encodeURIComponent(key.fingerprint)}`, { auth: judy.auth })
      assert.strictEqual((own.body as Array<unknown>).length, 1)
      assert.strictEqual(at(own.body, 0, "user", "login"), "judy")
      const other = yield* createUser("kate")
      const seenByOther = yield* request("GET", "/api/v1/users/judy/keys", { auth: other.auth })
      assert.strictEqual((seenByOther.body as Array<unknown>).length, 1)
      assert.strictEqual(at(seenByOther.body, 0, "user"), undefined)
      const wrongUserPath = yield* request("GET", `/api/v1/users/kate/keys?fingerprint=${encodeURIComponent(key.fingerprint)}`, { auth: other.auth })
      assert.deepStrictEqual(wrongUserPath.body, [])

      // The ownership check compares the key with the path user, who is neither owner nor admin.
      const forbidden = yield* request("DELETE", `/api/v1/admin/users/kate/keys/${id}`, { auth: admin })
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual((yield* request("DELETE", `/api/v1/admin/users/judy/keys/${id}`, { auth: admin })).status, 204)
      assert.strictEqual((yield* request("DELETE", `/api/v1/admin/users/judy/keys/${id}`, { auth: admin })).status, 404)
    }))
})
