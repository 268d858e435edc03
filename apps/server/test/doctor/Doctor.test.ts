/**
 * `kiln doctor` on a data directory damaged in each way it checks: every kind is found with its
 * count, `--fix` repairs what is safe and names what needs a decision, and once those decisions are
 * taken through the API the report is clean (exit status 0).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { Database } from "@kiln/postgres"
import { adminAuth, aliceAuth, api, freshDatabase, gitEnv, ok, populate, runCli, temporaryDirectory } from "../backup/BackupFixtures.ts"
import { freePort, listening, spawnServer } from "../support/ServerProcess.ts"

/** Runs SQL on the data directory's database while no server runs on it. */
const onDatabase = (dataDir: string, env: Record<string, string>, statements: ReadonlyArray<string>) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const statement of statements) yield* sql.unsafe(statement)
  }).pipe(Effect.provide(Layer.fresh(Database.layer({
    dataDir,
    databaseUrl: env["DATABASE_URL"] === undefined ? Option.none() : Option.some(Redacted.make(env["DATABASE_URL"]))
  }))))))

const checkLine = (output: string, check: string) => new RegExp(`^(ok|FOUND) +${check.replace(/[()]/g, "\\$&")}: (\\d+)$`, "m").exec(output)

const found = (output: string, check: string) => {
  const line = checkLine(output, check)
  assert.isNotNull(line, `no line for ${check} in:\n${output}`)
  return Number(line?.[2])
}

const CHECKS = [
  "repository directory steps a stopped process left unfinished",
  "repository rows without a directory",
  "repository directories without a row (unadopted)",
  "branch tables differing from git",
  "usage totals and release counts differing from their items",
  "attachment, package and LFS object rows without a file",
  "LFS references to an object without a file",
  "LFS objects without a reference",
  "attachment, package and LFS files without a row",
  "repository search epoch",
  "redirects from a name a repository has taken",
  "deploy keys added to no repository",
  "SSH keys sharing a fingerprint (a sign-in speaks for the oldest)",
  "SSH host keys"
]

describe("kiln doctor", () => {
  it("finds each kind of damage, repairs what is safe, and is clean once the rest is decided", { timeout: 300_000 }, async () => {
    const work = temporaryDirectory("kiln-doctor-work-")
    const dataDir = temporaryDirectory("kiln-doctor-data-")
    const database = await freshDatabase()
    const env = { KILN_DATA_DIR: dataDir, KILN_SIGNING_KEY: "none", ...database.env }
    const serverEnv = { KILN_ACCESS_LOG: "false", ...database.env }
    try {
      const first = spawnServer({ dataDir, port: await freePort(), env: serverEnv })
      await listening(first)
      await populate(first.port, work)
      first.child.kill("SIGTERM")
      await first.exited

      const clean = await runCli(["doctor"], env)
      assert.strictEqual(clean.code, 0, clean.stdout + clean.stderr)
      for (const check of CHECKS) assert.strictEqual(found(clean.stdout, check), 0, check)

      // Damage of every kind.
      const repositories = join(dataDir, "repositories")
      rmSync(join(repositories, "alice", "tools.git"), { recursive: true })
      cpSync(join(repositories, "bob", "stream.git"), join(repositories, "bob", "ghost.git"), { recursive: true })
      // A create killed after placing its directory, before its row committed.
      cpSync(join(repositories, "bob", "stream.git"), join(repositories, "bob", "half.git"), { recursive: true })
      const appGit = join(repositories, "acme", "app.git")
      const git = gitEnv(work)
      const topic = execFileSync("git", ["--git-dir", appGit, "rev-parse", "refs/heads/topic"], { env: git }).toString().trim()
      execFileSync("git", ["--git-dir", appGit, "update-ref", "refs/heads/main", topic], { env: git })
      const attachmentDirs = join(dataDir, "attachments")
      const [first1] = readdirSync(attachmentDirs)
      const [second1] = readdirSync(join(attachmentDirs, first1 ?? ""))
      const [attachment] = readdirSync(join(attachmentDirs, first1 ?? "", second1 ?? ""))
      rmSync(join(attachmentDirs, first1 ?? "", second1 ?? "", attachment ?? ""))
      const strayName = "ab".repeat(32)
      mkdirSync(join(dataDir, "packages", "ab", "ab"), { recursive: true })
      writeFileSync(join(dataDir, "packages", "ab", "ab", strayName), "stray")
      // LFS: an object nothing references (with its file), and a reference to one without a file.
      const unreferencedOid = "cd".repeat(32)
      const missingOid = "ef".repeat(32)
      const lfsFile = (oid: string) => join(dataDir, "lfs", oid.slice(0, 2), oid.slice(2, 4), oid.slice(4))
      mkdirSync(join(dataDir, "lfs", "cd", "cd"), { recursive: true })
      writeFileSync(lfsFile(unreferencedOid), "lonely")
      await onDatabase(dataDir, database.env, [
        `INSERT INTO lfs_objects (oid, size, created_at) VALUES ('${unreferencedOid}', 6, 0), ('${missingOid}', 5, 0)`,
        `INSERT INTO lfs_references (repo_id, oid, size, created_at) SELECT id, '${missingOid}', 5, 0 FROM repositories WHERE lower_name = 'app'`,
        `INSERT INTO pending_directory_steps (lock_key, undo)
          VALUES ('repository-directory:bob/half', '[{"_tag":"Remove","location":{"owner":"bob","name":"half"}}]')`,
        "UPDATE repositories SET attachments_size = attachments_size + 999 WHERE lower_name = 'app'",
        "UPDATE repositories SET num_releases = num_releases + 2 WHERE lower_name = 'app'",
        "UPDATE packages SET size = size + 5",
        "DELETE FROM repository_search_epoch",
        "INSERT INTO repository_redirects (owner_id, lower_name, repo_id) SELECT owner_id, lower_name, id FROM repositories WHERE lower_name = 'app'",
        "INSERT INTO public_keys (owner_id, kind, title, content, fingerprint, created_at, updated_at) VALUES (NULL, 'deploy', 'x', 'ssh-ed25519 AAAAungranted', 'SHA256:ungranted', 0, 0)",
        `INSERT INTO public_keys (owner_id, title, content, fingerprint, created_at, updated_at)
          SELECT (SELECT id FROM users WHERE lower_name = 'bob'), 'copy', content || ' copy', fingerprint, 0, 0 FROM public_keys WHERE title = 'deploy'`
      ])
      mkdirSync(join(dataDir, "ssh"), { recursive: true })
      writeFileSync(join(dataDir, "ssh", "ssh_host_ed25519_key"), "not a key")

      const damaged = await runCli(["doctor"], env)
      assert.strictEqual(damaged.code, 1, damaged.stdout + damaged.stderr)
      assert.deepStrictEqual(CHECKS.map((check) => found(damaged.stdout, check)), [1, 1, 1, 1, 3, 2, 1, 1, 1, 1, 1, 1, 1, 2], damaged.stdout)
      assert.include(damaged.stdout, "bob/half: Remove")
      assert.include(damaged.stdout, `acme/app ${missingOid}`)
      assert.include(damaged.stdout, unreferencedOid)
      assert.include(damaged.stdout, "alice/tools")
      assert.include(damaged.stdout, "bob/ghost")
      assert.include(damaged.stdout, `packages/${strayName}`)
      assert.include(damaged.stdout, `attachments/${attachment ?? ""}`)

      const fixed = await runCli(["doctor", "--fix", "--grace-minutes", "0"], env)
      assert.strictEqual(fixed.code, 1, fixed.stdout + fixed.stderr)
      assert.strictEqual((fixed.stdout.match(/fixed: /g) ?? []).length, 8, fixed.stdout)
      assert.isFalse(existsSync(join(repositories, "bob", "half.git")))
      assert.strictEqual((fixed.stdout.match(/needs a decision: /g) ?? []).length, 6, fixed.stdout)
      assert.isFalse(existsSync(lfsFile(unreferencedOid)))

      const afterFix = await runCli(["doctor"], env)
      assert.deepStrictEqual(CHECKS.map((check) => found(afterFix.stdout, check)), [0, 1, 1, 0, 0, 2, 1, 0, 0, 0, 0, 0, 1, 2], afterFix.stdout)

      // The missing LFS object, restored from a backup.
      mkdirSync(join(dataDir, "lfs", "ef", "ef"), { recursive: true })
      writeFileSync(lfsFile(missingOid), "found")

      // The decisions, taken through the API.
      const second = spawnServer({ dataDir, port: await freePort(), env: serverEnv })
      await listening(second)
      try {
        const deleted = await api(second.port, "DELETE", "/api/v1/repos/alice/tools", { auth: aliceAuth })
        assert.strictEqual(deleted.status, 204, deleted.text)
        assert.strictEqual((await api(second.port, "DELETE", "/api/v1/admin/unadopted/bob/ghost", { auth: adminAuth })).status, 204)
        const bobKeys = await ok(second.port, "GET", "/api/v1/users/bob/keys", { auth: adminAuth }) as ReadonlyArray<{ readonly id: number }>
        for (const key of bobKeys) assert.strictEqual((await api(second.port, "DELETE", `/api/v1/admin/users/bob/keys/${key.id}`, { auth: adminAuth })).status, 204)
        rmSync(join(dataDir, "ssh"), { recursive: true })
        const releases = await ok(second.port, "GET", "/api/v1/repos/acme/app/releases", { auth: aliceAuth }) as ReadonlyArray<{
          readonly id: number
          readonly assets: ReadonlyArray<{ readonly id: number }>
        }>
        for (const release of releases) {
          for (const asset of release.assets) {
            const removed = await api(second.port, "DELETE", `/api/v1/repos/acme/app/releases/${release.id}/assets/${asset.id}`, { auth: aliceAuth })
            assert.strictEqual(removed.status, 204, removed.text)
          }
        }
      } finally {
        second.child.kill("SIGTERM")
        await second.exited
      }
      const decided = await runCli(["doctor"], env)
      assert.strictEqual(decided.code, 0, decided.stdout + decided.stderr)
      assert.include(decided.stdout, "clean")
    } finally {
      await database.drop()
    }
  })
})
