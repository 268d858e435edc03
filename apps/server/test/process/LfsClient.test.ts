/**
 * The real `git-lfs` client (Debian's package) against the server as it ships (the bundle in a
 * child process, embedded database, the root URL its own address so that the batch's hrefs are
 * reachable): track, push, clone and pull of several objects, one of 100 MB; a push whose upload
 * is cut by a SIGKILL of the server, finished once the server is back; locks created, listed,
 * verified, refused to another user and force-unlocked by an administrator; read-only access
 * refused on upload; a quota over its limit refused (KILN_QUOTA_ENFORCE on); usage equal to the sum
 * of referenced objects after pushes, forks and deletions; two clients pushing the same object at
 * once (stored once, referenced by both repositories); a migration with `lfs: true` (and
 * `lfs_endpoint`) fetching the source's objects.
 */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { execFile, spawn } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { copyFileSync, createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, listening, type ServerProcess, spawnServer } from "../support/ServerProcess.ts"

interface Result {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

const MiB = 1024 * 1024

/** A git user: its own HOME, identity and stored credentials, git-lfs installed in its config. */
interface Client {
  readonly name: string
  readonly password: string
  readonly home: string
  readonly run: (args: ReadonlyArray<string>, cwd?: string) => Promise<Result>
  readonly git: (args: ReadonlyArray<string>, cwd?: string) => Promise<string>
}

const sha256File = (path: string) =>
  new Promise<string>((resolve, reject) => {
    const hash = createHash("sha256")
    createReadStream(path).on("data", (chunk) => hash.update(chunk)).on("end", () => resolve(hash.digest("hex"))).on("error", reject)
  })

/** A file of random bytes, written a MiB at a time. */
const randomFile = async (path: string, bytes: number) => {
  const out = createWriteStream(path)
  for (let written = 0; written < bytes; written += MiB) {
    const chunk = randomBytes(Math.min(MiB, bytes - written))
    if (!out.write(chunk)) await new Promise<void>((resolve) => out.once("drain", () => resolve()))
  }
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())))
}

describe("git-lfs against a Kiln process", () => {
  const root = mkdtempSync(join(tmpdir(), "kiln-lfs-client-"))
  const dataDir = join(root, "data")
  let port = 0
  let server: ServerProcess | undefined
  let base = ""

  const start = async () => {
    server = spawnServer({
      dataDir,
      port,
      env: { KILN_ROOT_URL: `${base}/`, KILN_ACCESS_LOG: "false", KILN_QUOTA_ENFORCE: "true", KILN_MIGRATIONS_ALLOW_LOCAL: "true" }
    })
    await listening(server)
  }

  const api = async (method: string, path: string, auth: string, json?: unknown) => {
    const response = await fetch(`${base}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Basic ${Buffer.from(auth).toString("base64")}`,
        ...(json === undefined ? {} : { "content-type": "application/json" })
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) })
    })
    const text = await response.text()
    return { status: response.status, text, json: text === "" ? undefined : JSON.parse(text) as unknown }
  }
  const admin = "root:root-password"

  const lfsUsage = async (client: Client) => {
    const answer = await api("GET", "/user/quota", `${client.name}:${client.password}`)
    const used = answer.json as { used: { size: { git: { LFS: number } } } }
    return used.used.size.git.LFS
  }

  const makeClient = async (name: string): Promise<Client> => {
    const password = `${name}-password-1`
    const created = await api("POST", "/admin/users", admin, { username: name, email: `${name}@example.com`, password, must_change_password: false })
    assert.strictEqual(created.status, 201, created.text)
    const home = join(root, `home-${name}`)
    mkdirSync(home, { recursive: true })
    const url = new URL(base)
    writeFileSync(join(home, ".git-credentials"), `http://${name}:${password}@${url.host}\n`)
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith("GIT_"))),
      HOME: home,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      GIT_AUTHOR_NAME: name,
      GIT_AUTHOR_EMAIL: `${name}@example.com`,
      GIT_COMMITTER_NAME: name,
      GIT_COMMITTER_EMAIL: `${name}@example.com`,
      LC_ALL: "C"
    }
    const run = (args: ReadonlyArray<string>, cwd = home) =>
      new Promise<Result>((resolve) => {
        execFile("git", [...args], { cwd, env, maxBuffer: 64 * MiB }, (error, stdout, stderr) => {
          resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
        })
      })
    const git = async (args: ReadonlyArray<string>, cwd?: string) => {
      const result = await run(args, cwd)
      if (result.code !== 0) throw new Error(`git ${args.join(" ")} failed (${result.code}): ${result.stderr}`)
      return result.stdout
    }
    await git(["config", "--global", "credential.helper", "store"])
    await git(["config", "--global", "init.defaultBranch", "main"])
    // Fail fast where a test expects a refusal; the killed-server push sets its own retries.
    await git(["config", "--global", "lfs.transfer.maxretries", "2"])
    await git(["lfs", "install"])
    return { name, password, home, run, git }
  }

  const remote = (owner: string, repo: string, user: string) => `http://${user}@${new URL(base).host}/${owner}/${repo}.git`

  const createRepo = async (client: Client, name: string) => {
    const created = await api("POST", "/user/repos", `${client.name}:${client.password}`, { name })
    assert.strictEqual(created.status, 201, created.text)
  }

  /** A work tree of `owner/repo` for `client`, with `*.bin` tracked by LFS. */
  const workTree = async (client: Client, owner: string, repo: string, dir: string) => {
    await client.git(["init", "-q", dir])
    await client.git(["remote", "add", "origin", remote(owner, repo, client.name)], dir)
    await client.git(["lfs", "track", "*.bin"], dir)
    return dir
  }

  const uploadsInFlight = () => {
    const tmp = join(dataDir, "tmp")
    if (!existsSync(tmp)) return 0
    let bytes = 0
    for (const owner of readdirSync(tmp)) {
      const uploads = join(tmp, owner, "uploads")
      if (!existsSync(uploads)) continue
      for (const file of readdirSync(uploads)) {
        try {
          bytes += statSync(join(uploads, file)).size
        } catch {
          // Placed or removed meanwhile.
        }
      }
    }
    return bytes
  }

  beforeAll(async () => {
    port = await freePort()
    base = `http://127.0.0.1:${port}`
    await start()
  }, 120_000)

  afterAll(async () => {
    if (server !== undefined && server.child.exitCode === null) {
      server.child.kill("SIGTERM")
      await server.exited
    }
    rmSync(root, { recursive: true, force: true })
  }, 60_000)

  it("tracks, pushes, clones and pulls several objects (one of 100 MB); a push cut by a SIGKILL of the server finishes once it is back; usage follows pushes, forks and deletions", async () => {
    const alice = await makeClient("alice")
    const bob = await makeClient("bob")
    await createRepo(alice, "media")
    const work = await workTree(alice, "alice", "media", join(alice.home, "media"))
    const sizes = { "a.bin": 10_000, "b.bin": 2 * MiB, "c.bin": 100 * MiB }
    for (const [name, size] of Object.entries(sizes)) await randomFile(join(work, name), size)
    writeFileSync(join(work, "README.md"), "# media\n")
    await alice.git(["add", "-A"], work)
    await alice.git(["commit", "-q", "-m", "objects"], work)
    const pushed = await alice.run(["push", "-q", "origin", "main"], work)
    assert.strictEqual(pushed.code, 0, pushed.stderr)
    const digests = Object.fromEntries(await Promise.all(Object.keys(sizes).map(async (name) => [name, await sha256File(join(work, name))] as const)))
    const total = Object.values(sizes).reduce((sum, size) => sum + size, 0)
    assert.strictEqual(await lfsUsage(alice), total)
    // Stored as content-addressed files.
    for (const oid of Object.values(digests)) assert.isTrue(existsSync(join(dataDir, "lfs", oid.slice(0, 2), oid.slice(2, 4), oid.slice(4))), oid)

    // A clone checks the objects out; a clone without smudging gets them with `git lfs pull`.
    const cloned = join(alice.home, "cloned")
    const clone = await alice.run(["clone", "-q", remote("alice", "media", "alice"), cloned])
    assert.strictEqual(clone.code, 0, clone.stderr)
    for (const [name, digest] of Object.entries(digests)) assert.strictEqual(await sha256File(join(cloned, name)), digest, name)
    const lazy = join(alice.home, "lazy")
    await alice.git(["-c", "filter.lfs.smudge=git-lfs smudge --skip", "-c", "filter.lfs.process=git-lfs filter-process --skip", "clone", "-q", remote("alice", "media", "alice"), lazy])
    assert.isBelow(statSync(join(lazy, "c.bin")).size, 1024, "a pointer before the pull")
    await alice.git(["lfs", "pull"], lazy)
    assert.strictEqual(await sha256File(join(lazy, "c.bin")), digests["c.bin"])

    // A push whose 100 MB upload is cut by a SIGKILL: git-lfs retries, and once the server is back the push completes.
    await randomFile(join(work, "d.bin"), 100 * MiB)
    await alice.git(["add", "-A"], work)
    await alice.git(["commit", "-q", "-m", "another big one"], work)
    const child = spawn("git", ["-c", "lfs.transfer.maxretries=10", "push", "-q", "origin", "main"], {
      cwd: work,
      env: { ...process.env, HOME: alice.home, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr.on("data", (chunk) => (stderr += String(chunk)))
    const firstPush = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    let cut = false
    for (let waited = 0; waited < 120_000 && !cut; waited += 10) {
      if (uploadsInFlight() > MiB) {
        server?.child.kill("SIGKILL")
        cut = true
      } else {
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    }
    assert.isTrue(cut, "the upload was seen in flight")
    await server?.exited
    await start()
    const firstCode = await firstPush
    if (firstCode !== 0) {
      const again = await alice.run(["push", "-q", "origin", "main"], work)
      assert.strictEqual(again.code, 0, `${stderr}\n${again.stderr}`)
    }
    const dDigest = await sha256File(join(work, "d.bin"))
    const afterKill = join(alice.home, "after-kill")
    await alice.git(["clone", "-q", remote("alice", "media", "alice"), afterKill])
    assert.strictEqual(await sha256File(join(afterKill, "d.bin")), dDigest)
    assert.strictEqual(await lfsUsage(alice), total + 100 * MiB)
    // The killed process's staging files went with it (swept at the start).
    assert.strictEqual(uploadsInFlight(), 0)

    // A fork counts its base's objects for the fork's owner; deleting repositories drops them.
    const forked = await api("POST", "/repos/alice/media/forks", `bob:${bob.password}`, { name: "media-fork" })
    assert.strictEqual(forked.status, 202, forked.text)
    assert.strictEqual(await lfsUsage(bob), total + 100 * MiB)
    const bobClone = join(bob.home, "fork")
    const fromFork = await bob.run(["clone", "-q", remote("bob", "media-fork", "bob"), bobClone])
    assert.strictEqual(fromFork.code, 0, fromFork.stderr)
    assert.strictEqual(await sha256File(join(bobClone, "a.bin")), digests["a.bin"])
    assert.strictEqual((await api("DELETE", "/repos/bob/media-fork", `bob:${bob.password}`)).status, 204)
    assert.strictEqual(await lfsUsage(bob), 0)
    assert.strictEqual(await lfsUsage(alice), total + 100 * MiB)
  }, 600_000)

  it("locks: created, listed, verified, refused to another user, force-unlocked by an administrator", async () => {
    const carol = await makeClient("carol")
    const dave = await makeClient("dave")
    await createRepo(carol, "game")
    const added = await api("PUT", "/repos/carol/game/collaborators/dave", `carol:${carol.password}`, { permission: "write" })
    assert.strictEqual(added.status, 204, added.text)
    const work = await workTree(carol, "carol", "game", join(carol.home, "game"))
    await randomFile(join(work, "hero.bin"), 1000)
    await carol.git(["add", "-A"], work)
    await carol.git(["commit", "-q", "-m", "hero"], work)
    await carol.git(["push", "-q", "origin", "main"], work)

    const locked = await carol.run(["lfs", "lock", "--json", "hero.bin"], work)
    assert.strictEqual(locked.code, 0, locked.stderr)
    // git-lfs 3.3 prints the new lock inside a list.
    const [lock] = JSON.parse(locked.stdout) as ReadonlyArray<{ id: string; path: string; owner: { name: string } }>
    if (lock === undefined) throw new Error(`no lock in ${locked.stdout}`)
    assert.strictEqual(lock.path, "hero.bin")
    assert.strictEqual(lock.owner.name, "carol")
    const listed = JSON.parse(await carol.git(["lfs", "locks", "--json"], work)) as ReadonlyArray<{ id: string }>
    assert.deepStrictEqual(listed.map((entry) => entry.id), [lock.id])
    const verified = JSON.parse(await carol.git(["lfs", "locks", "--verify", "--json"], work)) as {
      ours: ReadonlyArray<{ id: string }>
      theirs: ReadonlyArray<{ id: string }>
    }
    assert.deepStrictEqual(verified.ours.map((entry) => entry.id), [lock.id])
    assert.deepStrictEqual(verified.theirs, [])

    const daveWork = join(dave.home, "game")
    await dave.git(["clone", "-q", remote("carol", "game", "dave"), daveWork])
    const taken = await dave.run(["lfs", "lock", "hero.bin"], daveWork)
    assert.notStrictEqual(taken.code, 0)
    assert.include(taken.stderr, "already created lock")
    const notHis = await dave.run(["lfs", "unlock", "hero.bin"], daveWork)
    assert.notStrictEqual(notHis.code, 0)

    // The administrator forces it away.
    const rootHome = join(root, "home-root")
    mkdirSync(rootHome, { recursive: true })
    writeFileSync(join(rootHome, ".git-credentials"), `http://root:root-password@${new URL(base).host}\n`)
    const rootEnv = { ...process.env, HOME: rootHome, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1" }
    const asRoot = (args: ReadonlyArray<string>, cwd: string) =>
      new Promise<Result>((resolve) =>
        execFile("git", [...args], { cwd, env: rootEnv }, (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : 1, stdout, stderr })))
    assert.strictEqual((await asRoot(["config", "--global", "credential.helper", "store"], rootHome)).code, 0)
    const rootWork = join(rootHome, "game")
    const rootClone = await asRoot(["clone", "-q", remote("carol", "game", "root"), rootWork], rootHome)
    assert.strictEqual(rootClone.code, 0, rootClone.stderr)
    const forced = await asRoot(["lfs", "unlock", "--force", "--id", lock.id], rootWork)
    assert.strictEqual(forced.code, 0, forced.stderr)
    const none = JSON.parse(await carol.git(["lfs", "locks", "--json"], work)) as ReadonlyArray<unknown>
    assert.deepStrictEqual(none, [])
  }, 300_000)

  it("refuses uploads to a reader and to an owner over quota", async () => {
    const erin = await makeClient("erin")
    const fred = await makeClient("fred")
    await createRepo(erin, "docs")
    const added = await api("PUT", "/repos/erin/docs/collaborators/fred", `erin:${erin.password}`, { permission: "read" })
    assert.strictEqual(added.status, 204, added.text)
    const fredWork = await workTree(fred, "erin", "docs", join(fred.home, "docs"))
    await randomFile(join(fredWork, "x.bin"), 5000)
    await fred.git(["add", "-A"], fredWork)
    await fred.git(["commit", "-q", "-m", "x"], fredWork)
    const refused = await fred.run(["lfs", "push", "--all", "origin"], fredWork)
    assert.notStrictEqual(refused.code, 0)
    assert.include(refused.stderr, "User permission denied")

    const group = await api("POST", "/admin/quota/groups", admin, { name: "tiny-lfs", rules: [{ name: "tiny-lfs", limit: 1000, subjects: ["size:git:lfs"] }] })
    assert.strictEqual(group.status, 201, group.text)
    assert.strictEqual((await api("PUT", "/admin/quota/groups/tiny-lfs/users/erin", admin)).status, 204)
    const erinWork = await workTree(erin, "erin", "docs", join(erin.home, "docs"))
    await randomFile(join(erinWork, "big.bin"), 5000)
    await erin.git(["add", "-A"], erinWork)
    await erin.git(["commit", "-q", "-m", "big"], erinWork)
    // Within quota (0 used): accepted, and now over it.
    const first = await erin.run(["push", "-q", "origin", "main"], erinWork)
    assert.strictEqual(first.code, 0, first.stderr)
    await randomFile(join(erinWork, "more.bin"), 5000)
    await erin.git(["add", "-A"], erinWork)
    await erin.git(["commit", "-q", "-m", "more"], erinWork)
    const over = await erin.run(["push", "-q", "origin", "main"], erinWork)
    assert.notStrictEqual(over.code, 0)
    assert.include(over.stderr, "quota exceeded")
    assert.strictEqual(await lfsUsage(erin), 5000)
  }, 300_000)

  it("two clients pushing the same object at once: stored once, referenced by both repositories", async () => {
    const gus = await makeClient("gus")
    const hana = await makeClient("hana")
    await createRepo(gus, "one")
    await createRepo(hana, "two")
    const content = join(root, "shared.bin")
    await randomFile(content, 20 * MiB)
    const digest = await sha256File(content)
    const prepare = async (client: Client, owner: string, repo: string) => {
      const work = await workTree(client, owner, repo, join(client.home, repo))
      copyFileSync(content, join(work, "shared.bin"))
      await client.git(["add", "-A"], work)
      await client.git(["commit", "-q", "-m", "shared"], work)
      return work
    }
    const [gusWork, hanaWork] = await Promise.all([prepare(gus, "gus", "one"), prepare(hana, "hana", "two")])
    const [a, b] = await Promise.all([gus.run(["push", "-q", "origin", "main"], gusWork), hana.run(["push", "-q", "origin", "main"], hanaWork)])
    assert.strictEqual(a.code, 0, a.stderr)
    assert.strictEqual(b.code, 0, b.stderr)
    assert.strictEqual(await lfsUsage(gus), 20 * MiB)
    assert.strictEqual(await lfsUsage(hana), 20 * MiB)
    const files = readdirSync(join(dataDir, "lfs", digest.slice(0, 2), digest.slice(2, 4)))
    assert.deepStrictEqual(files.filter((file) => file === digest.slice(4)), [digest.slice(4)])
    for (const [client, owner, repo] of [[gus, "gus", "one"], [hana, "hana", "two"]] as const) {
      const check = join(client.home, `${repo}-check`)
      await client.git(["clone", "-q", remote(owner, repo, client.name), check])
      assert.strictEqual(await sha256File(join(check, "shared.bin")), digest)
    }
  }, 300_000)

  it("a migration with lfs: true fetches the source's objects, from the clone address or lfs_endpoint", async () => {
    const ida = await makeClient("ida")
    const jon = await makeClient("jon")
    const created = await api("POST", "/user/repos", `ida:${ida.password}`, { name: "vault", private: true })
    assert.strictEqual(created.status, 201, created.text)
    const work = await workTree(ida, "ida", "vault", join(ida.home, "vault"))
    await randomFile(join(work, "one.bin"), 30_000)
    await randomFile(join(work, "two.bin"), 3 * MiB)
    await ida.git(["add", "-A"], work)
    await ida.git(["commit", "-q", "-m", "objects"], work)
    await ida.git(["push", "-q", "origin", "main"], work)
    const digests = { "one.bin": await sha256File(join(work, "one.bin")), "two.bin": await sha256File(join(work, "two.bin")) }
    const kay = await makeClient("kay")
    const migrate = (client: Client, name: string, extra: Record<string, unknown>) =>
      api("POST", "/repos/migrate", `${client.name}:${client.password}`, {
        clone_addr: `${base}/ida/vault.git`,
        repo_name: name,
        auth_username: "ida",
        auth_password: ida.password,
        lfs: true,
        ...extra
      })
    const hasObjects = async (client: Client, repo: string) => {
      const clone = join(client.home, repo)
      const cloned = await client.run(["clone", "-q", remote(client.name, repo, client.name), clone])
      assert.strictEqual(cloned.code, 0, cloned.stderr)
      for (const [name, digest] of Object.entries(digests)) assert.strictEqual(await sha256File(join(clone, name)), digest)
    }

    // lfs_endpoint names where the objects are; a wrong one fails the migration and leaves nothing.
    const wrong = await migrate(jon, "vault-wrong", { lfs_endpoint: `${base}/ida/nothing.git/info/lfs` })
    assert.strictEqual(wrong.status, 422, wrong.text)
    assert.include(wrong.text, "Migration failed")
    assert.strictEqual((await api("GET", "/repos/jon/vault-wrong", `jon:${jon.password}`)).status, 404)
    assert.strictEqual(await lfsUsage(jon), 0)

    // Neither jon nor kay may read ida's private repository: the bytes are downloaded with ida's credentials.
    const copied = await migrate(jon, "vault-copy", {})
    assert.strictEqual(copied.status, 201, copied.text)
    assert.strictEqual(await lfsUsage(jon), 30_000 + 3 * MiB)
    await hasObjects(jon, "vault-copy")
    const explicit = await migrate(kay, "vault-explicit", { lfs_endpoint: `${base}/ida/vault/info/lfs` })
    assert.strictEqual(explicit.status, 201, explicit.text)
    assert.strictEqual(await lfsUsage(kay), 30_000 + 3 * MiB)
    await hasObjects(kay, "vault-explicit")
  }, 300_000)
})
