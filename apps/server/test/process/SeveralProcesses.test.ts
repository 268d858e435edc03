/**
 * Several Kiln processes as one server (issue 19): three real server processes (the bundle) on one
 * fresh PostgreSQL database and one data directory, started together, under a concurrent mixed
 * workload spread over all of them (pushes to one repository and to others, branch API changes,
 * same-name creates, a rename, a fork, token revocations, package uploads and deletions, quota
 * reads), one of them killed with SIGKILL mid-run and started again. Then the invariants: the
 * branch table equals the refs of every repository, no acknowledged ref update is lost, one
 * repository per name, usage totals equal fresh aggregates, no package file lost or orphaned, no
 * temporary directory of a dead process left, no repository directory step left unsettled, every
 * revoked token refused by every process, one signing key. Needs a PostgreSQL server (KILN_TEST_DATABASE_URL); skipped without one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { execFile } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import * as WorkOwner from "@kiln/domain/coordination/WorkOwner"
import { freePort, listening, type ServerProcess, spawnServer } from "../support/ServerProcess.ts"
import { sharedDatabase } from "../support/SharedDatabase.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]
const run = promisify(execFile)

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
const ROOT = basic("root", "root-password")
const ALICE_PASSWORD = "alice-password-1"
const ALICE = basic("alice", ALICE_PASSWORD)
const BOB = basic("bob", "bob-password-1")

interface Answer {
  readonly status: number
  readonly text: string
  readonly json: unknown
  /** An earlier attempt reached a process that died before answering: it may have been carried out. */
  readonly repeated: boolean
}

const isConnectionError = (error: unknown) => error instanceof TypeError
/** Refused: the request reached no process. Any other connection failure may come after it was carried out. */
const isRefused = (error: unknown) =>
  error instanceof TypeError && error.cause instanceof Error && "code" in error.cause && error.cause.code === "ECONNREFUSED"

describe.skipIf(serverUrl === undefined)("three processes on one PostgreSQL database and one data directory", () => {
  it("behave as one server under a mixed workload with a SIGKILL mid-run", async () => {
    const scope = Effect.runSync(Scope.make())
    const { databaseUrl, query, sql } = await sharedDatabase(serverUrl ?? "", scope)

    const dataDir = mkdtempSync(join(tmpdir(), "kiln-several-"))
    const work = mkdtempSync(join(tmpdir(), "kiln-several-work-"))
    const ports = [await freePort(), await freePort(), await freePort()]
    const start = (index: number) =>
      spawnServer({
        dataDir,
        port: ports[index] ?? 0,
        env: { DATABASE_URL: Redacted.value(databaseUrl), KILN_SIGNING_KEY: "generate", KILN_ACCESS_LOG: "false" }
      })
    const processes: Array<ServerProcess> = [0, 1, 2].map(start)
    let killing: Promise<void> = Promise.resolve()
    let failure: unknown = undefined
    // Where the time goes, for reading a slow or hung run.
    const began = Date.now()
    const phase = (name: string) => console.log(`[several] ${((Date.now() - began) / 1000).toFixed(1)} s: ${name}`)
    try {
      // Started together: migrations, the administrator and the signing key happen once; all stay up.
      await Promise.all(processes.map(listening))
      // With DATABASE_URL the data directory is shared: no lock file keeps the others out.
      assert.isFalse(existsSync(join(dataDir, "kiln.lock")))

      /**
       * One request to process `index`; when the connection fails (a process down, or killed while
       * answering), the same request to the next one, marked `repeated` unless the failure was a
       * refusal.
       */
      const call = async (index: number, method: string, path: string, options: {
        readonly auth?: string
        readonly json?: unknown
        readonly body?: Uint8Array
      } = {}): Promise<Answer> => {
        let repeated = false
        for (let attempt = 0; attempt < 6; attempt++) {
          const port = ports[(index + attempt) % 3] ?? 0
          try {
            const response = await fetch(`http://127.0.0.1:${port}${path}`, {
              method,
              headers: {
                ...(options.auth === undefined ? {} : { authorization: options.auth }),
                ...(options.json === undefined ? {} : { "content-type": "application/json" })
              },
              ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
              ...(options.body !== undefined ? { body: options.body } : {})
            })
            const text = await response.text()
            let json: unknown = undefined
            try {
              json = JSON.parse(text)
            } catch {
              json = undefined
            }
            return { status: response.status, text, json, repeated }
          } catch (error) {
            if (!isConnectionError(error)) throw error
            if (!isRefused(error)) repeated = true
            await new Promise((resolve) => setTimeout(resolve, 200))
          }
        }
        throw new Error(`${method} ${path}: no process answered`)
      }
      /** `status`, or `ifDone` for a request repeated after a process died answering it (it had been carried out). */
      const expect = async (answer: Promise<Answer>, status: number, ifDone?: number) => {
        const got = await answer
        if (got.repeated && got.status === ifDone) return got
        assert.strictEqual(got.status, status, got.text)
        return got
      }

      const git = (args: ReadonlyArray<string>, cwd?: string) =>
        run("git", [...args], {
          ...(cwd === undefined ? {} : { cwd }),
          env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" }
        })

      // Accounts and repositories, each through another process.
      for (const [index, name] of ["alice", "bob"].entries()) {
        await expect(call(index, "POST", "/api/v1/admin/users", {
          auth: ROOT,
          json: { username: name, email: `${name}@example.com`, password: `${name}-password-1`, must_change_password: false }
        }), 201)
      }
      // The workload signs in with a token, as scripts do: a password costs a bounded scrypt derivation
      // per request (429 past two at once), which is not what this test is about. Token routes take Basic.
      const workToken = await expect(call(0, "POST", "/api/v1/users/alice/tokens", { auth: ALICE, json: { name: "work", scopes: ["all"] } }), 201)
      const aliceSecret = String((workToken.json as { sha1: string }).sha1)
      const ALICE_TOKEN = `token ${aliceSecret}`
      const remote = (index: number, owner: string, repo: string) =>
        `http://alice:${aliceSecret}@127.0.0.1:${ports[index] ?? 0}/${owner}/${repo}.git`
      for (const [index, name] of ["shared", "other1", "other2", "torename"].entries()) {
        await expect(call(index, "POST", "/api/v1/user/repos", { auth: ALICE_TOKEN, json: { name, auto_init: true } }), 201)
      }

      // Tokens, each made warm in every process's sign-in cache.
      const tokens: Array<{ readonly name: string; readonly secret: string }> = []
      for (let i = 0; i < 3; i++) {
        const made = await expect(call(i, "POST", "/api/v1/users/alice/tokens", { auth: ALICE, json: { name: `t${i}`, scopes: ["all"] } }), 201)
        tokens.push({ name: `t${i}`, secret: String((made.json as { sha1: string }).sha1) })
      }
      const signedIn = (index: number, secret: string) => call(index, "GET", "/api/v1/user", { auth: `token ${secret}` })
      for (const token of tokens) {
        for (const index of [0, 1, 2]) {
          await expect(signedIn(index, token.secret), 200)
          await expect(signedIn(index, token.secret), 200)
        }
      }

      // Revoked through one process, refused by the other two within 100 ms.
      const revocationDelays: Array<number> = []
      const revoke = async (i: number) => {
        const token = tokens[i]
        if (token === undefined) return
        await expect(call(i, "DELETE", `/api/v1/users/alice/tokens/${token.name}`, { auth: ALICE }), 204, 404)
        const revokedAt = Date.now()
        for (const other of [0, 1, 2].filter((index) => index !== i)) {
          for (;;) {
            // A request sent in the first 100 ms may still be accepted, whenever its answer arrives.
            const sentAt = Date.now()
            const answer = await signedIn(other, token.secret)
            if (answer.status === 401) break
            assert.isBelow(sentAt - revokedAt, 100, `process ${other} still accepts a token revoked through ${i}`)
          }
        }
        revocationDelays.push(Date.now() - revokedAt)
      }
      await revoke(0)
      phase("first revocation")

      // Working copies: three of `shared`, one each of `other1` and `other2`.
      const clone = async (name: string, repo: string, index: number) => {
        const path = join(work, name)
        await git(["clone", "-q", remote(index, "alice", repo), path])
        return path
      }
      phase("cloning")
      const copies = await Promise.all([0, 1, 2].map((i) => clone(`shared-${i}`, "shared", i)))
      const others = await Promise.all([clone("other1", "other1", 0), clone("other2", "other2", 1)])

      /** Pushes acknowledged by a process: ref → commit. */
      const pushed = new Map<string, string>()
      const pushBranches = async (copy: string, repo: string, first: number, count: number, prefix: string) => {
        for (let i = first; i < first + count; i++) {
          const branch = `${prefix}${i}`
          await git(["checkout", "-q", "-b", branch, "origin/main"], copy)
          await git(["commit", "-q", "--allow-empty", "-m", `${branch} ${randomBytes(4).toString("hex")}`], copy)
          const { stdout } = await git(["rev-parse", "HEAD"], copy)
          // Alternately through the processes; one that is down (killed) fails the push, which is retried elsewhere.
          for (let attempt = 0; ; attempt++) {
            const index = (i + attempt) % 3
            const done = await git(["push", "-q", remote(index, "alice", repo), `${branch}:${branch}`], copy).then(() => true, () => false)
            if (done) break
            assert.isBelow(attempt, 8, `push of ${branch} kept failing`)
            await new Promise((resolve) => setTimeout(resolve, 300))
          }
          pushed.set(`${repo}:${branch}`, stdout.trim())
        }
      }

      const creates: Array<number> = []
      const apiBranches = new Map<string, boolean>()
      const packageFiles = new Map<string, boolean>()

      // SIGKILL of the third process mid-run, then a restart on the same port. Awaited before the
      // processes are stopped, even when the workload failed early, so that no kill lands on a
      // process being stopped.
      killing = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 1500))
        const victim = processes[2]
        victim?.child.kill("SIGKILL")
        await victim?.exited
        await new Promise((resolve) => setTimeout(resolve, 500))
        const restarted = start(2)
        processes[2] = restarted
        await listening(restarted)
      })()
      const workload = [
        // 30 pushes to one repository through all processes at once.
        ...copies.map((copy, i) => pushBranches(copy, "shared", i * 10, 10, "br")),
        // Pushes to other repositories.
        pushBranches(others[0] ?? "", "other1", 0, 4, "o"),
        pushBranches(others[1] ?? "", "other2", 0, 4, "o"),
        // Branch API changes on the same repository.
        (async () => {
          for (let k = 0; k < 8; k++) {
            await expect(call(k, "POST", "/api/v1/repos/alice/shared/branches", {
              auth: ALICE_TOKEN,
              json: { new_branch_name: `api${k}`, old_branch_name: "main" }
            }), 201, 409)
            apiBranches.set(`api${k}`, true)
          }
          for (let k = 0; k < 8; k += 2) {
            await expect(call(k + 1, "DELETE", `/api/v1/repos/alice/shared/branches/api${k}`, { auth: ALICE_TOKEN }), 204, 404)
            apiBranches.set(`api${k}`, false)
          }
        })(),
        // Same-name creates through every process at once.
        Promise.all([0, 1, 2, 0, 1, 2].map(async (index) => {
          const answer = await call(index, "POST", "/api/v1/user/repos", { auth: ALICE_TOKEN, json: { name: "dup", auto_init: true } })
          creates.push(answer.status)
        })),
        // A rename racing branch changes on the same repository.
        (async () => {
          await expect(call(1, "POST", "/api/v1/repos/alice/torename/branches", {
            auth: ALICE_TOKEN,
            json: { new_branch_name: "before-rename", old_branch_name: "main" }
          }), 201, 409)
          await expect(call(2, "PATCH", "/api/v1/repos/alice/torename", { auth: ALICE_TOKEN, json: { name: "renamed" } }), 200, 404)
        })(),
        // A fork.
        expect(call(2, "POST", "/api/v1/repos/alice/shared/forks", { auth: BOB, json: {} }), 202, 409),
        // Package uploads and deletions, and quota reads.
        (async () => {
          for (let k = 0; k < 6; k++) {
            const content = randomBytes(2048 + k)
            await expect(call(k, "PUT", `/api/packages/alice/generic/pkg/1.0.${k}/file.bin`, { auth: ALICE_TOKEN, body: content }), 201, 409)
            packageFiles.set(`1.0.${k}`, true)
            await expect(call(k + 1, "GET", "/api/v1/user/quota", { auth: ALICE_TOKEN }), 200)
          }
          for (let k = 0; k < 6; k += 2) {
            await expect(call(k + 2, "DELETE", `/api/packages/alice/generic/pkg/1.0.${k}`, { auth: ALICE_TOKEN }), 204, 404)
            packageFiles.set(`1.0.${k}`, false)
          }
        })(),
        // A token revoked mid-run.
        revoke(1),
        killing
      ]
      phase("workload started")
      await Promise.all(workload.map((task, i) => task.then(() => phase(`workload task ${i} done`))))
      phase("workload done")
      await revoke(2)

      // Every process reads every repository's branches (a read heals a table left pending).
      const repositories = await query(sql<{ id: unknown; owner: string; name: string }>`
        SELECT r.id, u.lower_name AS owner, r.lower_name AS name FROM repositories r JOIN users u ON u.id = r.owner_id`)
      for (const repository of repositories) {
        for (const index of [0, 1, 2]) {
          await expect(call(index, "GET", `/api/v1/repos/${repository.owner}/${repository.name}/branches?limit=50`, { auth: ALICE_TOKEN }), 200)
        }
      }

      phase("branches read everywhere")
      // The branch table equals the refs of every repository; no mark is left.
      for (const repository of repositories) {
        const gitdir = join(dataDir, "repositories", repository.owner, `${repository.name}.git`)
        const { stdout } = await git(["--git-dir", gitdir, "for-each-ref", "--format=%(refname:strip=2) %(objectname)", "refs/heads"])
        const refs = stdout.trim().split("\n").filter((line) => line !== "").sort()
        const rows = await query(sql<{ name: string; commit_id: string }>`
          SELECT name, commit_id FROM branches WHERE repo_id = ${Number(repository.id)}`)
        assert.deepStrictEqual(rows.map((row) => `${row.name} ${row.commit_id}`).sort(), refs, `${repository.owner}/${repository.name}`)
      }
      assert.deepStrictEqual(await query(sql`SELECT repo_id FROM branch_sync_pending`), [])

      // No acknowledged ref update lost; the API's branch changes hold.
      for (const [ref, commit] of pushed) {
        const [repo = "", branch = ""] = ref.split(":")
        const { stdout } = await git(["--git-dir", join(dataDir, "repositories", "alice", `${repo}.git`), "rev-parse", `refs/heads/${branch}`])
        assert.strictEqual(stdout.trim(), commit, ref)
      }
      assert.strictEqual(pushed.size, 38)
      for (const [branch, exists] of apiBranches) {
        await expect(call(0, "GET", `/api/v1/repos/alice/shared/branches/${branch}`, { auth: ALICE_TOKEN }), exists ? 200 : 404)
      }

      // One repository per name: one create won, the others were refused.
      assert.deepStrictEqual(creates.filter((status) => status === 201).length, 1, String(creates))
      assert.isTrue(creates.every((status) => status === 201 || status === 409), String(creates))
      assert.deepStrictEqual(await query(sql`
        SELECT owner_id, lower_name FROM repositories GROUP BY owner_id, lower_name HAVING count(*) > 1`), [])
      assert.deepStrictEqual(
        (await query(sql<{ name: string }>`SELECT r.lower_name AS name FROM repositories r JOIN users u ON u.id = r.owner_id
          WHERE u.lower_name = 'alice' ORDER BY 1`)).map((row) => row.name),
        ["dup", "other1", "other2", "renamed", "shared"]
      )
      assert.deepStrictEqual(readdirSync(join(dataDir, "repositories", "alice")).sort(), [
        "dup.git",
        "other1.git",
        "other2.git",
        "renamed.git",
        "shared.git"
      ])
      await expect(call(1, "GET", "/api/v1/repos/bob/shared", { auth: BOB }), 200)

      // Usage totals equal fresh aggregates.
      assert.deepStrictEqual(await query(sql`SELECT v.id FROM package_versions v
        WHERE v.size <> (SELECT COALESCE(sum(size), 0) FROM package_files f WHERE f.version_id = v.id)`), [])
      assert.deepStrictEqual(await query(sql`SELECT p.id FROM packages p
        WHERE p.size <> (SELECT COALESCE(sum(size), 0) FROM package_versions v WHERE v.package_id = p.id)`), [])
      assert.deepStrictEqual(await query(sql`SELECT u.owner_id FROM unlinked_package_usage u
        WHERE u.size <> (SELECT COALESCE(sum(size), 0) FROM packages p WHERE p.owner_id = u.owner_id AND p.repo_id IS NULL)`), [])
      const quota = await expect(call(0, "GET", "/api/v1/user/quota", { auth: ALICE_TOKEN }), 200)
      const [packagesBytes] = await query(sql<{ total: unknown }>`SELECT COALESCE(sum(size), 0) AS total FROM package_files`)
      assert.include(quota.text, `"packages":{"all":${Number(packagesBytes?.total)}}`)

      // No package file lost or orphaned; versions as the requests left them.
      const blobs = await query(sql<{ hash: string }>`SELECT hash_sha256 AS hash FROM package_blobs`)
      const onDisk = existsSync(join(dataDir, "packages"))
        ? readdirSync(join(dataDir, "packages"), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name)
        : []
      assert.deepStrictEqual(onDisk.sort(), blobs.map((blob) => blob.hash).sort())
      for (const [version, exists] of packageFiles) {
        await expect(call(2, "GET", `/api/packages/alice/generic/pkg/${version}/file.bin`, { auth: ALICE_TOKEN }), exists ? 200 : 404)
      }
      // The killed process's temporary directory was reaped by its successor; live ones remain.
      const livePids = processes.map((running) => running.child.pid)
      for (const entry of readdirSync(join(dataDir, "tmp"))) {
        assert.include(livePids, WorkOwner.parse(entry)?.pid, `tmp/${entry}`)
      }

      // Every revoked token is refused everywhere; revocations took under 100 ms to reach every process.
      for (const token of tokens) {
        for (const index of [0, 1, 2]) await expect(signedIn(index, token.secret), 401)
      }
      assert.strictEqual(revocationDelays.length, 3)

      // No repository directory step is left unsettled (the killed process's is undone by the next
      // request on its directory or by its restart, a moment after both).
      for (let waited = 0; (await query(sql`SELECT id FROM pending_directory_steps`)).length > 0; waited++) {
        assert.isBelow(waited, 100, "pending directory steps left")
        await new Promise((resolve) => setTimeout(resolve, 100))
      }

      // One signing key for all.
      const keys = await Promise.all([0, 1, 2].map((index) => expect(call(index, "GET", "/api/v1/signing-key.gpg"), 200)))
      assert.strictEqual(new Set(keys.map((key) => key.text)).size, 1)
      phase("checks done")
    } catch (error) {
      // The first failure is the one to report; the processes' output helps read it.
      failure = error
    } finally {
      await killing.catch((error: unknown) => {
        failure ??= error
      })
      phase("stopping")
      for (const running of processes) running.child.kill("SIGTERM")
      const codes = await Promise.all(processes.map((running) => running.exited))
      phase("stopped")
      await Effect.runPromise(Scope.close(scope, Exit.void))
      const output = processes.map((running) => running.output.slice(-3000)).join("\n---\n")
      if (failure !== undefined) {
        throw new Error(`${failure instanceof Error ? failure.stack ?? failure.message : String(failure)}\n\nserver output:\n${output}`)
      }
      assert.deepStrictEqual(codes, [0, 0, 0], output)
    }
  }, 600_000)
})
