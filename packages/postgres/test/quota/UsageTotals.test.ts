/**
 * The usage totals and release counts kept on write (migrations 0007 and 0020), and the quota lists
 * read through them, against fresh sums, counts and sorts over the item rows, on PGlite (or Postgres
 * with KILN_TEST_DATABASE_URL): random sequences of uploads, releases published and unpublished,
 * and deletions through the stores, and the writes foreign keys and
 * future features make without them (repository and account deletion cascades, package links,
 * repository transfers), across the repositories of a user, of an organization and of an account
 * that gets deleted; LFS references added, removed and copied by forks; and concurrent uploads adding up exactly. One database for the file: every
 * run keeps what the previous ones left.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import fc from "fast-check"
import { LfsStore } from "@kiln/domain/lfs/LfsStore"
import type { PackageCoordinates } from "@kiln/domain/package/Package"
import { PackageStore } from "@kiln/domain/package/PackageStore"
import { QuotaStore } from "@kiln/domain/quota/QuotaStore"
import { ReleaseStore } from "@kiln/domain/release/ReleaseStore"
import { RepositoryStore } from "@kiln/domain/repo/RepositoryStore"
import { UserStore } from "@kiln/domain/user/UserStore"
import { layer as migrations } from "../../src/migrations/index.ts"
import * as LfsStoreSql from "../../src/stores/LfsStoreSql.ts"
import * as PackageStoreSql from "../../src/stores/PackageStoreSql.ts"
import * as QuotaStoreSql from "../../src/stores/QuotaStoreSql.ts"
import * as ReleaseStoreSql from "../../src/stores/ReleaseStoreSql.ts"
import * as RepositoryStoreSql from "../../src/stores/RepositoryStoreSql.ts"
import { int } from "../../src/stores/Rows.ts"
import * as UserStoreSql from "../../src/stores/UserStoreSql.ts"
import * as TestDatabase from "../../src/testing/TestDatabase.ts"
import { driftedTotals, freshLists, freshUsage } from "./UsageTotalsChecks.ts"

const Database = migrations.pipe(Layer.provideMerge(TestDatabase.layer))
const Stores = Layer.mergeAll(
  LfsStoreSql.layer,
  PackageStoreSql.layer,
  QuotaStoreSql.layer,
  ReleaseStoreSql.layer,
  RepositoryStoreSql.layer,
  UserStoreSql.layer
)

/** A name no earlier call gave, for accounts, repositories, tags and blobs. */
let counter = 0
const fresh = (prefix: string) => `${prefix}-${++counter}`

const account = (kind: "individual" | "organization") =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const name = fresh(kind === "individual" ? "user" : "org")
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO users (name, lower_name, kind, email, visibility, created_at, updated_at)
      VALUES (${name}, ${name}, ${kind}, ${`${name}@example.com`}, 'public', 0, 0) RETURNING id`
    return int(row?.id)
  })

const repository = (ownerId: number, isPrivate: boolean) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const name = fresh("repo")
    const [row] = yield* sql<{ id: unknown }>`INSERT INTO repositories (owner_id, name, lower_name, default_branch,
        wiki_branch, is_private, size, units, created_at, updated_at)
      VALUES (${ownerId}, ${name}, ${name}, 'main', 'main', ${isPrivate}, ${name.length}, '{}'::jsonb, 0, 0) RETURNING id`
    return int(row?.id)
  })

const release = (repoId: number, isDraft = false) =>
  Effect.flatMap(ReleaseStore, (store) =>
    store.insert({
      repoId,
      publisherId: 1,
      tagName: fresh("v"),
      target: "main",
      title: "",
      note: "",
      sha1: "",
      isDraft,
      isPrerelease: false,
      hideArchiveLinks: false,
      createdAt: 1
    }))

const digests = (seed: string) => ({
  md5: seed.padEnd(32, "0"),
  sha1: seed.padEnd(40, "0"),
  sha256: seed.padEnd(64, "0"),
  sha512: seed.padEnd(128, "0")
})

/**
 * One of the last few rows a query lists (by `index`), or nothing when there are none: steps act on
 * what recent steps made, which more often holds bytes than what earlier runs left.
 */
const pick = <Row>(rows: ReadonlyArray<Row>, index: number): Row | undefined =>
  rows.length === 0 ? undefined : rows[rows.length - 1 - index % Math.min(rows.length, 4)]

/** The accounts whose repositories and packages the steps use; the last one may be deleted and replaced. */
interface Owners {
  readonly user: number
  readonly org: number
  doomed: number
}

type Step =
  | { readonly _tag: "createRepository"; readonly owner: number; readonly isPrivate: boolean }
  | { readonly _tag: "createRelease"; readonly repo: number; readonly isDraft: boolean }
  | { readonly _tag: "publishRelease"; readonly release: number; readonly isDraft: boolean }
  | { readonly _tag: "attach"; readonly release: number; readonly size: number }
  | { readonly _tag: "detach"; readonly attachment: number }
  | { readonly _tag: "deleteRelease"; readonly release: number }
  | { readonly _tag: "upload"; readonly owner: number; readonly name: number; readonly version: number; readonly file: number; readonly size: number }
  | { readonly _tag: "deleteFile"; readonly file: number }
  | { readonly _tag: "deleteVersion"; readonly version: number }
  | { readonly _tag: "link"; readonly pkg: number; readonly repo: number | null }
  | { readonly _tag: "deleteRepository"; readonly repo: number }
  | { readonly _tag: "transferRepository"; readonly repo: number; readonly owner: number }
  | { readonly _tag: "deleteAccount" }
  | { readonly _tag: "lfsUpload"; readonly repo: number; readonly object: number; readonly size: number }
  | { readonly _tag: "lfsUnreference"; readonly reference: number }
  | { readonly _tag: "fork"; readonly repo: number; readonly owner: number }

const index = fc.nat({ max: 1000 })
const size = fc.oneof(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 2 ** 32, max: 2 ** 40 }))

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ _tag: fc.constant("createRepository" as const), owner: index, isPrivate: fc.boolean() }), weight: 2 },
  { arbitrary: fc.record({ _tag: fc.constant("createRelease" as const), repo: index, isDraft: fc.boolean() }), weight: 3 },
  fc.record({ _tag: fc.constant("publishRelease" as const), release: index, isDraft: fc.boolean() }),
  { arbitrary: fc.record({ _tag: fc.constant("attach" as const), release: index, size }), weight: 6 },
  fc.record({ _tag: fc.constant("detach" as const), attachment: index }),
  fc.record({ _tag: fc.constant("deleteRelease" as const), release: index }),
  {
    arbitrary: fc.record({
      _tag: fc.constant("upload" as const),
      owner: index,
      name: fc.nat({ max: 3 }),
      version: fc.nat({ max: 2 }),
      file: fc.nat({ max: 3 }),
      size
    }),
    weight: 6
  },
  fc.record({ _tag: fc.constant("deleteFile" as const), file: index }),
  fc.record({ _tag: fc.constant("deleteVersion" as const), version: index }),
  fc.record({ _tag: fc.constant("link" as const), pkg: index, repo: fc.option(index) }),
  fc.record({ _tag: fc.constant("deleteRepository" as const), repo: index }),
  fc.record({ _tag: fc.constant("transferRepository" as const), repo: index, owner: index }),
  fc.record({ _tag: fc.constant("deleteAccount" as const) }),
  {
    arbitrary: fc.record({ _tag: fc.constant("lfsUpload" as const), repo: index, object: fc.nat({ max: 6 }), size }),
    weight: 5
  },
  fc.record({ _tag: fc.constant("lfsUnreference" as const), reference: index }),
  fc.record({ _tag: fc.constant("fork" as const), repo: index, owner: index })
)

const ownerOf = (owners: Owners, choice: number) => [owners.user, owners.org, owners.doomed][choice % 3] ?? owners.user

const ids = <E, R>(query: Effect.Effect<ReadonlyArray<{ id: unknown }>, E, R>) =>
  Effect.map(query, (rows) => rows.map((row) => int(row.id)))

/** Runs one step through the stores (or, where no store does it yet, the SQL a feature would run). */
const run = (owners: Owners, next: Step) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const releases = yield* ReleaseStore
    const packages = yield* PackageStore
    const repositories = yield* RepositoryStore
    const users = yield* UserStore
    const lfs = yield* LfsStore
    const everyOwner = [owners.user, owners.org, owners.doomed]
    const ownedRepositories = ids(sql`SELECT id FROM repositories WHERE owner_id = ANY(${everyOwner}::bigint[]) ORDER BY id`)
    const coordinates = (row: { owner_id: unknown; name: string; version: string }): PackageCoordinates => ({
      ownerId: int(row.owner_id),
      type: "generic",
      name: row.name,
      version: row.version
    })
    switch (next._tag) {
      case "createRepository":
        yield* repository(ownerOf(owners, next.owner), next.isPrivate)
        return
      case "createRelease": {
        const repo = pick(yield* ownedRepositories, next.repo)
        if (repo !== undefined) yield* release(repo, next.isDraft)
        return
      }
      case "publishRelease": {
        const id = pick(yield* ids(sql`SELECT id FROM releases ORDER BY id`), next.release)
        if (id !== undefined) yield* Effect.orDie(releases.update(id, { isDraft: next.isDraft }))
        return
      }
      case "attach": {
        const row = pick(yield* sql<{ id: unknown; repo_id: unknown }>`SELECT id, repo_id FROM releases ORDER BY id`, next.release)
        if (row === undefined) return
        yield* releases.insertAttachment({
          repoId: int(row.repo_id),
          releaseId: int(row.id),
          uploaderId: owners.user,
          name: "asset",
          size: next.size,
          sha256: "",
          externalUrl: "",
          createdAt: 1
        })
        return
      }
      case "detach": {
        const attachment = pick(yield* ids(sql`SELECT id FROM attachments ORDER BY id`), next.attachment)
        if (attachment !== undefined) yield* releases.removeAttachment(attachment)
        return
      }
      case "deleteRelease": {
        const id = pick(yield* ids(sql`SELECT id FROM releases ORDER BY id`), next.release)
        if (id !== undefined) yield* releases.remove(id)
        return
      }
      case "upload": {
        const added = packages.addFile({
          ownerId: ownerOf(owners, next.owner),
          creatorId: owners.user,
          type: "generic",
          name: `pkg-${next.name}`,
          version: `1.${next.version}`,
          fileName: `file-${next.file}`,
          blob: { size: next.size, digests: digests(fresh("blob")) },
          createdAt: 1
        })
        // A file of that name is there already: the store refuses, nothing changes.
        return yield* added.pipe(Effect.asVoid, Effect.catchTag("AlreadyExists", () => Effect.void))
      }
      case "deleteFile": {
        const files = yield* sql<{ owner_id: unknown; name: string; version: string; file: string }>`SELECT
            p.owner_id, p.name, v.version, f.name AS file
          FROM package_files f JOIN package_versions v ON v.id = f.version_id JOIN packages p ON p.id = v.package_id
          ORDER BY f.id`
        const row = pick(files, next.file)
        if (row !== undefined) yield* packages.removeFile(coordinates(row), row.file)
        return
      }
      case "deleteVersion": {
        const versions = yield* sql<{ owner_id: unknown; name: string; version: string }>`SELECT
            p.owner_id, p.name, v.version FROM package_versions v JOIN packages p ON p.id = v.package_id ORDER BY v.id`
        const row = pick(versions, next.version)
        if (row !== undefined) yield* packages.removeVersion(coordinates(row))
        return
      }
      case "link": {
        const pkg = pick(yield* ids(sql`SELECT id FROM packages ORDER BY id`), next.pkg)
        const repo = next.repo === null ? null : pick(yield* ownedRepositories, next.repo) ?? null
        if (pkg !== undefined) yield* sql`UPDATE packages SET repo_id = ${repo} WHERE id = ${pkg}`
        return
      }
      case "deleteRepository": {
        const repo = pick(yield* ownedRepositories, next.repo)
        if (repo !== undefined) yield* repositories.remove(repo)
        return
      }
      case "transferRepository": {
        // As a transfer would: the row changes owner (and name, unique per owner).
        const repo = pick(yield* ownedRepositories, next.repo)
        const name = fresh("repo")
        if (repo !== undefined) {
          yield* sql`UPDATE repositories SET owner_id = ${ownerOf(owners, next.owner)}, name = ${name},
            lower_name = ${name} WHERE id = ${repo}`
        }
        return
      }
      case "deleteAccount": {
        // As a purge: the account's repositories go first, then the account with its packages.
        for (const repo of yield* ids(sql`SELECT id FROM repositories WHERE owner_id = ${owners.doomed}`)) {
          yield* repositories.remove(repo)
        }
        yield* users.remove(owners.doomed)
        owners.doomed = yield* account("individual")
        return
      }
      case "lfsUpload": {
        // As an upload completes: the object claimed (kept with its first size), then referenced.
        const repo = pick(yield* ownedRepositories, next.repo)
        if (repo === undefined) return
        const object = { oid: next.object.toString(16).padStart(64, "0"), size: next.size }
        yield* sql.withTransaction(Effect.gen(function*() {
          yield* lfs.claim(object, 1)
          yield* lfs.addReference(repo, object, 1)
        }))
        return
      }
      case "lfsUnreference": {
        const row = pick(yield* sql<{ repo_id: unknown; oid: string }>`SELECT repo_id, oid FROM lfs_references
          ORDER BY repo_id, oid`, next.reference)
        if (row !== undefined) yield* lfs.removeReference(int(row.repo_id), row.oid)
        return
      }
      case "fork": {
        // As a fork's row is inserted: it starts with its base's references (migration 0018).
        const base = pick(yield* ownedRepositories, next.repo)
        if (base === undefined) return
        const name = fresh("fork")
        yield* sql`INSERT INTO repositories (owner_id, name, lower_name, default_branch, wiki_branch, size, units,
            is_fork, fork_id, created_at, updated_at)
          VALUES (${ownerOf(owners, next.owner)}, ${name}, ${name}, 'main', 'main', 0, '{}'::jsonb, true, ${base}, 0, 0)`
        return
      }
    }
  }).pipe(Effect.orDie)

/** How many items of each list are compared. */
const LISTED = 8

const expectTotalsAgree = (owners: Owners, after: string) =>
  Effect.gen(function*() {
    const quota = yield* QuotaStore
    assert.deepStrictEqual(yield* Effect.orDie(driftedTotals), [], `drifted after ${after}`)
    for (const owner of [owners.user, owners.org, owners.doomed]) {
      assert.deepStrictEqual(yield* quota.usageOf(owner), yield* Effect.orDie(freshUsage(owner)), `owner ${owner} after ${after}`)
      const attachments = yield* quota.listAttachments(owner, { page: 1, limit: LISTED })
      const versions = yield* quota.listPackages(owner, { page: 1, limit: LISTED })
      assert.deepStrictEqual({
        attachments: attachments.items.map((item) => [item.id, item.size]),
        attachmentTotal: attachments.total,
        versions: versions.items.map((item) => [item.id, item.size]),
        versionTotal: versions.total
      }, yield* Effect.orDie(freshLists(owner, LISTED)), `lists of owner ${owner} after ${after}`)
    }
  })

layer(Stores.pipe(Layer.provideMerge(Database)), { timeout: "600 seconds" })("usage totals", (it) => {
  // The live clock: the steps run as promises under fast-check, where nothing would move a test clock.
  it.effect("equal fresh sums over the item rows after every step of random uploads, deletions and moves", () =>
    TestClock.withLive(Effect.gen(function*() {
      const owners: Owners = {
        user: yield* Effect.orDie(account("individual")),
        org: yield* Effect.orDie(account("organization")),
        doomed: yield* Effect.orDie(account("individual"))
      }
      /** The kinds of step that changed some owner's attachment or package bytes at least once. */
      const effective = new Set<Step["_tag"]>()
      const assetBytes = Effect.forEach([owners.user, owners.org, owners.doomed], (owner) =>
        Effect.map(Effect.orDie(freshUsage(owner)), (usage) => [usage.attachmentsReleases, usage.packages, usage.gitLfs]))
      const context = yield* Effect.context<
        SqlClient.SqlClient | ReleaseStore | PackageStore | RepositoryStore | UserStore | QuotaStore | LfsStore
      >()
      const runSteps = (steps: ReadonlyArray<Step>) =>
        Effect.runPromiseWith(context)(Effect.gen(function*() {
          for (const next of steps) {
            const before = yield* assetBytes
            yield* run(owners, next)
            if (JSON.stringify(yield* assetBytes) !== JSON.stringify(before)) effective.add(next._tag)
            yield* expectTotalsAgree(owners, JSON.stringify(next))
          }
        }))
      yield* Effect.promise(() =>
        fc.assert(fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 60 }), runSteps), { numRuns: 40 }))
      // A purge of an account that holds something, written out: drawn at random, the purge came
      // only when the account held nothing in a whole CI run once (40 runs, 16 kinds of step). The
      // first purge leaves a fresh account, where the upload cannot find its file already there
      // (with 0 bytes, it once did: the second purge then moved nothing).
      yield* Effect.promise(() =>
        runSteps([
          { _tag: "deleteAccount" },
          { _tag: "upload", owner: 2, name: 0, version: 0, file: 0, size: 100 },
          { _tag: "deleteAccount" }
        ])
      )
      // Every kind of step that can move bytes did, so the runs checked what they claim to.
      const moving: ReadonlyArray<Step["_tag"]> = [
        "attach", "detach", "deleteRelease", "upload", "deleteFile", "deleteVersion", "link", "deleteRepository",
        "transferRepository", "deleteAccount", "lfsUpload", "lfsUnreference", "fork"
      ]
      assert.deepStrictEqual(moving.filter((tag) => !effective.has(tag)), [], "kinds of step that never moved bytes")
    })))

  it.effect("concurrent uploads to one repository and one owner's packages add up exactly", () =>
    Effect.gen(function*() {
      const quota = yield* QuotaStore
      const releases = yield* ReleaseStore
      const packages = yield* PackageStore
      const sql = yield* SqlClient.SqlClient
      const owner = yield* Effect.orDie(account("organization"))
      const target = yield* Effect.orDie(Effect.flatMap(repository(owner, false), release))
      const sizes = Array.from({ length: 24 }, (_, i) => 1000 * (i + 1) + i)
      yield* Effect.all(sizes.map((bytes) =>
        releases.insertAttachment({
          repoId: target.repoId,
          releaseId: target.id,
          uploaderId: owner,
          name: `asset-${bytes}`,
          size: bytes,
          sha256: "",
          externalUrl: "",
          createdAt: 1
        })), { concurrency: "unbounded" })
      // Distinct packages of one owner: the first uploads race to create the owner's total.
      yield* Effect.all(sizes.map((bytes, i) =>
        sql.withTransaction(packages.addFile({
          ownerId: owner,
          creatorId: owner,
          type: "generic",
          name: `race-${i % 6}`,
          version: `1.${i}`,
          fileName: "f",
          blob: { size: bytes, digests: digests(fresh("race")) },
          createdAt: 1
        }))), { concurrency: "unbounded" })
      const total = sizes.reduce((sum, bytes) => sum + bytes, 0)
      const usage = yield* quota.usageOf(owner)
      assert.strictEqual(usage.attachmentsReleases, total)
      assert.strictEqual(usage.packages, total)
      assert.deepStrictEqual(yield* Effect.orDie(driftedTotals), [])
    }))
})
