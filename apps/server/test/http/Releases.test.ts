/**
 * Releases end to end: creation with its tag in git, drafts and pre-releases, Forgejo's errors,
 * visibility of drafts and private repositories, edits, deletion, and the JSON shape.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as Path from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { at, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const errorUrl = `${ROOT_URL}api/swagger`

const RELEASE_KEYS = [
  "id", "tag_name", "target_commitish", "name", "body", "url", "html_url", "tarball_url", "zipball_url",
  "hide_archive_links", "upload_url", "draft", "prerelease", "created_at", "published_at", "author", "assets",
  "archive_download_count"
]

/** The commit a ref names in the repository on disk, as git itself reads it. */
const gitRev = (owner: string, name: string, ref: string) =>
  Effect.map(Effect.service(KilnConfig), (config) => {
    const gitdir = Path.join(config.dataDir, "repositories", owner.toLowerCase(), `${name.toLowerCase()}.git`)
    try {
      return execFileSync("git", ["--git-dir", gitdir, "rev-parse", "--verify", "--quiet", `${ref}^{commit}`]).toString().trim()
    } catch {
      return ""
    }
  })

const createRepo = (auth: TestServer.Auth, name: string, extra: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const response = yield* request("POST", "/api/v1/user/repos", { auth, json: { name, auto_init: true, ...extra } })
    assert.strictEqual(response.status, 201, response.text)
    return response.body
  })

layer(TestServer.layer(), { timeout: "180 seconds" })("releases", (it) => {
  it.effect("creates a release and its tag at the default branch, and answers with Forgejo's JSON", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("rel-owner")
      yield* createRepo(owner.auth, "app")
      const created = yield* request("POST", "/api/v1/repos/rel-owner/app/releases", {
        auth: owner.auth,
        json: { tag_name: "v1.0", name: "First", body: "notes" }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepStrictEqual(Object.keys(created.body as object), RELEASE_KEYS)
      const id = Number(at(created.body, "id"))
      assert.strictEqual(at(created.body, "tag_name"), "v1.0")
      assert.strictEqual(at(created.body, "target_commitish"), "main")
      assert.strictEqual(at(created.body, "url"), `${ROOT_URL}api/v1/repos/rel-owner/app/releases/${id}`)
      assert.strictEqual(at(created.body, "html_url"), `${ROOT_URL}rel-owner/app/releases/tag/v1.0`)
      assert.strictEqual(at(created.body, "tarball_url"), `${ROOT_URL}rel-owner/app/archive/v1.0.tar.gz`)
      assert.strictEqual(at(created.body, "zipball_url"), `${ROOT_URL}rel-owner/app/archive/v1.0.zip`)
      assert.strictEqual(at(created.body, "upload_url"), `${ROOT_URL}api/v1/repos/rel-owner/app/releases/${id}/assets`)
      assert.strictEqual(at(created.body, "draft"), false)
      assert.strictEqual(at(created.body, "author", "login"), "rel-owner")
      assert.deepStrictEqual(at(created.body, "assets"), [])
      assert.deepStrictEqual(at(created.body, "archive_download_count"), { zip: 0, tar_gz: 0 })
      assert.strictEqual(at(created.body, "created_at"), at(created.body, "published_at"))

      const main = yield* gitRev("rel-owner", "app", "refs/heads/main")
      assert.notStrictEqual(main, "")
      assert.strictEqual(yield* gitRev("rel-owner", "app", "refs/tags/v1.0"), main)

      const byTag = yield* request("GET", "/api/v1/repos/rel-owner/app/releases/tags/v1.0", { auth: owner.auth })
      assert.strictEqual(byTag.status, 200)
      assert.strictEqual(at(byTag.body, "id"), id)
      const byId = yield* request("GET", `/api/v1/repos/rel-owner/app/releases/${id}`)
      assert.strictEqual(byId.status, 200)
      assert.strictEqual(at(byId.body, "name"), "First")
    }))

  it.effect("answers 409 for a tag with a release, 404 for an unknown target, 422 for an empty repository or no tag", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("rel-errors")
      yield* createRepo(owner.auth, "app")
      const first = yield* request("POST", "/api/v1/repos/rel-errors/app/releases", { auth: owner.auth, json: { tag_name: "v1" } })
      assert.strictEqual(first.status, 201)
      const again = yield* request("POST", "/api/v1/repos/rel-errors/app/releases", { auth: owner.auth, json: { tag_name: "V1" } })
      assert.strictEqual(again.status, 409)
      assert.deepStrictEqual(again.body, { message: "Release has no Tag", url: errorUrl })

      const unknown = yield* request("POST", "/api/v1/repos/rel-errors/app/releases", {
        auth: owner.auth,
        json: { tag_name: "v2", target_commitish: "no-such-branch" }
      })
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(at(unknown.body, "message"), "target \"no-such-branch\" not found: object does not exist [id: no-such-branch, rel_path: ]")
      assert.strictEqual(yield* gitRev("rel-errors", "app", "refs/tags/v2"), "")

      // A tag no file system can hold as a loose ref (Forgejo: 500 when git writes it).
      const longTag = "t".repeat(300)
      const tooLong = yield* request("POST", "/api/v1/repos/rel-errors/app/releases", { auth: owner.auth, json: { tag_name: longTag } })
      assert.deepStrictEqual([tooLong.status, tooLong.body], [422, { message: `release tag name is not valid [tag_name: ${longTag}]`, url: errorUrl }])

      const missing = yield* request("POST", "/api/v1/repos/rel-errors/app/releases", { auth: owner.auth, json: { name: "x" } })
      assert.strictEqual(missing.status, 422)
      assert.strictEqual(at(missing.body, "message"), "[TagName]: Required")

      yield* createRepo(owner.auth, "empty", { auto_init: false })
      const empty = yield* request("POST", "/api/v1/repos/rel-errors/empty/releases", { auth: owner.auth, json: { tag_name: "v1" } })
      assert.strictEqual(empty.status, 422)
      assert.strictEqual(at(empty.body, "message"), "repo is empty")

      const noRelease = yield* request("GET", "/api/v1/repos/rel-errors/app/releases/999999", { auth: owner.auth })
      assert.strictEqual(noRelease.status, 404)
      assert.deepStrictEqual(noRelease.body, { message: "The target couldn't be found.", url: errorUrl, errors: [] })
    }))

  it.effect("keeps drafts without a tag and from readers; publishing makes the tag; pre-releases filter", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("rel-drafts")
      const reader = yield* createUser("rel-reader")
      yield* createRepo(owner.auth, "app")
      const draft = yield* request("POST", "/api/v1/repos/rel-drafts/app/releases", {
        auth: owner.auth,
        json: { tag_name: "v0.1", draft: true }
      })
      assert.strictEqual(draft.status, 201)
      assert.strictEqual(at(draft.body, "draft"), true)
      assert.strictEqual(yield* gitRev("rel-drafts", "app", "refs/tags/v0.1"), "")
      const pre = yield* request("POST", "/api/v1/repos/rel-drafts/app/releases", {
        auth: owner.auth,
        json: { tag_name: "v0.2", prerelease: true }
      })
      assert.strictEqual(pre.status, 201)

      const asOwner = yield* request("GET", "/api/v1/repos/rel-drafts/app/releases", { auth: owner.auth })
      assert.deepStrictEqual((asOwner.body as Array<unknown>).map((r) => at(r, "tag_name")).sort(), ["v0.1", "v0.2"])
      assert.strictEqual(asOwner.headers.get("x-total-count"), "2")
      const asReader = yield* request("GET", "/api/v1/repos/rel-drafts/app/releases", { auth: reader.auth })
      assert.deepStrictEqual((asReader.body as Array<unknown>).map((r) => at(r, "tag_name")), ["v0.2"])
      const anonymous = yield* request("GET", "/api/v1/repos/rel-drafts/app/releases?pre-release=false")
      assert.deepStrictEqual(anonymous.body, [])
      const search = yield* request("GET", "/api/v1/repos/rel-drafts/app/releases?q=0.1", { auth: owner.auth })
      assert.deepStrictEqual((search.body as Array<unknown>).map((r) => at(r, "tag_name")), ["v0.1"])

      const forbidden = yield* request("PATCH", `/api/v1/repos/rel-drafts/app/releases/${at(draft.body, "id")}`, {
        auth: reader.auth,
        json: { draft: false }
      })
      assert.strictEqual(forbidden.status, 403)
      assert.strictEqual(at(forbidden.body, "message"), "user should have a permission to write to a repo")
      const anonymousCreate = yield* request("POST", "/api/v1/repos/rel-drafts/app/releases", { json: { tag_name: "x" } })
      assert.strictEqual(anonymousCreate.status, 401)

      const published = yield* request("PATCH", `/api/v1/repos/rel-drafts/app/releases/${at(draft.body, "id")}`, {
        auth: owner.auth,
        json: { draft: false, name: "Published" }
      })
      assert.strictEqual(published.status, 200, published.text)
      assert.strictEqual(at(published.body, "draft"), false)
      assert.strictEqual(at(published.body, "name"), "Published")
      assert.strictEqual(yield* gitRev("rel-drafts", "app", "refs/tags/v0.1"), yield* gitRev("rel-drafts", "app", "refs/heads/main"))
    }))

  it.effect("hides releases of private repositories and deletes releases but not their tags", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("rel-private")
      const other = yield* createUser("rel-other")
      yield* createRepo(owner.auth, "secret", { private: true })
      const created = yield* request("POST", "/api/v1/repos/rel-private/secret/releases", { auth: owner.auth, json: { tag_name: "v1" } })
      assert.strictEqual(created.status, 201)
      const id = at(created.body, "id")
      for (const auth of [other.auth, undefined]) {
        const listed = yield* request("GET", "/api/v1/repos/rel-private/secret/releases", { auth })
        assert.strictEqual(listed.status, 404)
        const got = yield* request("GET", `/api/v1/repos/rel-private/secret/releases/${id}`, { auth })
        assert.strictEqual(got.status, 404)
      }
      const deleted = yield* request("DELETE", `/api/v1/repos/rel-private/secret/releases/${id}`, { auth: owner.auth })
      assert.strictEqual(deleted.status, 204)
      const gone = yield* request("GET", `/api/v1/repos/rel-private/secret/releases/${id}`, { auth: owner.auth })
      assert.strictEqual(gone.status, 404)
      assert.notStrictEqual(yield* gitRev("rel-private", "secret", "refs/tags/v1"), "")
      // The tag stays, so a new release for it takes the existing tag.
      const again = yield* request("POST", "/api/v1/repos/rel-private/secret/releases", { auth: owner.auth, json: { tag_name: "v1" } })
      assert.strictEqual(again.status, 201)
    }))

  it.effect("counts published releases, pre-releases included and drafts not, in the repository's release_counter", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("rel-count")
      const made = yield* createRepo(owner.auth, "counted")
      assert.strictEqual(at(made, "release_counter"), 0)
      const release = (json: Record<string, unknown>) =>
        Effect.map(request("POST", "/api/v1/repos/rel-count/counted/releases", { auth: owner.auth, json }), (response) => {
          assert.strictEqual(response.status, 201, response.text)
          return String(at(response.body, "id"))
        })
      const counter = (path: string) => Effect.map(request("GET", path, { auth: owner.auth }), (response) => at(response.body, "release_counter"))
      yield* release({ tag_name: "v1" })
      yield* release({ tag_name: "v2", prerelease: true })
      const draft = yield* release({ tag_name: "v3", draft: true })
      assert.strictEqual(yield* counter("/api/v1/repos/rel-count/counted"), 2)
      // Every listing computes it the same way.
      const searched = yield* request("GET", "/api/v1/repos/search?q=counted", { auth: owner.auth })
      assert.deepStrictEqual((at(searched.body, "data") as Array<unknown>).map((item) => at(item, "release_counter")), [2])
      const published = yield* request("PATCH", `/api/v1/repos/rel-count/counted/releases/${draft}`, { auth: owner.auth, json: { draft: false } })
      assert.strictEqual(published.status, 200, published.text)
      assert.strictEqual(yield* counter("/api/v1/repos/rel-count/counted"), 3)
      const first = yield* request("GET", "/api/v1/repos/rel-count/counted/releases/tags/v1", { auth: owner.auth })
      assert.strictEqual((yield* request("DELETE", `/api/v1/repos/rel-count/counted/releases/${String(at(first.body, "id"))}`, { auth: owner.auth })).status, 204)
      assert.strictEqual(yield* counter("/api/v1/repos/rel-count/counted"), 2)
      // An edit answers with the count too (the row comes back from the update).
      const edited = yield* request("PATCH", "/api/v1/repos/rel-count/counted", { auth: owner.auth, json: { description: "x" } })
      assert.strictEqual(at(edited.body, "release_counter"), 2)
    }))
})
