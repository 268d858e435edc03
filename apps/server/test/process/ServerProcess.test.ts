/**
 * The server as an operator runs it: the shipped bundle in a real process on the embedded
 * database. Start-up, the data-dir lock, restarts keeping data, graceful shutdown on SIGTERM, and
 * the files the bundle must find beside it or in the installed packages.
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { request as httpRequest } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort, listening, type ServerProcess, spawnServer } from "../support/ServerProcess.ts"

const adminAuth = `Basic ${Buffer.from("root:root-password").toString("base64")}`

const send = async (port: number, method: string, path: string, body: unknown) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    method,
    headers: { authorization: adminAuth, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, body: await response.text() }
}

const git = (args: ReadonlyArray<string>) => execFileSync("git", args, { stdio: ["ignore", "pipe", "pipe"] })

const get = async (port: number, path: string) => {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: adminAuth } })
  return { status: response.status, body: await response.text() }
}

/** The first access-log line matching `matches`, waiting for the batched write. */
const accessLogLine = async (running: ServerProcess, matches: (line: Record<string, unknown>) => boolean) => {
  for (let attempt = 0; attempt < 50; attempt++) {
    for (const text of running.output.split("\n")) {
      if (!text.startsWith("{")) continue
      const line: Record<string, unknown> = JSON.parse(text)
      if (line["message"] === "request" && matches(line)) return line
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  throw new Error(`no access log line: ${running.output}`)
}

describe("the server process", () => {
  it("refuses a second process on the same data dir, keeps data across restarts, and drains on SIGTERM", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "kiln-process-"))
    const first = spawnServer({ dataDir, port: await freePort() })
    await listening(first)
    // The process ran itself again with its V8 flags (ProcessFlags.ts).
    const commandLine = readFileSync(`/proc/${first.child.pid}/cmdline`, "utf8").split("\0")
    assert.include(commandLine, "--liftoff-only")
    assert.include(commandLine, "--heap-growing-percent=100")
    assert.include(commandLine, "--no-allocation-site-pretenuring")
    const created = await send(first.port, "POST", "/api/v1/admin/users", {
      username: "persisted",
      email: "persisted@example.com",
      password: "password1"
    })
    assert.strictEqual(created.status, 201, created.body)

    // A second process on the same data dir stops at once and harms nothing.
    const second = spawnServer({ dataDir, port: await freePort() })
    const secondCode = await second.exited
    assert.notStrictEqual(secondCode, 0)
    assert.include(second.output, `data directory ${dataDir} is in use by process ${first.child.pid}`)
    assert.strictEqual((await get(first.port, "/api/v1/users/persisted")).status, 200)

    // An in-flight request (its body still arriving) finishes although SIGTERM came first.
    const inFlight = new Promise<number>((resolve, reject) => {
      const req = httpRequest({
        host: "127.0.0.1",
        port: first.port,
        path: "/api/v1/admin/users/persisted",
        method: "PATCH",
        headers: { authorization: adminAuth, "content-type": "application/json", "transfer-encoding": "chunked" }
      }, (res) => {
        res.resume()
        res.on("end", () => resolve(res.statusCode ?? 0))
      })
      req.on("error", reject)
      req.write(`{"full_name":`)
      setTimeout(() => {
        first.child.kill("SIGTERM")
        setTimeout(() => req.end(`"Still Here"}`), 300)
      }, 200)
    })
    assert.strictEqual(await inFlight, 200)
    // A stop asked for is a clean end.
    assert.strictEqual(await first.exited, 0, first.output)
    // Its access-log line was still waiting for its batch when the process stopped: written anyway.
    const drained = await accessLogLine(first, (line) => line["method"] === "PATCH")
    assert.strictEqual(drained["status"], 200)

    const restarted = spawnServer({ dataDir, port: await freePort() })
    await listening(restarted)
    const user = await get(restarted.port, "/api/v1/users/persisted")
    assert.strictEqual(user.status, 200)
    assert.include(user.body, `"full_name":"Still Here"`)

    // The access log: one JSON line per request on standard output.
    const logged = await accessLogLine(restarted, (line) => line["path"] === "/api/v1/users/persisted")
    assert.strictEqual(logged["method"], "GET")
    assert.strictEqual(logged["status"], 200)
    assert.strictEqual(logged["remote"], "127.0.0.1")
    assert.isNumber(logged["durationMs"])
    assert.isFalse(Number.isNaN(Date.parse(String(logged["timestamp"]))))
    restarted.child.kill("SIGTERM")
    await restarted.exited
  }, 120_000)

  it("finds what the bundle leaves outside it: templates, the markdown worker, the editorconfig parser, Swagger UI", async () => {
    const running = spawnServer({ dataDir: mkdtempSync(join(tmpdir(), "kiln-bundle-")), port: await freePort() })
    await listening(running)
    try {
      // Template files, read from beside the bundle, in a clone over smart HTTP.
      const created = await send(running.port, "POST", "/api/v1/admin/users/root/repos", {
        name: "templated",
        auto_init: true,
        license: "MIT",
        gitignores: "Node"
      })
      assert.strictEqual(created.status, 201, created.body)
      const work = join(mkdtempSync(join(tmpdir(), "kiln-bundle-clone-")), "templated")
      git(["clone", "--quiet", `http://root:root-password@127.0.0.1:${running.port}/root/templated.git`, work])
      assert.include(readFileSync(join(work, "LICENSE"), "utf8"), "MIT License")
      assert.include(readFileSync(join(work, ".gitignore"), "utf8"), "node_modules")

      // The render worker, started from its own bundled entry point.
      const rendered = await send(running.port, "POST", "/api/v1/markdown", { text: "# Title\n\n**bold**", mode: "markdown" })
      assert.strictEqual(rendered.status, 200, rendered.body)
      assert.include(rendered.body, "<strong>bold</strong>")

      // The editorconfig parser loads its WebAssembly.
      writeFileSync(join(work, ".editorconfig"), "root = true\n[*.md]\nindent_style = tab\n")
      git(["-C", work, "add", ".editorconfig"])
      git(["-C", work, "-c", "user.name=root", "-c", "user.email=root@example.com", "commit", "--quiet", "-m", "editorconfig"])
      git(["-C", work, "push", "--quiet", "origin", "HEAD"])
      const editorconfig = await get(running.port, "/api/v1/repos/root/templated/editorconfig/README.md")
      assert.strictEqual(editorconfig.status, 200, editorconfig.body)
      assert.include(editorconfig.body, `"indent_style":"tab"`)

      // Swagger UI's files, resolved in the installed swagger-ui-dist.
      const asset = await get(running.port, "/api/swagger/assets/swagger-ui-bundle.js")
      assert.strictEqual(asset.status, 200)
      assert.isAbove(asset.body.length, 100_000)
    } finally {
      running.child.kill("SIGTERM")
      await running.exited
    }
  }, 120_000)

  it("finishes a clone that is running when SIGTERM comes, then exits 0", async () => {
    const running = spawnServer({ dataDir: mkdtempSync(join(tmpdir(), "kiln-drain-")), port: await freePort() })
    await listening(running)
    const created = await send(running.port, "POST", "/api/v1/admin/users/root/repos", { name: "large", auto_init: true })
    assert.strictEqual(created.status, 201, created.body)
    // Enough incompressible content that the clone is still streaming when the signal arrives.
    const scratch = mkdtempSync(join(tmpdir(), "kiln-drain-work-"))
    const work = join(scratch, "large")
    const url = `http://root:root-password@127.0.0.1:${running.port}/root/large.git`
    git(["clone", "--quiet", url, work])
    writeFileSync(join(work, "noise.bin"), randomBytes(48 * 1024 * 1024))
    git(["-C", work, "add", "noise.bin"])
    git(["-C", work, "-c", "user.name=root", "-c", "user.email=root@example.com", "commit", "--quiet", "-m", "noise"])
    git(["-C", work, "push", "--quiet", "origin", "HEAD"])

    let exited = false
    const clone = new Promise<number>((resolve) => {
      const child = spawn("git", ["clone", "--quiet", url, join(scratch, "copy")], { stdio: "ignore" })
      child.once("exit", (code) => {
        exited = true
        resolve(code ?? -1)
      })
    })
    // Once the pack is streaming (the clone's index-pack writes it to a tmp_pack_ file), ask the
    // server to stop. A fixed delay was not enough on a busy machine: a clone that had not yet
    // asked for its pack was refused as a new request.
    const packDirectory = join(scratch, "copy", ".git", "objects", "pack")
    const streaming = () => existsSync(packDirectory) && readdirSync(packDirectory).some((name) => name.startsWith("tmp_pack_"))
    while (!streaming() && !exited) await new Promise((resolve) => setTimeout(resolve, 5))
    assert.isFalse(exited, "the clone ended before its pack was seen streaming")
    running.child.kill("SIGTERM")
    assert.strictEqual(await clone, 0)
    assert.strictEqual(await running.exited, 0, running.output)
    assert.strictEqual(readFileSync(join(scratch, "copy", "noise.bin")).length, 48 * 1024 * 1024)
  }, 120_000)
})
