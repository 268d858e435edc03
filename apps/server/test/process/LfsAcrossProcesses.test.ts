/**
 * Two Kiln processes on one PostgreSQL database and one data directory, uploading the same LFS
 * objects at once (each through its own process, to a repository of its own): every object is
 * stored once, referenced by both repositories, whole, and counted for both owners; no staging file
 * is left. Needs a PostgreSQL server (KILN_TEST_DATABASE_URL); skipped without one.
 */
import { assert, describe, it } from "@effect/vitest"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freshDatabase } from "../backup/BackupFixtures.ts"
import { freePort, listening, type ServerProcess, spawnServer } from "../support/ServerProcess.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
const ROOT = basic("root", "root-password")

describe.skipIf(serverUrl === undefined)("LFS uploads of one object through two processes at once", () => {
  it("store the object once and reference it from both repositories", { timeout: 300_000 }, async () => {
    const database = await freshDatabase()
    const dataDir = mkdtempSync(join(tmpdir(), "kiln-lfs-two-"))
    const ports = [await freePort(), await freePort()]
    const processes: Array<ServerProcess> = ports.map((port) =>
      spawnServer({ dataDir, port, env: { ...database.env, KILN_ACCESS_LOG: "false", KILN_ROOT_URL: `http://127.0.0.1:${port}/` } }))
    try {
      await Promise.all(processes.map(listening))
      const call = async (port: number, method: string, path: string, auth: string, body?: Uint8Array | string) => {
        const response = await fetch(`http://127.0.0.1:${port}${path}`, {
          method,
          headers: { authorization: auth, ...(typeof body === "string" ? { "content-type": "application/json" } : {}) },
          ...(body === undefined ? {} : { body })
        })
        return { status: response.status, text: await response.text() }
      }
      const [first = 0, second = 0] = ports
      const owners = [["uma", first], ["vic", second]] as const
      for (const [name, port] of owners) {
        const user = await call(port, "POST", "/api/v1/admin/users", ROOT, JSON.stringify({
          username: name,
          email: `${name}@example.com`,
          password: `${name}-password-1`,
          must_change_password: false
        }))
        assert.strictEqual(user.status, 201, user.text)
        const repo = await call(port, "POST", "/api/v1/user/repos", basic(name, `${name}-password-1`), JSON.stringify({ name: "shared" }))
        assert.strictEqual(repo.status, 201, repo.text)
      }
      let total = 0
      for (let round = 0; round < 5; round++) {
        const content = randomBytes(2 * 1024 * 1024 + round)
        const oid = createHash("sha256").update(content).digest("hex")
        total += content.length
        const answers = await Promise.all(owners.map(([name, port]) =>
          call(port, "PUT", `/${name}/shared.git/info/lfs/objects/${oid}/${content.length}`, basic(name, `${name}-password-1`), content)))
        for (const answer of answers) assert.strictEqual(answer.status, 200, answer.text)
        const files = readdirSync(join(dataDir, "lfs", oid.slice(0, 2), oid.slice(2, 4)))
        assert.deepStrictEqual(files.filter((file) => file === oid.slice(4)), [oid.slice(4)])
        for (const [name, port] of owners) {
          // Each reads its object back through the other process.
          const other = port === first ? second : first
          const back = await fetch(`http://127.0.0.1:${other}/${name}/shared.git/info/lfs/objects/${oid}`, {
            headers: { authorization: basic(name, `${name}-password-1`) }
          })
          const bytes = Buffer.from(await back.arrayBuffer())
          assert.strictEqual(back.status, 200)
          assert.isTrue(bytes.equals(content), `${name} round ${round}`)
        }
      }
      for (const [name, port] of owners) {
        const quota = await call(port, "GET", "/api/v1/user/quota", basic(name, `${name}-password-1`))
        const used = JSON.parse(quota.text) as { used: { size: { git: { LFS: number } } } }
        assert.strictEqual(used.used.size.git.LFS, total, name)
      }
      const tmp = join(dataDir, "tmp")
      const staging = existsSync(tmp) ? readdirSync(tmp).flatMap((owner) => {
        const uploads = join(tmp, owner, "uploads")
        return existsSync(uploads) ? readdirSync(uploads) : []
      }) : []
      assert.deepStrictEqual(staging, [])
    } finally {
      for (const running of processes) {
        if (running.child.exitCode === null) running.child.kill("SIGTERM")
        await running.exited
      }
      await database.drop()
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
