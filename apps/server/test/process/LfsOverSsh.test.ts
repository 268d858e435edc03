/**
 * Git LFS over an SSH remote, with the real clients: git-lfs asks the SSH server
 * `git-lfs-authenticate <repo> <upload|download>` for the LFS API's address and a short-lived
 * header (the SSH transport relays it to the LFS server's LfsAuthenticate), then moves the objects
 * over HTTP with that header. A read-only deploy key gets a download header, never an upload one.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, type ServerProcess, spawnServer, sshListening } from "../support/ServerProcess.ts"
import { makeKeyPair, sshExec, sshGit } from "../support/SshClient.ts"

const ROOT = `Basic ${Buffer.from("root:root-password").toString("base64")}`

interface LfsAuthentication {
  readonly href: string
  readonly header: Record<string, string>
  readonly expires_in: number
}

describe("git-lfs over SSH", { timeout: 240_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "kiln-lfs-ssh-"))
  let server: ServerProcess
  let httpPort = 0
  let sshPort = 0
  const owner = makeKeyPair()
  const deploy = makeKeyPair()

  const api = async (method: string, path: string, json?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${httpPort}/api/v1${path}`, {
      method,
      headers: { authorization: ROOT, ...(json === undefined ? {} : { "content-type": "application/json" }) },
      ...(json === undefined ? {} : { body: JSON.stringify(json) })
    })
    const text = await response.text()
    return { status: response.status, text, json: text === "" ? undefined : JSON.parse(text) as unknown }
  }

  beforeAll(async () => {
    httpPort = await freePort()
    sshPort = await freePort()
    server = spawnServer({
      dataDir,
      port: httpPort,
      env: {
        KILN_ROOT_URL: `http://127.0.0.1:${httpPort}/`,
        KILN_SSH_PORT: String(sshPort),
        KILN_SSH_HOST: "127.0.0.1",
        KILN_ACCESS_LOG: "false"
      }
    })
    await sshListening(server)
    assert.strictEqual((await api("POST", "/admin/users/root/keys", { title: "laptop", key: owner.publicKey })).status, 201)
    assert.strictEqual((await api("POST", "/user/repos", { name: "assets", auto_init: true, readme: "Default" })).status, 201)
    const added = await api("POST", "/repos/root/assets/keys", { title: "ci", key: deploy.publicKey, read_only: true })
    assert.strictEqual(added.status, 201, added.text)
  })
  afterAll(async () => {
    server.child.kill("SIGTERM")
    await server.exited
  })

  it("answers git-lfs-authenticate with the LFS address and a header that opens only what the key may do", async () => {
    const upload = await sshExec(owner, sshPort, ["git-lfs-authenticate", "root/assets.git", "upload"])
    assert.strictEqual(upload.code, 0, upload.stderr)
    const answer = JSON.parse(upload.stdout) as LfsAuthentication
    assert.strictEqual(answer.href, `http://127.0.0.1:${httpPort}/root/assets.git/info/lfs`)
    assert.isAbove(answer.expires_in, 0)
    const oid = "a".repeat(64)
    const batch = await fetch(`${answer.href}/objects/batch`, {
      method: "POST",
      headers: { ...answer.header, accept: "application/vnd.git-lfs+json", "content-type": "application/vnd.git-lfs+json" },
      body: JSON.stringify({ operation: "upload", objects: [{ oid, size: 3 }] })
    })
    assert.strictEqual(batch.status, 200, await batch.clone().text())
    const objects = (await batch.json() as { objects: ReadonlyArray<{ actions?: { upload?: unknown } }> }).objects
    assert.isDefined(objects[0]?.actions?.upload)

    // The read-only deploy key reads, and is refused the upload with one line and a failure status.
    const download = await sshExec(deploy, sshPort, ["git-lfs-authenticate", "/root/assets", "download"])
    assert.strictEqual(download.code, 0, download.stderr)
    const refused = await sshExec(deploy, sshPort, ["git-lfs-authenticate", "root/assets", "upload"])
    assert.notStrictEqual(refused.code, 0)
    assert.strictEqual(refused.stdout, "")
    assert.match(refused.stderr.trim(), /^[^\n]+$/)
  })

  it("pushes and clones LFS objects through an ssh:// remote", async () => {
    const git = sshGit(owner, sshPort)
    const url = `ssh://git@127.0.0.1:${sshPort}/root/assets.git`
    const work = join(git.home, "work")
    // Installed into this client's own HOME, so that clones smudge pointers into their content.
    assert.strictEqual((await git.run(["lfs", "install"])).code, 0)
    assert.strictEqual((await git.run(["clone", "-q", url, work])).code, 0)
    assert.strictEqual((await git.run(["lfs", "track", "*.bin"], work)).code, 0)
    const content = randomBytes(2 * 1024 * 1024)
    writeFileSync(join(work, "model.bin"), content)
    await git.run(["add", "-A"], work)
    await git.run(["commit", "-qm", "model"], work)
    const pushed = await git.run(["push", "-q", "origin", "HEAD"], work)
    assert.strictEqual(pushed.code, 0, pushed.stderr)

    // The object is on the server, and a fresh clone over SSH gets its bytes, not the pointer.
    const usage = await api("GET", "/user/quota")
    assert.strictEqual((usage.json as { used: { size: { git: { LFS: number } } } }).used.size.git.LFS, content.length)
    const again = join(git.home, "again")
    const cloned = await git.run(["clone", "-q", url, again])
    assert.strictEqual(cloned.code, 0, cloned.stderr)
    assert.isTrue(readFileSync(join(again, "model.bin")).equals(content))
  })
})
