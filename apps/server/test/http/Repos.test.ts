import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { admin, at, createToken, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { askedTwiceByEach } from "./KeptAnswers.ts"

const errorUrl = `${ROOT_URL}api/swagger`

const repositoryDir = (owner: string, name: string) =>
  Effect.map(Effect.service(KilnConfig), (config) =>
    Path.join(config.dataDir, "repositories", owner.toLowerCase(), `${name.toLowerCase()}.git`))

const REPOSITORY_KEYS = [
  "id", "owner", "name", "full_name", "description", "empty", "private", "fork", "template", "parent", "mirror", "size",
  "language", "languages_url", "html_url", "url", "link", "ssh_url", "clone_url", "original_url", "website",
  "stars_count", "forks_count", "watchers_count", "open_issues_count", "open_pr_counter", "release_counter",
  "default_branch", "archived", "created_at", "updated_at", "archived_at", "permissions", "has_issues",
  "internal_tracker", "has_wiki", "has_wiki_contents", "wiki_branch", "wiki_ssh_url", "wiki_clone_url", "globally_editable_wiki", "has_pull_requests", "has_projects",
  "has_releases", "has_packages", "has_actions", "ignore_whitespace_conflicts", "allow_merge_commits", "allow_rebase",
  "allow_rebase_explicit", "allow_squash_merge", "allow_fast_forward_only_merge", "allow_rebase_update",
  "default_delete_branch_after_merge", "default_merge_style", "default_allow_maintainer_edit", "default_update_style",
  "avatar_url", "internal", "mirror_interval", "object_format_name", "mirror_updated", "repo_transfer", "topics"
]

layer(TestServer.layer(), { timeout: "180 seconds" })("repositories", (it) => {
  it.effect("creates, reads, renames and deletes a repository with its directory", () =>
    Effect.gen(function*() {
      const alice = yield* createUser("alice")
      const created = yield* request("POST", "/api/v1/user/repos", {
        auth: alice.auth,
        json: { name: "Hello", description: "first", auto_init: true, gitignores: "Node", license: "MIT" }
      })
      assert.strictEqual(created.status, 201, created.text)
      assert.deepStrictEqual(Object.keys(created.body as object), REPOSITORY_KEYS)
      assert.strictEqual(at(created.body, "full_name"), "alice/Hello")
      assert.strictEqual(at(created.body, "empty"), false)
      assert.strictEqual(at(created.body, "default_branch"), "main")
      assert.strictEqual(at(created.body, "html_url"), `${ROOT_URL}alice/Hello`)
      assert.strictEqual(at(created.body, "url"), `${ROOT_URL}api/v1/repos/alice/Hello`)
      assert.strictEqual(at(created.body, "clone_url"), `${ROOT_URL}alice/Hello.git`)
      assert.strictEqual(at(created.body, "ssh_url"), "git@kiln.test:alice/Hello.git")
      assert.strictEqual(at(created.body, "archived_at"), "1970-01-01T00:00:00Z")
      assert.strictEqual(at(created.body, "mirror_updated"), "0001-01-01T00:00:00Z")
      assert.isAbove(Number(at(created.body, "size")), 0)
      assert.deepStrictEqual(at(created.body, "permissions"), { admin: true, push: true, pull: true })
      assert.strictEqual(at(created.body, "owner", "login"), "alice")
      const dir = yield* repositoryDir("alice", "Hello")
      assert.isTrue(Fs.existsSync(Path.join(dir, "HEAD")))

      const anonymous = yield* request("GET", "/api/v1/repos/ALICE/hello")
      assert.strictEqual(anonymous.status, 200)
      assert.deepStrictEqual(at(anonymous.body, "permissions"), { admin: false, push: false, pull: true })

      const renamed = yield* request("PATCH", "/api/v1/repos/alice/hello", { auth: alice.auth, json: { name: "World", description: "moved" } })
      assert.strictEqual(renamed.status, 200, renamed.text)
      assert.strictEqual(at(renamed.body, "name"), "World")
      assert.isFalse(Fs.existsSync(dir))
      const movedDir = yield* repositoryDir("alice", "World")
      assert.isTrue(Fs.existsSync(Path.join(movedDir, "HEAD")))

      const deleted = yield* request("DELETE", "/api/v1/repos/alice/World", { auth: alice.auth })
      assert.strictEqual(deleted.status, 204)
      assert.isFalse(Fs.existsSync(movedDir))
      assert.deepStrictEqual(Fs.readdirSync(Path.dirname(movedDir)), [])
      const gone = yield* request("GET", "/api/v1/repos/alice/World", { auth: alice.auth })
      assert.strictEqual(gone.status, 404)
      assert.deepStrictEqual(gone.body, { message: "The target couldn't be found.", url: errorUrl, errors: [] })
    }))

  it.effect("answers Forgejo's creation errors", () =>
    Effect.gen(function*() {
      const bob = yield* createUser("bob")
      const create = (json: unknown) => request("POST", "/api/v1/user/repos", { auth: bob.auth, json })
      assert.strictEqual((yield* create({ name: "dup" })).status, 201)
      const duplicate = yield* create({ name: "DUP" })
      assert.strictEqual(duplicate.status, 409)
      assert.deepStrictEqual(duplicate.body, { message: "The repository with the same name already exists.", url: errorUrl })
      const cases: ReadonlyArray<readonly [unknown, number, string]> = [
        [{ name: "" }, 422, "[Name]: Required"],
        [{ name: "a b" }, 422, "[Name]: AlphaDashDot"],
        [{ name: "x".repeat(101) }, 422, "[Name]: MaxSize"],
        [{ name: "ok", default_branch: "a..b" }, 422, "[DefaultBranch]: GitRefName"],
        [{ name: ".." }, 422, "name is reserved [name: ..]"],
        [{ name: "foo.git" }, 422, "name pattern is not allowed [pattern: *.git]"],
        [{ name: "t1", auto_init: true, readme: "Nope" }, 400, "readme template does not exist, available templates: [Default]"],
        [{ name: "t2", auto_init: true, gitignores: "Cobol" }, 422, "gitignore template does not exist: Cobol"],
        [{ name: "t3", auto_init: true, license: "WTFPL" }, 422, "license template does not exist: WTFPL"]
      ]
      for (const [json, status, message] of cases) {
        const response = yield* create(json)
        assert.strictEqual(response.status, status, JSON.stringify(json))
        assert.deepStrictEqual(response.body, { message, url: errorUrl }, JSON.stringify(json))
      }
      const anonymous = yield* request("POST", "/api/v1/user/repos", { json: { name: "anon" } })
      assert.strictEqual(anonymous.status, 401)
      const empty = yield* request("GET", "/api/v1/repos/bob/dup")
      assert.strictEqual(at(empty.body, "empty"), true)
      assert.strictEqual(at(empty.body, "size"), 0)
    }))

  it.effect("two concurrent creates of one name give one 201 and one 409", () =>
    Effect.gen(function*() {
      const carol = yield* createUser("carol")
      const statuses = yield* Effect.all(
        [1, 2].map(() => request("POST", "/api/v1/user/repos", { auth: carol.auth, json: { name: "race", auto_init: true } })),
        { concurrency: "unbounded" }
      )
      assert.deepStrictEqual(statuses.map((response) => response.status).sort(), [201, 409])
    }))

  it.effect("hides private repositories and gives collaborators exactly their level", () =>
    Effect.gen(function*() {
      const owner = yield* createUser("dora")
      const friend = yield* createUser("erin")
      const stranger = yield* createUser("finn")
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "secret", private: true } })
      const path = "/api/v1/repos/dora/secret"

      assert.strictEqual((yield* request("GET", path)).status, 404)
      assert.strictEqual((yield* request("GET", path, { auth: stranger.auth })).status, 404)
      assert.strictEqual((yield* request("DELETE", path)).status, 404)
      assert.strictEqual((yield* request("DELETE", path, { auth: stranger.auth })).status, 404)
      const asAdmin = yield* request("GET", path, { auth: admin })
      assert.deepStrictEqual(at(asAdmin.body, "permissions"), { admin: true, push: true, pull: true })

      const unknownOwner = yield* request("GET", "/api/v1/repos/nobody/secret")
      assert.deepStrictEqual(unknownOwner.body, {
        message: "GetUserByName",
        url: errorUrl,
        errors: ["user does not exist [uid: 0, name: nobody]"]
      })

      const collaborator = `${path}/collaborators/erin`
      assert.strictEqual((yield* request("GET", collaborator, { auth: owner.auth })).status, 404)
      assert.strictEqual((yield* request("PUT", collaborator, { auth: owner.auth, json: { permission: "read" } })).status, 204)
      assert.strictEqual((yield* request("GET", collaborator, { auth: owner.auth })).status, 204)
      const read = yield* request("GET", path, { auth: friend.auth })
      assert.deepStrictEqual(at(read.body, "permissions"), { admin: false, push: false, pull: true })
      const permission = yield* request("GET", `${collaborator}/permission`, { auth: friend.auth })
      assert.strictEqual(at(permission.body, "permission"), "read")
      assert.strictEqual(at(permission.body, "role_name"), "read")
      assert.strictEqual((yield* request("GET", `${path}/collaborators/dora/permission`, { auth: friend.auth })).status, 403)
      const ownerPermission = yield* request("GET", `${path}/collaborators/dora/permission`, { auth: owner.auth })
      assert.strictEqual(at(ownerPermission.body, "permission"), "owner")

      // A reader may not edit or add collaborators.
      const refused = yield* request("PATCH", path, { auth: friend.auth, json: { description: "x" } })
      assert.strictEqual(refused.status, 403)
      assert.deepStrictEqual(refused.body, {
        message: "user should be an owner or a collaborator with admin write of a repository",
        url: errorUrl
      })

      // Unknown permission strings are ignored; write, then admin, are applied.
      assert.strictEqual((yield* request("PUT", collaborator, { auth: owner.auth, json: { permission: "owner" } })).status, 204)
      assert.strictEqual(at((yield* request("GET", `${collaborator}/permission`, { auth: owner.auth })).body, "permission"), "read")
      yield* request("PUT", collaborator, { auth: owner.auth, json: { permission: "write" } })
      const write = yield* request("GET", path, { auth: friend.auth })
      assert.deepStrictEqual(at(write.body, "permissions"), { admin: false, push: true, pull: true })
      yield* request("PUT", collaborator, { auth: owner.auth, json: { permission: "admin" } })
      assert.strictEqual((yield* request("PATCH", path, { auth: friend.auth, json: { description: "by admin" } })).status, 200)
      // An admin collaborator may not delete: owner level is needed.
      const notOwner = yield* request("DELETE", path, { auth: friend.auth })
      assert.strictEqual(notOwner.status, 403)
      assert.deepStrictEqual(notOwner.body, { message: "user should be the owner of the repo", url: errorUrl })

      const list = yield* request("GET", `${path}/collaborators`, { auth: owner.auth })
      assert.strictEqual(list.headers.get("x-total-count"), "1")
      assert.strictEqual(at(list.body, 0, "login"), "erin")
      assert.strictEqual((yield* request("GET", `/api/v1/repos/dora/secret/collaborators`)).status, 404)

      assert.strictEqual((yield* request("GET", `${path}/collaborators/ghost-user`, { auth: owner.auth })).status, 422)
      assert.strictEqual((yield* request("PUT", `${path}/collaborators/ghost-user`, { auth: owner.auth, json: {} })).status, 422)
      assert.strictEqual((yield* request("DELETE", collaborator, { auth: owner.auth })).status, 204)
      assert.strictEqual((yield* request("DELETE", collaborator, { auth: owner.auth })).status, 204)
      assert.strictEqual((yield* request("GET", path, { auth: friend.auth })).status, 404)

      // Collaborator routes need a signed-in caller even on public repositories.
      yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "open" } })
      const anonymousList = yield* request("GET", "/api/v1/repos/dora/open/collaborators")
      assert.strictEqual(anonymousList.status, 401)
    }))

  it.effect("answers each caller with their own access whatever it answered before, and every change at once", () =>
    Effect.gen(function*() {
      // Answers are kept per repository and kind of access (RepositoryAnswers.ts): a cache that
      // served one caller's answer to another, or outlived a change, would show here.
      const owner = yield* createUser("polly")
      const writer = yield* createUser("quinn")
      const stranger = yield* createUser("rhea")
      const made = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name: "polled" } })
      assert.strictEqual(made.status, 201, made.text)
      const path = "/api/v1/repos/polly/polled"
      const added = yield* request("PUT", `${path}/collaborators/quinn`, { auth: owner.auth, json: { permission: "write" } })
      assert.strictEqual(added.status, 204)
      const full = { admin: true, push: true, pull: true }
      const reader = { admin: false, push: false, pull: true }
      const callers = [
        { auth: undefined, permissions: reader },
        { auth: owner.auth, permissions: full },
        { auth: writer.auth, permissions: { admin: false, push: true, pull: true } },
        { auth: stranger.auth, permissions: reader },
        { auth: admin, permissions: full }
      ]
      const get = (auth: TestServer.Auth | undefined) => request("GET", path, auth === undefined ? {} : { auth })
      yield* askedTwiceByEach(path, callers, (answer, caller, label) => {
        assert.deepStrictEqual(at(answer.body, "permissions"), caller.permissions, label)
        assert.strictEqual(answer.headers.get("last-modified"), new Date(Date.parse(String(at(answer.body, "updated_at")))).toUTCString())
      })

      // A change to the owner, nested in every answer.
      const renamed = yield* request("PATCH", "/api/v1/admin/users/polly", { auth: admin, json: { full_name: "Polly Owner" } })
      assert.strictEqual(renamed.status, 200, renamed.text)
      for (const caller of callers) assert.strictEqual(at((yield* get(caller.auth)).body, "owner", "full_name"), "Polly Owner")

      // Made private: those without access no longer see it, the others see the change.
      const hidden = yield* request("PATCH", path, { auth: owner.auth, json: { private: true } })
      assert.strictEqual(hidden.status, 200, hidden.text)
      for (const caller of callers) {
        const answer = yield* get(caller.auth)
        if (caller.permissions === reader) assert.strictEqual(answer.status, 404)
        else {
          assert.strictEqual(answer.status, 200)
          assert.isTrue(at(answer.body, "private"))
          assert.deepStrictEqual(at(answer.body, "permissions"), caller.permissions)
        }
      }
    }))

  it.effect("pages of repositories show each caller their own access whatever they showed before, and every change at once", () =>
    Effect.gen(function*() {
      // A page is put together from each repository's JSON kept per repository and kind of access
      // (KeptRenderings.ts): a text served to the wrong caller, or kept past a change, would show here.
      const owner = yield* createUser("paige")
      const writer = yield* createUser("petra")
      for (const name of ["paged-one", "paged-two"]) {
        const made = yield* request("POST", "/api/v1/user/repos", { auth: owner.auth, json: { name } })
        assert.strictEqual(made.status, 201, made.text)
      }
      const added = yield* request("PUT", "/api/v1/repos/paige/paged-one/collaborators/petra", { auth: owner.auth, json: { permission: "write" } })
      assert.strictEqual(added.status, 204)
      const full = { admin: true, push: true, pull: true }
      const reader = { admin: false, push: false, pull: true }
      const callers = [
        { auth: undefined, permissions: [reader, reader] },
        { auth: owner.auth, permissions: [full, full] },
        { auth: writer.auth, permissions: [{ admin: false, push: true, pull: true }, reader] },
        { auth: admin, permissions: [full, full] }
      ]
      const pages = [
        { path: "/api/v1/repos/search?q=paged", items: (body: unknown) => at(body, "data") as ReadonlyArray<unknown> },
        { path: "/api/v1/users/paige/repos", items: (body: unknown) => body as ReadonlyArray<unknown> }
      ]
      for (const page of pages) {
        yield* askedTwiceByEach(page.path, callers, (answer, caller, label) => {
          const items = page.items(answer.body)
          assert.deepStrictEqual(items.map((item) => at(item, "name")), ["paged-one", "paged-two"], label)
          assert.deepStrictEqual(items.map((item) => at(item, "permissions")), caller.permissions, label)
        })
      }
      const shown = (path: string, items: (body: unknown) => ReadonlyArray<unknown>, ...keys: ReadonlyArray<string>) =>
        Effect.map(request("GET", path, { auth: writer.auth }), (answer) => items(answer.body).map((item) => at(item, ...keys)))

      // A change to one repository, then to the owner nested in every item.
      const edited = yield* request("PATCH", "/api/v1/repos/paige/paged-two", { auth: owner.auth, json: { description: "edited" } })
      assert.strictEqual(edited.status, 200, edited.text)
      const renamed = yield* request("PATCH", "/api/v1/admin/users/paige", { auth: admin, json: { full_name: "Paige Owner" } })
      assert.strictEqual(renamed.status, 200, renamed.text)
      for (const page of pages) {
        assert.deepStrictEqual(yield* shown(page.path, page.items, "description"), ["", "edited"])
        assert.deepStrictEqual(yield* shown(page.path, page.items, "owner", "full_name"), ["Paige Owner", "Paige Owner"])
      }

      // A fork shows its base as it is now.
      const forked = yield* request("POST", "/api/v1/repos/paige/paged-two/forks", { auth: writer.auth, json: {} })
      assert.strictEqual(forked.status, 202, forked.text)
      const forks = { path: "/api/v1/users/petra/repos", items: (body: unknown) => body as ReadonlyArray<unknown> }
      assert.deepStrictEqual(yield* shown(forks.path, forks.items, "parent", "description"), ["edited"])
      const again = yield* request("PATCH", "/api/v1/repos/paige/paged-two", { auth: owner.auth, json: { description: "again" } })
      assert.strictEqual(again.status, 200, again.text)
      assert.deepStrictEqual(yield* shown(forks.path, forks.items, "parent", "description"), ["again"])
    }))

  it.effect("lists a user's repositories and searches with Forgejo's rules", () =>
    Effect.gen(function*() {
      const gail = yield* createUser("gail")
      const hank = yield* createUser("hank")
      for (const [name, isPrivate] of [["alpha-tool", false], ["beta-tool", true], ["gamma", false]] as const) {
        const response = yield* request("POST", "/api/v1/user/repos", {
          auth: gail.auth,
          json: { name, private: isPrivate, description: `the ${name} widget` }
        })
        assert.strictEqual(response.status, 201)
      }
      const anonymous = yield* request("GET", "/api/v1/users/gail/repos")
      assert.deepStrictEqual((anonymous.body as ReadonlyArray<unknown>).map((repo) => at(repo, "name")), ["alpha-tool", "gamma"])
      const own = yield* request("GET", "/api/v1/users/gail/repos", { auth: gail.auth })
      assert.strictEqual((own.body as ReadonlyArray<unknown>).length, 3)
      const other = yield* request("GET", "/api/v1/users/gail/repos", { auth: hank.auth })
      assert.strictEqual((other.body as ReadonlyArray<unknown>).length, 2)
      // Forgejo counts the repositories hank may not see as well (review finding 16); Kiln does not.
      assert.strictEqual(other.headers.get("x-total-count"), "2")

      const search = (query: string, auth?: TestServer.Auth) => request("GET", `/api/v1/repos/search?${query}`, { auth })
      const names = (body: unknown) => ((at(body, "data") as ReadonlyArray<unknown>) ?? []).map((repo) => at(repo, "name"))
      const anonymousSearch = yield* search("q=tool")
      assert.strictEqual(at(anonymousSearch.body, "ok"), true)
      assert.deepStrictEqual(names(anonymousSearch.body), ["alpha-tool"])
      assert.deepStrictEqual(names((yield* search("q=tool", gail.auth)).body), ["alpha-tool", "beta-tool"])
      assert.deepStrictEqual(names((yield* search("q=tool", hank.auth)).body), ["alpha-tool"])
      assert.deepStrictEqual(names((yield* search("q=tool&private=false", gail.auth)).body), ["alpha-tool"])
      assert.deepStrictEqual(names((yield* search("q=widget", gail.auth)).body), [])
      assert.deepStrictEqual(names((yield* search("q=gamma%20widget&includeDesc=true", gail.auth)).body), ["gamma"])
      assert.deepStrictEqual(names((yield* search("q=gail/gam", gail.auth)).body), ["gamma"])
      assert.deepStrictEqual(names((yield* search("q=tool&is_private=true", gail.auth)).body), ["beta-tool"])
      assert.deepStrictEqual(names((yield* search("q=tool&sort=alpha&order=desc", gail.auth)).body), ["beta-tool", "alpha-tool"])
      assert.deepStrictEqual(names((yield* search("q=tool&mode=fork", gail.auth)).body), [])
      // Keywords are written into the SQL text: quotes must stay data.
      const quoted = yield* search("q=o'x%27)%20OR%20(1=1&includeDesc=true", gail.auth)
      assert.strictEqual(quoted.status, 200)
      assert.deepStrictEqual(names(quoted.body), [])

      const paged = yield* search("q=tool&limit=1&page=1", gail.auth)
      assert.strictEqual(paged.headers.get("x-total-count"), "2")
      assert.include(String(paged.headers.get("link")), 'rel="next"')

      for (const [query, message] of [
        ["mode=bad", 'Invalid search mode: "bad"'],
        ["sort=bad", 'Invalid sort mode: "bad"'],
        ["sort=alpha&order=up", 'Invalid sort order: "up"']
      ] as const) {
        const response = yield* search(query)
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(response.body, { message, url: errorUrl })
      }

      // `uid` with `exclusive` and `collaborative`.
      yield* request("PUT", "/api/v1/repos/gail/beta-tool/collaborators/hank", { auth: gail.auth, json: {} })
      const hankId = Number(at(hank.user, "id"))
      assert.deepStrictEqual(names((yield* search(`uid=${hankId}`, hank.auth)).body), ["beta-tool"])
      assert.deepStrictEqual(names((yield* search(`uid=${hankId}&mode=collaborative`, hank.auth)).body), ["beta-tool"])
      assert.deepStrictEqual(names((yield* search(`uid=${hankId}&exclusive=true`, hank.auth)).body), [])

      const mine = yield* request("GET", "/api/v1/user/repos?order_by=id", { auth: hank.auth })
      assert.deepStrictEqual((mine.body as ReadonlyArray<unknown>).map((repo) => at(repo, "name")), ["beta-tool"])
      assert.strictEqual((yield* request("GET", "/api/v1/user/repos?order_by=bad", { auth: hank.auth })).status, 422)
    }))

  it.effect("public-only tokens see public repositories only", () =>
    Effect.gen(function*() {
      yield* createUser("ivy")
      const ivy = TestServer.basic("ivy", "ivy-password")
      yield* request("POST", "/api/v1/user/repos", { auth: ivy, json: { name: "hidden", private: true } })
      const token = yield* createToken(ivy, "ivy", "public", ["public-only", "read:repository", "read:user"])
      const response = yield* request("GET", "/api/v1/repos/ivy/hidden", { auth: { token } })
      assert.strictEqual(response.status, 403)
      assert.deepStrictEqual(response.body, { message: "token scope is limited to public repos", url: errorUrl })
      const listed = yield* request("GET", "/api/v1/users/ivy/repos", { auth: { token } })
      assert.deepStrictEqual(listed.body, [])
    }))

  it.effect("edits settings, archives, and refuses to delete an owner of repositories", () =>
    Effect.gen(function*() {
      const jack = yield* createUser("jack")
      yield* request("POST", "/api/v1/user/repos", { auth: jack.auth, json: { name: "settings" } })
      const edited = yield* request("PATCH", "/api/v1/repos/jack/settings", {
        auth: jack.auth,
        json: { website: "https://example.com", has_issues: false, has_wiki: false, default_merge_style: "squash", archived: true, default_branch: "dev" }
      })
      assert.strictEqual(edited.status, 200, edited.text)
      assert.strictEqual(at(edited.body, "website"), "https://example.com")
      assert.strictEqual(at(edited.body, "has_issues"), false)
      assert.isUndefined(at(edited.body, "internal_tracker"))
      assert.strictEqual(at(edited.body, "default_merge_style"), "squash")
      assert.strictEqual(at(edited.body, "archived"), true)
      assert.strictEqual(at(edited.body, "default_branch"), "dev")
      const badStyle = yield* request("PATCH", "/api/v1/repos/jack/settings", { auth: jack.auth, json: { default_merge_style: "octopus" } })
      assert.strictEqual(badStyle.status, 422)
      assert.deepStrictEqual(badStyle.body, { message: "[DefaultMergeStyle]: In", url: errorUrl })
      yield* request("POST", "/api/v1/user/repos", { auth: jack.auth, json: { name: "other" } })
      const taken = yield* request("PATCH", "/api/v1/repos/jack/settings", { auth: jack.auth, json: { name: "OTHER" } })
      assert.strictEqual(taken.status, 422)
      assert.deepStrictEqual(taken.body, { message: "repository already exists [uname: jack, name: OTHER]", url: errorUrl })

      const refused = yield* request("DELETE", "/api/v1/admin/users/jack", { auth: admin })
      assert.strictEqual(refused.status, 422)
      assert.strictEqual(at(refused.body, "message"), `user still has ownership of repositories [uid: ${at(jack.user, "id")}]`)
    }))

  it.effect("admins create repositories for users; unknown users are 404", () =>
    Effect.gen(function*() {
      yield* createUser("kate")
      const created = yield* request("POST", "/api/v1/admin/users/kate/repos", { auth: admin, json: { name: "given" } })
      assert.strictEqual(created.status, 201)
      assert.strictEqual(at(created.body, "owner", "login"), "kate")
      const again = yield* request("POST", "/api/v1/admin/users/kate/repos", { auth: admin, json: { name: "given" } })
      assert.strictEqual(again.status, 409)
      const unknown = yield* request("POST", "/api/v1/admin/users/nobody/repos", { auth: admin, json: { name: "x" } })
      assert.strictEqual(unknown.status, 404)
      const kate = TestServer.basic("kate", "kate-password")
      assert.strictEqual((yield* request("POST", "/api/v1/admin/users/kate/repos", { auth: kate, json: { name: "y" } })).status, 403)
    }))
})
