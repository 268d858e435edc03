/**
 * A dump of a populated server taken while a writer keeps pushing, restored into a fresh data
 * directory and database: a server started on the copy lists everything the source listed and
 * serves every ref, and the repository being pushed to is a consistent earlier state of it. The
 * server runs as shipped (the bundle, in its own process) on the embedded database, where the dump
 * goes through the server's control socket, or on the PostgreSQL server of
 * KILN_TEST_DATABASE_URL, where the command reads the database itself while the server writes.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { freePort, listening, spawnServer } from "../support/ServerProcess.ts"
import {
  aliceAuth,
  api,
  freshDatabase,
  git,
  gitEnv,
  keepPushing,
  LFS_OBJECT,
  listEverything,
  populate,
  runCli,
  temporaryDirectory
} from "./BackupFixtures.ts"

const serverEnv = (database: Record<string, string>) => ({ KILN_SIGNING_KEY: "generate", KILN_ACCESS_LOG: "false", ...database })

describe("kiln dump and kiln restore", () => {
  it("round-trips a populated server dumped while a writer pushes", { timeout: 300_000 }, async () => {
    const work = temporaryDirectory("kiln-backup-work-")
    const sourceDir = temporaryDirectory("kiln-backup-source-")
    const targetDir = join(temporaryDirectory("kiln-backup-target-"), "data")
    const archive = join(work, "kiln.tar.gz")
    const sourceDb = await freshDatabase()
    const targetDb = await freshDatabase()
    try {
      // With the built-in SSH server: its generated host keys go into the dump.
      const source = spawnServer({ dataDir: sourceDir, port: await freePort(), env: { ...serverEnv(sourceDb.env), KILN_SSH_PORT: String(await freePort()), KILN_SSH_EXTERNAL_PORT: "22" } })
      await listening(source)
      await populate(source.port, work)

      const writer = keepPushing(source.port, work)
      while (writer.pushed.length < 3) await new Promise((resolve) => setTimeout(resolve, 50))
      const dumped = await runCli(["dump", "--output", archive], { KILN_DATA_DIR: sourceDir, KILN_SIGNING_KEY: "generate", ...sourceDb.env })
      const pushedDuringDump = writer.pushed.length
      await writer.stop()
      assert.strictEqual(dumped.code, 0, dumped.stderr)
      assert.isAbove(writer.pushed.length, 3, "the writer pushed while the dump ran")
      assert.match(dumped.stdout, /3 repositories with \d+ refs, 1 attachments, 1 package files, 1 LFS objects/, dumped.stdout)
      assert.include(dumped.stdout, "password hashes (scrypt): 3 (users.password_hash)")
      assert.include(dumped.stdout, "webhook signing secrets (plain text): 1 (webhooks.secret)")
      assert.include(dumped.stdout, "signing key (signing-key.asc)")
      assert.include(dumped.stdout, "the SSH host keys (ssh/): 2")

      const expected = await listEverything(source.port, { skipRepository: "bob/stream" })
      const sourceFinal = writer.pushed.at(-1)
      source.child.kill("SIGTERM")
      await source.exited

      const restored = await runCli(["restore", "--input", archive], { KILN_DATA_DIR: targetDir, ...targetDb.env })
      assert.strictEqual(restored.code, 0, restored.stderr + restored.stdout)
      assert.strictEqual(
        readFileSync(join(targetDir, "signing-key.asc"), "utf8"),
        readFileSync(join(sourceDir, "signing-key.asc"), "utf8")
      )
      for (const name of ["ssh_host_ed25519_key", "ssh_host_rsa_key"]) {
        assert.strictEqual(readFileSync(join(targetDir, "ssh", name), "utf8"), readFileSync(join(sourceDir, "ssh", name), "utf8"))
      }

      const copy = spawnServer({ dataDir: targetDir, port: await freePort(), env: serverEnv(targetDb.env) })
      await listening(copy)
      try {
        assert.deepStrictEqual(await listEverything(copy.port, { skipRepository: "bob/stream" }), expected)
        // The LFS object and its reference came along.
        const lfs = await api(copy.port, "GET", `/acme/app.git/info/lfs/objects/${LFS_OBJECT.oid}`, { auth: aliceAuth })
        assert.strictEqual(lfs.status, 200, lfs.text)
        assert.isTrue(lfs.bytes.equals(LFS_OBJECT.content))

        // The repository pushed to during the dump: whole (fsck), its branch table agreeing with its
        // refs, and at a commit the writer had pushed.
        const env = gitEnv(work)
        const gitdir = join(targetDir, "repositories", "bob", "stream.git")
        execFileSync("git", ["--git-dir", gitdir, "fsck", "--full", "--no-dangling"], { env, stdio: "pipe" })
        const refs = await git(["ls-remote", `http://root:root-password@127.0.0.1:${copy.port}/bob/stream.git`], { env })
        const main = /^([0-9a-f]{40})\trefs\/heads\/main$/m.exec(refs)?.[1]
        assert.isDefined(main)
        const clone = join(work, "stream")
        await git(["merge-base", "--is-ancestor", main ?? "", sourceFinal ?? ""], { cwd: clone, env })
        const branches = await fetch(`http://127.0.0.1:${copy.port}/api/v1/repos/bob/stream/branches`, {
          headers: { authorization: `Basic ${Buffer.from("root:root-password").toString("base64")}` }
        }).then((response) => response.json() as Promise<ReadonlyArray<{ name: string; commit: { id: string } }>>)
        const branchRefs = Object.fromEntries(branches.map((branch) => [`refs/heads/${branch.name}`, branch.commit.id]))
        const gitRefs = Object.fromEntries(
          refs.trim().split("\n").map((line) => line.split("\t")).filter(([, ref]) => ref?.startsWith("refs/heads/")).map(([oid, ref]) => [ref, oid])
        )
        assert.deepStrictEqual(branchRefs, gitRefs)
        assert.isAtLeast(pushedDuringDump, 3)
      } finally {
        copy.child.kill("SIGTERM")
        await copy.exited
      }
    } finally {
      await sourceDb.drop()
      await targetDb.drop()
    }
  })

  it("dumps and restores a stopped server's embedded data directory from the command line", { timeout: 120_000 }, async () => {
    const sourceDir = temporaryDirectory("kiln-backup-stopped-")
    const archive = join(temporaryDirectory("kiln-backup-stopped-out-"), "kiln.tar.gz")
    const env = { KILN_SIGNING_KEY: "none" }
    const created = await runCli(
      ["admin", "user", "create", "--username", "offline", "--password", "offline-password", "--email", "offline@example.com"],
      { ...env, KILN_DATA_DIR: sourceDir }
    )
    assert.strictEqual(created.code, 0, created.stderr)
    // What an operator can act on is one line, not a stack.
    const tooShort = await runCli(
      ["admin", "user", "create", "--username", "brief", "--password", "short", "--email", "brief@example.com"],
      { ...env, KILN_DATA_DIR: sourceDir }
    )
    assert.strictEqual(tooShort.code, 1)
    assert.include(tooShort.stderr, "kiln admin user create: cannot create brief: the password needs at least 8 characters")
    assert.notMatch(tooShort.stderr, /^\s+at /m)
    const dumped = await runCli(["dump", "--output", archive], { ...env, KILN_DATA_DIR: sourceDir })
    assert.strictEqual(dumped.code, 0, dumped.stderr)
    assert.include(dumped.stdout, "password hashes (scrypt): 1 (users.password_hash)")
    const again = await runCli(["dump", "--output", archive], { ...env, KILN_DATA_DIR: sourceDir })
    assert.strictEqual(again.code, 1)
    assert.include(again.stderr, "exists; a dump never overwrites a file")

    // The archive is read while the database opens: a database that cannot open (held by another
    // process) leaves nothing of what was read behind.
    const heldDir = temporaryDirectory("kiln-backup-stopped-held-")
    writeFileSync(join(heldDir, "kiln.lock"), String(process.pid))
    const held = await runCli(["restore", "--input", archive], { ...env, KILN_DATA_DIR: heldDir })
    assert.strictEqual(held.code, 1)
    assert.include(held.stderr, `is in use by process ${process.pid}: a server running on the embedded database holds it`)
    assert.notMatch(held.stderr, /^\s+at /m)
    assert.deepStrictEqual(readdirSync(heldDir), ["kiln.lock"])
    const heldDoctor = await runCli(["doctor"], { ...env, KILN_DATA_DIR: heldDir })
    assert.strictEqual(heldDoctor.code, 1)
    assert.include(heldDoctor.stderr, `kiln doctor: data directory ${heldDir} is in use by process ${process.pid}`)
    assert.notMatch(heldDoctor.stderr, /^\s+at /m)

    const targetDir = join(temporaryDirectory("kiln-backup-stopped-target-"), "data")
    const restored = await runCli(["restore", "--input", archive], { ...env, KILN_DATA_DIR: targetDir })
    assert.strictEqual(restored.code, 0, restored.stderr)
    const listed = await runCli(["admin", "user", "list"], { ...env, KILN_DATA_DIR: targetDir })
    assert.include(listed.stdout, "offline\toffline@example.com")
  })
})
