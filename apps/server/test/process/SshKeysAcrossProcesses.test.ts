/**
 * SSH keys across processes (issue 28): two server processes on one PostgreSQL database and one
 * data directory, each with its built-in SSH server. A key added through one signs in on the other;
 * deleted through one, it is refused by the other at its very next sign-in (keys are looked up at
 * every sign-in, never remembered), and so is a deploy key. Both serve with the same host keys
 * (generated once). Needs a PostgreSQL server (KILN_TEST_DATABASE_URL); skipped without one.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"
import { cliEntry } from "../../build/ServerBundle.ts"
import { freePort, type ServerProcess, spawnServer, sshListening } from "../support/ServerProcess.ts"
import { makeKeyPair, runProgram, sshGit } from "../support/SshClient.ts"

const serverUrl = process.env["KILN_TEST_DATABASE_URL"]
const ROOT = `Basic ${Buffer.from("root:root-password").toString("base64")}`

describe.skipIf(serverUrl === undefined)("SSH keys across two processes", { timeout: 240_000 }, () => {
  const scope = Effect.runSync(Scope.make())
  const dataDir = mkdtempSync(join(tmpdir(), "kiln-ssh-two-"))
  const processes: Array<{ server: ServerProcess; http: number; ssh: number }> = []
  let databaseEnv: Record<string, string> = {}

  const api = async (index: number, method: string, path: string, json?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${processes[index]?.http}/api/v1${path}`, {
      method,
      headers: { authorization: ROOT, ...(json === undefined ? {} : { "content-type": "application/json" }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) })
    })
    const text = await response.text()
    return { status: response.status, json: text === "" ? undefined : JSON.parse(text) as { id: number } }
  }

  beforeAll(async () => {
    const databaseUrl = await Effect.runPromise(TestDatabase.serverDatabase(Redacted.make(serverUrl ?? "")).pipe(Scope.provide(scope)))
    databaseEnv = { DATABASE_URL: Redacted.value(databaseUrl) }
    for (let index = 0; index < 2; index++) {
      const http = await freePort()
      const ssh = await freePort()
      const server = spawnServer({
        dataDir,
        port: http,
        env: { DATABASE_URL: Redacted.value(databaseUrl), KILN_SSH_PORT: String(ssh), KILN_SSH_HOST: "127.0.0.1", KILN_ACCESS_LOG: "false" }
      })
      processes.push({ server, http, ssh })
    }
    await Promise.all(processes.map((entry) => sshListening(entry.server)))
  })
  afterAll(async () => {
    for (const entry of processes) entry.server.child.kill("SIGTERM")
    await Promise.all(processes.map((entry) => entry.server.exited))
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })

  it("refuses a key deleted through the other process at its next sign-in", async () => {
    assert.strictEqual((await api(0, "POST", "/user/repos", { name: "shared", auto_init: true })).status, 201)
    const key = makeKeyPair()
    const added = await api(0, "POST", "/admin/users/root/keys", { title: "laptop", key: key.publicKey })
    assert.strictEqual(added.status, 201)
    const url = (index: number) => `ssh://git@127.0.0.1:${processes[index]?.ssh}/root/shared.git`
    const git = sshGit(key, 0)
    assert.strictEqual((await git.run(["ls-remote", url(1)])).code, 0)
    assert.strictEqual((await api(0, "DELETE", `/admin/users/root/keys/${added.json?.id}`)).status, 204)
    const refused = await git.run(["ls-remote", url(1)])
    assert.notStrictEqual(refused.code, 0)
    assert.match(refused.stderr, /Permission denied \(publickey\)/)

    const deploy = makeKeyPair()
    const granted = await api(1, "POST", "/repos/root/shared/keys", { title: "ci", key: deploy.publicKey, read_only: true })
    assert.strictEqual(granted.status, 201)
    const deployGit = sshGit(deploy, 0)
    assert.strictEqual((await deployGit.run(["ls-remote", url(0)])).code, 0)
    assert.strictEqual((await api(1, "DELETE", `/repos/root/shared/keys/${granted.json?.id}`)).status, 204)
    assert.notStrictEqual((await deployGit.run(["ls-remote", url(0)])).code, 0)

    // One set of host keys for the data directory: both processes present the same key.
    const scanned = await Promise.all(processes.map((entry) => runProgram("ssh-keyscan", ["-p", String(entry.ssh), "-t", "ed25519", "127.0.0.1"])))
    const keys = scanned.map((result) => result.stdout.trim().split(" ").slice(1).join(" "))
    assert.strictEqual(keys[0], keys[1])
    assert.include(readFileSync(join(dataDir, "ssh", "ssh_host_ed25519_key"), "utf8"), "OPENSSH PRIVATE KEY")
  })

  it("answers kiln keys and kiln serv from the database itself on DATABASE_URL", async () => {
    const key = makeKeyPair()
    assert.strictEqual((await api(0, "POST", "/admin/users/root/keys", { title: "sshd", key: key.publicKey })).status, 201)
    const env = { ...process.env, ...databaseEnv, KILN_DATA_DIR: dataDir, KILN_SSH_PORT: "0" } as Record<string, string>
    const [type = "", content = ""] = key.publicKey.split(" ")
    const keys = await runProgram(process.execPath, [cliEntry, "keys", "-e", "git", "-u", "git", "-t", type, "-k", content], { env })
    assert.strictEqual(keys.code, 0, keys.stderr)
    const forced = /^command="(.*)",no-port-forwarding/.exec(keys.stdout.trim())?.[1]?.replaceAll('\\"', '"') ?? ""
    assert.match(forced, /serv key-\d+$/)
    // sshd runs the forced command with the client's command; git upload-pack advertises, and a flush ends it.
    const served = await runProgram("sh", ["-c", forced], { env: { ...env, SSH_ORIGINAL_COMMAND: "git-upload-pack 'root/shared.git'" }, input: "0000" })
    assert.strictEqual(served.code, 0, served.stderr)
    assert.include(served.stdout, "refs/heads/main")
    const refused = await runProgram("sh", ["-c", forced], { env: { ...env, SSH_ORIGINAL_COMMAND: "git-upload-pack 'root/nothing.git'" } })
    assert.strictEqual(refused.code, 1)
    assert.strictEqual(refused.stderr, "Kiln: Cannot find repository: root/nothing\n")
  })
})
