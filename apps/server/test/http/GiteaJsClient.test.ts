/**
 * Issue 16: gitea-js, the client generated from Gitea's Swagger document, against a real Kiln
 * server over a socket. Every endpoint Kiln serves that gitea-js has (matched by method and path,
 * or by operation id where Kiln's path template differs) is called through gitea-js; each call
 * succeeds (gitea-js throws on any answer that is not 2xx), and every field gitea-js declares for
 * an answer is present in it, at every depth.
 *
 * gitea-js declares every field optional (Gitea's Swagger marks almost nothing required), so
 * "required ones" would check nothing. This test checks them all, and names the exceptions in
 * `MAY_BE_ABSENT` with the reason: a field Forgejo leaves out (`omitempty`) in the state the test
 * builds, or a field of Gitea's that Forgejo's structs do not have. Each exception must actually be
 * seen absent, so the list cannot outlive the behaviour it describes.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { giteaApi } from "gitea-js"
import { execFileSync } from "node:child_process"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import {
  type DeclaredOperation,
  missingFields,
  readGiteaJsDeclarations,
  templatePattern
} from "../support/GiteaJsDeclarations.ts"
import { admin, baseUrl, createToken, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const MAY_BE_ABSENT: Readonly<Record<string, string>> = {
  "DeployKey.repository": "omitempty; Forgejo's CreateDeployKey answers convert.ToDeployKey alone (the repository is added for list and get)",
  "PublicKey.read_only": "omitempty; false for a user's own key (only deploy keys are read-only)",
  "Repository.internal_tracker": "omitempty; a fork starts without the issues unit (Forgejo's DEFAULT_FORK_REPO_UNITS)",
  "Repository.external_tracker": "omitempty; only with the external tracker unit, which Kiln lacks",
  "Repository.external_wiki": "omitempty; only with the external wiki unit, which Kiln lacks",
  "Repository.licenses": "Gitea only; Forgejo's Repository has no licenses",
  "Repository.projects_mode": "Gitea only"
}

const declarations = readGiteaJsDeclarations()

/** The operation gitea-js sent a request for: the matching template with the most literal segments. */
const operationOf = (method: string, path: string): DeclaredOperation | undefined =>
  declarations.operations
    .filter((operation) => operation.method === method && templatePattern(operation.path).test(path))
    .sort((a, b) => b.path.replace(/\{[^}]+\}/g, "").length - a.path.replace(/\{[^}]+\}/g, "").length)[0]

interface Observed {
  readonly called: Set<string>
  readonly missing: Map<string, string>
  readonly failures: Array<string>
}

/** A fetch that records which gitea-js operation each request was and what its answer lacks. */
const recordingFetch = (observed: Observed): typeof fetch => async (input, init) => {
  const response = await fetch(input, init)
  const request = new Request(input, init)
  const path = new URL(request.url).pathname.replace(/^\/api\/v1/, "")
  const operation = operationOf(request.method, path)
  if (operation === undefined) {
    observed.failures.push(`${request.method} ${path}: no gitea-js operation`)
    return response
  }
  observed.called.add(operation.name)
  const text = await response.clone().text()
  if (response.ok && (response.headers.get("content-type") ?? "").startsWith("application/json") && text !== "") {
    for (const field of missingFields(declarations, JSON.parse(text), operation.answer, operation.name)) {
      if (!observed.missing.has(field)) observed.missing.set(field, operation.name)
    }
  }
  return response
}

const settle = <A>(promise: Promise<A>, what: string) =>
  Effect.tryPromise({
    try: () => promise,
    catch: (error) => new Error(`${what}: ${JSON.stringify((error as { error?: unknown }).error ?? error)}`)
  }).pipe(Effect.orDie)

layer(TestServer.layer({ migrationsAllowLocal: true }), { timeout: "300 seconds" })("gitea-js against Kiln (issue 16)", (it) => {
  it.effect("every endpoint both have succeeds, and every declared field is present", () =>
    Effect.gen(function*() {
      // The declarations were read: without them every field check below would pass vacuously.
      assert.isAbove(declarations.interfaces.size, 150)
      assert.includeMembers([...missingFields(declarations, [{}], { _tag: "Array", item: { _tag: "Named", name: "Repository" } })], [
        "Repository.owner",
        "Repository.internal_tracker",
        "Repository.permissions"
      ])
      const base = yield* baseUrl
      const config = yield* KilnConfig
      const observed: Observed = { called: new Set(), missing: new Map(), failures: [] }
      const rootToken = yield* createToken(admin, "root", "gitea-js", ["all"])
      const client = (token: string) => giteaApi(base, { token, customFetch: recordingFetch(observed) })
      const root = client(rootToken)
      const run = <A>(what: string, promise: Promise<{ readonly data: A }>) =>
        Effect.map(settle(promise, what), (response) => response.data)

      // Accounts.
      yield* run("version", root.version.getVersion())
      yield* run("signing key", root.signingKeyGpg.getSigningKey())
      const ada = yield* run("create user", root.admin.adminCreateUser({
        username: "ada", email: "ada@example.com", password: "ada-password-1", must_change_password: false
      }))
      assert.strictEqual(ada.login, "ada")
      yield* createUser("bob")
      const adaToken = yield* createToken(TestServer.basic("ada", "ada-password-1"), "ada", "ada-all", ["all"])
      const asAda = client(adaToken)
      yield* run("edit user", root.admin.adminEditUser("ada", { login_name: "ada", source_id: 0, full_name: "Ada", website: "https://ada.example" }))
      yield* run("search users (admin)", root.admin.adminSearchUsers({ limit: 50 }))
      yield* run("search users", root.users.userSearch({ q: "ad" }))
      yield* run("current user", asAda.user.userGetCurrent())
      yield* run("get user", asAda.users.userGet("bob"))
      const key = yield* run("admin key", root.admin.adminCreatePublicKey("ada", {
        title: "laptop",
        key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ada@laptop"
      }))
      yield* run("own keys", asAda.user.userCurrentListKeys())
      yield* run("user keys", asAda.users.userListKeys("ada"))
      yield* run("delete key", root.admin.adminDeleteUserPublicKey("ada", key.id ?? 0))
      // Forgejo's token routes take a password (Basic), never a token.
      const password = { headers: { authorization: `Basic ${Buffer.from("ada:ada-password-1").toString("base64")}` } }
      const withPassword = giteaApi(base, { customFetch: recordingFetch(observed) })
      const token = yield* run("create token", withPassword.users.userCreateToken("ada", { name: "spare", scopes: ["read:user"] }, password))
      yield* run("list tokens", withPassword.users.userGetTokens("ada", {}, password))
      yield* run("delete token", withPassword.users.userDeleteAccessToken("ada", String(token.id), password))

      // Repositories.
      const repo = yield* run("create repo", asAda.user.createCurrentUserRepo({ name: "tools", auto_init: true, description: "d" }))
      yield* run("admin create repo", root.admin.adminCreateRepo("bob", { name: "bobs" }))
      yield* run("get repo", asAda.repos.repoGet("ada", "tools"))
      yield* run("get repo by id", asAda.repositories.repoGetById(repo.id ?? 0))
      yield* run("edit repo", asAda.repos.repoEdit("ada", "tools", { description: "tools", website: "https://tools.example" }))
      yield* run("search repos", asAda.repos.repoSearch({ q: "tools" }))
      yield* run("own repos", asAda.user.userCurrentListRepos())
      yield* run("user repos", asAda.users.userListRepos("ada"))
      yield* run("add collaborator", asAda.repos.repoAddCollaborator("ada", "tools", "bob", { permission: "read" }))
      yield* run("collaborators", asAda.repos.repoListCollaborators("ada", "tools"))
      yield* run("is collaborator", asAda.repos.repoCheckCollaborator("ada", "tools", "bob"))
      yield* run("permission", asAda.repos.repoGetRepoPermissions("ada", "tools", "bob"))
      yield* run("remove collaborator", asAda.repos.repoDeleteCollaborator("ada", "tools", "bob"))
      yield* run("create branch", asAda.repos.repoCreateBranch("ada", "tools", { new_branch_name: "feature", old_ref_name: "main" }))
      yield* run("branches", asAda.repos.repoListBranches("ada", "tools"))
      yield* run("branch", asAda.repos.repoGetBranch("ada", "tools", "feature"))
      yield* run("delete branch", asAda.repos.repoDeleteBranch("ada", "tools", "feature"))
      yield* run("repo signing key", asAda.repos.repoSigningKey("ada", "tools"))
      // The account key above is deleted by now, so its content may become a deploy key.
      const deployKey = yield* run("add deploy key", asAda.repos.repoCreateKey("ada", "tools", {
        title: "ci",
        key: "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl ci@example",
        read_only: true
      }))
      yield* run("deploy keys", asAda.repos.repoListKeys("ada", "tools"))
      yield* run("deploy key", asAda.repos.repoGetKey("ada", "tools", deployKey.id ?? 0))
      yield* run("delete deploy key", asAda.repos.repoDeleteKey("ada", "tools", deployKey.id ?? 0))
      yield* run("create status", asAda.repos.repoCreateStatus("ada", "tools", "main", {
        state: "success", target_url: "https://ci.example/1", description: "ok", context: "ci"
      }))
      yield* run("statuses", asAda.repos.repoListStatuses("ada", "tools", "main"))
      yield* run("statuses by ref", asAda.repos.repoListStatusesByRef("ada", "tools", "main"))
      yield* run("combined status", asAda.repos.repoGetCombinedStatusByRef("ada", "tools", "main"))
      yield* run("archive", asAda.repos.repoGetArchive("ada", "tools", "main.zip", { format: "arrayBuffer" }))
      yield* run("editorconfig", asAda.repos.repoGetEditorConfig("ada", "tools", "README.md").catch((error: unknown) => {
        // No .editorconfig in the repository: Forgejo's 404 (the call itself reached the route).
        if ((error as Response).status === 404) return { data: undefined }
        throw error
      }))
      const fork = yield* run("fork", client(yield* createToken(TestServer.basic("bob", "bob-password"), "bob", "bob-all", ["all"]))
        .repos.createFork("ada", "tools", { name: "tools-fork" }))
      assert.strictEqual(fork.name, "tools-fork")
      yield* run("forks", asAda.repos.listForks("ada", "tools"))
      yield* run("migrate", asAda.repos.repoMigrate({ clone_addr: `${base}/ada/tools.git`, repo_name: "tools-copy", service: "git" }))

      // Releases and their assets.
      const release = yield* run("create release", asAda.repos.repoCreateRelease("ada", "tools", { tag_name: "v1", name: "One", body: "notes" }))
      const releaseId = release.id ?? 0
      yield* run("releases", asAda.repos.repoListReleases("ada", "tools"))
      yield* run("release", asAda.repos.repoGetRelease("ada", "tools", releaseId))
      yield* run("release by tag", asAda.repos.repoGetReleaseByTag("ada", "tools", "v1"))
      yield* run("edit release", asAda.repos.repoEditRelease("ada", "tools", releaseId, { body: "more notes" }))
      const asset = yield* run("upload asset", asAda.repos.repoCreateReleaseAttachment("ada", "tools", releaseId, {
        attachment: new File([new Uint8Array([1, 2, 3])], "tool.bin")
      }, { name: "tool.bin" }))
      yield* run("assets", asAda.repos.repoListReleaseAttachments("ada", "tools", releaseId))
      yield* run("asset", asAda.repos.repoGetReleaseAttachment("ada", "tools", releaseId, asset.id ?? 0))
      yield* run("edit asset", asAda.repos.repoEditReleaseAttachment("ada", "tools", releaseId, asset.id ?? 0, { name: "tool-1.bin" }))
      yield* run("delete asset", asAda.repos.repoDeleteReleaseAttachment("ada", "tools", releaseId, asset.id ?? 0))
      yield* run("delete release", asAda.repos.repoDeleteRelease("ada", "tools", releaseId))

      // Organizations, members, teams, hooks.
      yield* run("create org", asAda.orgs.orgCreate({ username: "guild", website: "https://guild.example" }))
      yield* run("admin create org", root.admin.adminCreateOrg("bob", { username: "bobs-guild" }))
      yield* run("orgs", asAda.orgs.orgGetAll())
      yield* run("admin orgs", root.admin.adminGetAllOrgs())
      yield* run("org", asAda.orgs.orgGet("guild"))
      yield* run("edit org", asAda.orgs.orgEdit("guild", { full_name: "The Guild", website: "https://guild.example/home" }))
      yield* run("own orgs", asAda.user.orgListCurrentUserOrgs())
      yield* run("user orgs", asAda.users.orgListUserOrgs("ada"))
      yield* run("org repo", asAda.orgs.createOrgRepo("guild", { name: "shared", auto_init: true }))
      yield* run("org repo (deprecated path)", asAda.org.createOrgRepoDeprecated("guild", { name: "legacy" }))
      yield* run("org repos", asAda.orgs.orgListRepos("guild"))
      const team = yield* run("create team", asAda.orgs.orgCreateTeam("guild", {
        name: "builders", permission: "write", units: ["repo.code", "repo.releases"], includes_all_repositories: false
      }))
      const teamId = team.id ?? 0
      yield* run("teams", asAda.orgs.orgListTeams("guild"))
      yield* run("team", asAda.teams.orgGetTeam(teamId))
      yield* run("edit team", asAda.teams.orgEditTeam(teamId, { name: "makers", description: "they make" }))
      yield* run("add team member", asAda.teams.orgAddTeamMember(teamId, "bob"))
      yield* run("team members", asAda.teams.orgListTeamMembers(teamId))
      yield* run("team member", asAda.teams.orgListTeamMember(teamId, "bob"))
      yield* run("add team repo", asAda.teams.orgAddTeamRepository(teamId, "guild", "shared"))
      yield* run("team repos", asAda.teams.orgListTeamRepos(teamId))
      yield* run("team repo", asAda.teams.orgListTeamRepo(teamId, "guild", "shared"))
      yield* run("remove team repo", asAda.teams.orgRemoveTeamRepository(teamId, "guild", "shared"))
      yield* run("members", asAda.orgs.orgListMembers("guild"))
      yield* run("is member", asAda.orgs.orgIsMember("guild", "bob"))
      yield* run("publicize", asAda.orgs.orgPublicizeMember("guild", "ada"))
      yield* run("public members", asAda.orgs.orgListPublicMembers("guild"))
      yield* run("is public member", asAda.orgs.orgIsPublicMember("guild", "ada"))
      yield* run("conceal", asAda.orgs.orgConcealMember("guild", "ada"))
      yield* run("remove team member", asAda.teams.orgRemoveTeamMember(teamId, "bob"))
      yield* run("add team member again", asAda.teams.orgAddTeamMember(teamId, "bob"))
      yield* run("remove member", asAda.orgs.orgDeleteMember("guild", "bob"))
      yield* run("delete team", asAda.teams.orgDeleteTeam(teamId))
      const hook = yield* run("create hook", asAda.orgs.orgCreateHook("guild", {
        type: "gitea", config: { url: "https://hooks.example/in", content_type: "json" }, events: ["push"], active: true
      }))
      yield* run("hooks", asAda.orgs.orgListHooks("guild"))
      yield* run("hook", asAda.orgs.orgGetHook("guild", hook.id ?? 0))
      yield* run("edit hook", asAda.orgs.orgEditHook("guild", hook.id ?? 0, { active: false }))
      yield* run("delete hook", asAda.orgs.orgDeleteHook("guild", hook.id ?? 0))
      const repoHook = yield* run("create repo hook", asAda.repos.repoCreateHook("guild", "shared", {
        type: "gitea", config: { url: "https://hooks.example/repo", content_type: "json" }, events: ["push"], active: true
      }))
      yield* run("repo hooks", asAda.repos.repoListHooks("guild", "shared"))
      yield* run("repo hook", asAda.repos.repoGetHook("guild", "shared", repoHook.id ?? 0))
      yield* run("test repo hook", asAda.repos.repoTestHook("guild", "shared", repoHook.id ?? 0))
      yield* run("edit repo hook", asAda.repos.repoEditHook("guild", "shared", repoHook.id ?? 0, { active: false }))
      yield* run("delete repo hook", asAda.repos.repoDeleteHook("guild", "shared", repoHook.id ?? 0))

      // Markdown, packages.
      // gitea-js spells Go's untagged field names (`Text`); Go's decoder matches them in any case.
      assert.include(yield* run("markdown", asAda.markdown.renderMarkdown({ Text: "# Hi", Mode: "gfm" }, { format: "text" })), "Hi</h1>")
      assert.include(yield* run("raw markdown", asAda.markdown.renderMarkdownRaw("# Hi", { format: "text" })), "Hi</h1>")
      const upload = yield* request("PUT", "/api/packages/ada/generic/tool/1.0.0/tool.tar.gz", {
        auth: { token: adaToken }, body: "bytes", contentType: "application/octet-stream"
      })
      assert.strictEqual(upload.status, 201, upload.text)
      yield* run("packages", asAda.packages.listPackages("ada"))

      // Unadopted repositories: a directory with no row.
      const orphan = join(config.dataDir, "repositories", "ada", "found.git")
      const lost = join(config.dataDir, "repositories", "ada", "lost.git")
      for (const path of [orphan, lost]) {
        mkdirSync(path, { recursive: true })
        execFileSync("git", ["init", "--quiet", "--bare", path])
      }
      yield* run("unadopted", root.admin.adminUnadoptedList())
      yield* run("adopt", root.admin.adminAdoptRepository("ada", "found"))
      yield* run("delete unadopted", root.admin.adminDeleteUnadoptedRepository("ada", "lost"))

      // Deletions last.
      yield* run("delete repo", asAda.repos.repoDelete("ada", "found"))
      yield* run("delete org", root.orgs.orgDelete("bobs-guild"))
      yield* run("delete user", root.admin.adminDeleteUser("bob", { purge: true }))

      assert.deepStrictEqual(observed.failures, [])

      // Every operation both sides have was called.
      const swagger = yield* request("GET", "/swagger.v1.json")
      const paths = (swagger.body as { paths: Record<string, Record<string, { operationId: string }>> }).paths
      const served = Object.entries(paths).flatMap(([path, methods]) =>
        Object.entries(methods).map(([method, { operationId }]) => ({ method: method.toUpperCase(), path, operationId }))
      )
      const shape = (path: string) => path.replace(/\{[^}]+\}/g, "{}")
      const shared = declarations.operations.filter((operation) =>
        served.some((kiln) =>
          kiln.method === operation.method &&
          (shape(kiln.path) === shape(operation.path) || kiln.operationId.toLowerCase() === operation.name.toLowerCase())
        )
      )
      assert.isAtLeast(shared.length, 90)
      assert.deepStrictEqual(shared.map((operation) => operation.name).filter((name) => !observed.called.has(name)), [])

      // Every declared field is present, but for the named exceptions, each of which was seen absent.
      const unexpected = [...observed.missing].filter(([field]) => MAY_BE_ABSENT[field] === undefined)
      assert.deepStrictEqual(unexpected.map(([field, operation]) => `${field} (${operation})`), [])
      assert.deepStrictEqual(Object.keys(MAY_BE_ABSENT).filter((field) => !observed.missing.has(field)), [])
    }))
})
