/**
 * The database row and the bare repository stay in step when a step fails: the disk step (an
 * injected GitStorage failure) or the commit (a deferred constraint trigger refusing at COMMIT,
 * a real database failure after the disk step has run), or when the process stops between the
 * disk step and the commit (the mark such a process leaves, and its disk step, made by hand here;
 * test/process/InterruptedDirectorySteps kills a real server there).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import { GitStorage } from "@kiln/domain/git/GitStorage"
import { GitStorageFailure } from "@kiln/domain/git/GitStorageFailure"
import { repositoryDirectoryKey, WriteLocks } from "@kiln/domain/coordination/WriteLocks"
import * as DirectorySteps from "@kiln/domain/repo/DirectorySteps"
import { PendingDirectorySteps } from "@kiln/domain/repo/PendingDirectorySteps"
import * as Repositories from "@kiln/domain/repo/Repositories"
import { RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import type { NewAccount } from "@kiln/domain/user/User"
import { UserStore } from "@kiln/domain/user/UserStore"
import { makeGitStorage, RepositoryDirectoriesLive } from "@kiln/git"
import * as RepositoryRedirectStoreSql from "@kiln/postgres/stores/RepositoryRedirectStoreSql"
import * as Coordination from "@kiln/postgres/coordination/Coordination"
import * as PendingDirectoryStepsSql from "@kiln/postgres/stores/PendingDirectoryStepsSql"
import * as RepositoryStoreSql from "@kiln/postgres/stores/RepositoryStoreSql"
import * as RepositoryTransactionsSql from "@kiln/postgres/stores/RepositoryTransactionsSql"
import * as TeamStoreSql from "@kiln/postgres/stores/TeamStoreSql"
import * as UserStoreSql from "@kiln/postgres/stores/UserStoreSql"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import * as TemplateInitialFiles from "../../src/platform/TemplateInitialFiles.ts"
import { DatabaseLive } from "../support/TestServer.ts"

const root = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kiln-repo-consistency-"))
const directory = (owner: string, name: string) => Path.join(root, owner, `${name.toLowerCase()}.git`)

/** The real adapter, except that creating a repository named `disk-fails*` fails as a full disk would. */
const FlakyStorage = Layer.effect(GitStorage, Effect.gen(function*() {
  const real = yield* makeGitStorage(root)
  return GitStorage.of({
    ...real,
    create: (location, options) =>
      location.name.startsWith("disk-fails")
        ? Effect.fail(new GitStorageFailure({ operation: "create", message: "injected: no space left on device" }))
        : real.create(location, options)
  })
}))

/** Refuses, at COMMIT, any row change touching a repository whose name starts with `commit-fails`. */
const CommitRefusal = Layer.effectDiscard(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE FUNCTION refuse_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF (TG_OP <> 'DELETE' AND NEW.name LIKE 'commit-fails%') OR (TG_OP = 'DELETE' AND OLD.name LIKE 'commit-fails%') THEN
        RAISE EXCEPTION 'refused at commit';
      END IF;
      RETURN NULL;
    END $$`
  yield* sql`CREATE CONSTRAINT TRIGGER refuse_at_commit AFTER INSERT OR UPDATE OR DELETE ON repositories
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_at_commit()`
}))

const Stores = Layer.mergeAll(RepositoryStoreSql.layer, TeamStoreSql.layer, UserStoreSql.layer, RepositoryTransactionsSql.layer)
  .pipe(Layer.merge(RepositoryRedirectStoreSql.layer))

const TestLayer = Repositories.layer.pipe(
  Layer.provideMerge(DirectorySteps.layer),
  Layer.provideMerge(Layer.mergeAll(Stores, FlakyStorage, RepositoryDirectoriesLive(root), TemplateInitialFiles.layer, PendingDirectoryStepsSql.layer)),
  Layer.provideMerge(CommitRefusal),
  Layer.provideMerge(Coordination.layer),
  Layer.provideMerge(DatabaseLive)
)

const account = (name: string): NewAccount => ({
  name, kind: "individual", fullName: "", email: `${name}@example.com`, keepEmailPrivate: false, loginName: name,
  sourceId: 0, isAdmin: false, restricted: false, active: true, prohibitLogin: false, mustChangePassword: false,
  visibility: "public", location: "", pronouns: "", keepPronounsPrivate: false, website: "", description: "",
  language: "", maxRepoCreation: -1, allowCreateOrganization: true, allowGitHook: false, allowImportLocal: false,
  repoAdminChangeTeamAccess: false, createdAt: 0, updatedAt: 0, lastLoginAt: 0
})

const owner = (name: string) => Effect.flatMap(Effect.service(UserStore), (users) => Effect.orDie(users.insert(account(name), "")))

const rowExists = (ownerName: string, name: string) =>
  Effect.flatMap(Effect.service(RepositoryStore), (store) => Effect.map(store.find(ownerName, name), Option.isSome))

layer(TestLayer, { timeout: "120 seconds" })("repository row and disk stay consistent", (it) => {
  it.effect("a failed disk step leaves neither row nor directory, and the name stays free", () =>
    Effect.gen(function*() {
      const repositories = yield* Repositories.Repositories
      const user = yield* owner("ann")
      const failed = yield* Effect.exit(repositories.create(user, user, { name: "disk-fails", autoInit: true }))
      assert.isTrue(Exit.isFailure(failed))
      assert.isFalse(yield* rowExists("ann", "disk-fails"))
      assert.isFalse(Fs.existsSync(directory("ann", "disk-fails")))
      assert.deepStrictEqual(Fs.existsSync(Path.join(root, "ann")) ? Fs.readdirSync(Path.join(root, "ann")) : [], [])
    }))

  it.effect("a failed commit after the disk step removes the new directory again", () =>
    Effect.gen(function*() {
      const repositories = yield* Repositories.Repositories
      const user = yield* owner("ben")
      const failed = yield* Effect.exit(repositories.create(user, user, { name: "commit-fails", autoInit: true }))
      assert.isTrue(Exit.isFailure(failed))
      assert.isFalse(yield* rowExists("ben", "commit-fails"))
      assert.isFalse(Fs.existsSync(directory("ben", "commit-fails")))
    }))

  it.effect("a rename whose commit fails moves the directory back; a delete whose commit fails keeps both", () =>
    Effect.gen(function*() {
      const repositories = yield* Repositories.Repositories
      const user = yield* owner("cat")
      const created = yield* repositories.create(user, user, { name: "stays", autoInit: true })
      assert.isTrue(Fs.existsSync(directory("cat", "stays")))

      const renameFails = yield* Effect.exit(repositories.edit(user, created, { name: "commit-fails-rename" }))
      assert.isTrue(Exit.isFailure(renameFails))
      assert.isTrue(yield* rowExists("cat", "stays"))
      assert.isTrue(Fs.existsSync(Path.join(directory("cat", "stays"), "HEAD")))
      assert.isFalse(Fs.existsSync(directory("cat", "commit-fails-rename")))

      const doomed = yield* repositories.create(user, user, { name: "commit-fails-later" }).pipe(Effect.exit)
      // Its insert is refused at commit too, so there is nothing to delete: the directory is gone as well.
      assert.isTrue(Exit.isFailure(doomed))
      assert.isFalse(Fs.existsSync(directory("cat", "commit-fails-later")))

      const renamed = yield* repositories.edit(user, created, { name: "renamed" })
      assert.isTrue(Fs.existsSync(Path.join(directory("cat", "renamed"), "HEAD")))
      yield* repositories.remove(user, renamed)
      assert.isFalse(yield* rowExists("cat", "renamed"))
      assert.deepStrictEqual(Fs.readdirSync(Path.join(root, "cat")), [])
    }))

  it.effect("a delete whose commit fails leaves the row and its directory in place", () =>
    Effect.gen(function*() {
      const repositories = yield* Repositories.Repositories
      const sql = yield* SqlClient.SqlClient
      const user = yield* owner("dan")
      const created = yield* repositories.create(user, user, { name: "kept", autoInit: true })
      // Rename the row only (no disk change) so that its deletion is refused at commit.
      yield* sql`ALTER TABLE repositories DISABLE TRIGGER refuse_at_commit`
      yield* sql`UPDATE repositories SET name = 'commit-fails-kept', lower_name = 'commit-fails-kept' WHERE id = ${created.repository.id}`
      yield* sql`ALTER TABLE repositories ENABLE TRIGGER refuse_at_commit`
      Fs.renameSync(directory("dan", "kept"), directory("dan", "commit-fails-kept"))
      const target = yield* repositories.accessible(Option.some(user), "dan", "commit-fails-kept")
      const failed = yield* Effect.exit(repositories.remove(user, target))
      assert.isTrue(Exit.isFailure(failed))
      assert.isTrue(yield* rowExists("dan", "commit-fails-kept"))
      assert.isTrue(Fs.existsSync(Path.join(directory("dan", "commit-fails-kept"), "HEAD")))
      assert.deepStrictEqual(Fs.readdirSync(Path.join(root, "dan")), ["commit-fails-kept.git"])
    }))

  it.effect("a create whose process stopped before its commit is undone by the next create of that name", () =>
    Effect.gen(function*() {
      const repositories = yield* Repositories.Repositories
      const pending = yield* PendingDirectorySteps
      const git = yield* GitStorage
      const user = yield* owner("eve")
      const location = { owner: "eve", name: "interrupted" }
      // What the killed process left: its mark, and the directory placed without its row.
      yield* pending.mark(repositoryDirectoryKey(location), [{ _tag: "Remove", location }])
      yield* git.create(location, { defaultBranch: "left-behind" })
      assert.isFalse(yield* rowExists("eve", "interrupted"))

      const created = yield* repositories.create(user, user, { name: "interrupted", autoInit: true, defaultBranch: "main" })
      assert.strictEqual(created.repository.defaultBranch, "main")
      assert.strictEqual(Fs.readFileSync(Path.join(directory("eve", "interrupted"), "HEAD"), "utf8").trim(), "ref: refs/heads/main")
      assert.deepStrictEqual(yield* pending.list(undefined), [])
    }))

  it.effect("a fork's or migration's check for left files undoes an interrupted step; a directory without a mark stays", () =>
    Effect.gen(function*() {
      const steps = yield* DirectorySteps.DirectorySteps
      const pending = yield* PendingDirectorySteps
      const git = yield* GitStorage
      yield* owner("fay")
      const interrupted = { owner: "fay", name: "half-forked" }
      const unadopted = { owner: "fay", name: "copied-in" }
      yield* pending.mark(repositoryDirectoryKey(interrupted), [{ _tag: "Remove", location: interrupted }])
      yield* git.create(interrupted, { defaultBranch: "main" })
      yield* git.create(unadopted, { defaultBranch: "main" })

      yield* steps.settle(interrupted)
      yield* steps.settle(unadopted)
      assert.isFalse(Fs.existsSync(directory("fay", "half-forked")))
      assert.isTrue(Fs.existsSync(Path.join(directory("fay", "copied-in"), "HEAD")))
      assert.deepStrictEqual(yield* pending.list(undefined), [])
    }))

  it.effect("a rename and a delete whose process stopped before their commit are moved back at start", () =>
    Effect.gen(function*() {
      const repositories = yield* Repositories.Repositories
      const steps = yield* DirectorySteps.DirectorySteps
      const pending = yield* PendingDirectorySteps
      const git = yield* GitStorage
      const user = yield* owner("gus")
      yield* repositories.create(user, user, { name: "before", autoInit: true })
      yield* repositories.create(user, user, { name: "doomed", autoInit: true })
      // A rename moved the directory and a delete moved its repository to the tombstone; neither committed.
      const before = { owner: "gus", name: "before" }
      const after = { owner: "gus", name: "after" }
      yield* pending.mark(repositoryDirectoryKey(after), [{ _tag: "Move", from: after, to: before }])
      yield* git.move(before, after)
      const doomed = { owner: "gus", name: "doomed" }
      const tombstone = { owner: "gus", name: "doomed.deleted-0.git" }
      yield* pending.mark(repositoryDirectoryKey(doomed), [{ _tag: "Move", from: tombstone, to: doomed }])
      yield* git.move(doomed, tombstone)

      // A key held is a live section's: its own commit or undo settles it.
      const writeLocks = yield* WriteLocks
      assert.strictEqual(yield* writeLocks.withLock(repositoryDirectoryKey(after), steps.settleAll), 1)
      assert.isTrue(Fs.existsSync(Path.join(directory("gus", "after"), "HEAD")))

      assert.strictEqual(yield* steps.settleAll, 1)
      assert.deepStrictEqual(Fs.readdirSync(Path.join(root, "gus")).sort(), ["before.git", "doomed.git"])
      assert.isTrue(Fs.existsSync(Path.join(directory("gus", "before"), "HEAD")))
      assert.isTrue(Fs.existsSync(Path.join(directory("gus", "doomed"), "HEAD")))
      const found = yield* repositories.accessible(Option.some(user), "gus", "before")
      yield* repositories.remove(user, found)
      assert.deepStrictEqual(Fs.readdirSync(Path.join(root, "gus")), ["doomed.git"])
      assert.strictEqual(yield* steps.settleAll, 0)
      assert.deepStrictEqual(yield* pending.list(undefined), [])
    }))

  it.effect("a delete whose process stopped after its commit, before erasing its files, has them erased at start", () =>
    Effect.gen(function*() {
      const repositories = yield* Repositories.Repositories
      const steps = yield* DirectorySteps.DirectorySteps
      const pending = yield* PendingDirectorySteps
      const git = yield* GitStorage
      const user = yield* owner("hal")
      const created = yield* repositories.create(user, user, { name: "erased", autoInit: true })
      yield* repositories.remove(user, created)
      assert.deepStrictEqual(Fs.readdirSync(Path.join(root, "hal")), [])
      assert.deepStrictEqual(yield* pending.list(undefined), [])

      // What the killed process left: the deletion committed, its mark turned into the erasure, the tombstone.
      const location = { owner: "hal", name: "gone" }
      const tombstone = { owner: "hal", name: "gone.deleted-0.git" }
      const id = yield* pending.mark(repositoryDirectoryKey(location), [{ _tag: "Move", from: tombstone, to: location }])
      assert.isTrue(yield* pending.replace(id, [{ _tag: "Remove", location: tombstone }]))
      yield* git.create(tombstone, { defaultBranch: "main" })
      assert.strictEqual(yield* steps.settleAll, 1)
      assert.deepStrictEqual(Fs.readdirSync(Path.join(root, "hal")), [])
      assert.deepStrictEqual(yield* pending.list(undefined), [])
    }))
})
