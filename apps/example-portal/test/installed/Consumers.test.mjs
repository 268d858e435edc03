/**
 * Kiln as other projects' tests use it, run by Jest in the project that installs the packed
 * packages (InstalledPackages.test.ts): the throwaway server of `@kiln/server/testing`, and Kiln's
 * handler as middleware of an Express application beside the application's own routes.
 * Plain JavaScript, so Jest runs it as an ES module without a transform.
 */
import { startTestKiln } from "@kiln/server/testing"
import { start } from "@kiln/server"
import express from "express"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

test("@kiln/server/testing starts a throwaway Kiln with an administrator's token", async () => {
  const kiln = await startTestKiln()
  try {
    const response = await fetch(`${kiln.url}/api/v1/user`, { headers: { authorization: `token ${kiln.adminToken}` } })
    expect(response.status).toBe(200)
    const user = await response.json()
    expect(user.login).toBe(kiln.admin.username)
    expect(user.is_admin).toBe(true)
  } finally {
    await kiln.close()
  }
  await expect(import("node:fs/promises").then((fs) => fs.access(kiln.dataDir))).rejects.toThrow()
}, 120_000)

test("Kiln's handler is Express middleware under /git-api, after the application's own routes", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "kiln-express-"))
  const app = express()
  app.get("/own", (_request, response) => response.json({ own: true }))
  let handler
  app.use((request, response, next) => handler(request, response, next))
  app.use((_request, response) => response.status(404).json({ own404: true }))
  const server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening))
  })
  const url = `http://127.0.0.1:${server.address().port}`
  const kiln = await start({ rootUrl: `${url}/git-api/`, dataDir, signingKey: "none", accessLog: false })
  handler = kiln.handler
  try {
    const own = await fetch(`${url}/own`)
    expect(await own.json()).toEqual({ own: true })

    const version = await fetch(`${url}/git-api/api/v1/version`)
    expect(version.status).toBe(200)
    expect(typeof (await version.json()).version).toBe("string")

    // A 404 of Kiln's own is Forgejo's JSON, with Kiln's URL under the mount point.
    const missing = await fetch(`${url}/git-api/api/v1/users/nobody`)
    expect(missing.status).toBe(404)
    expect((await missing.json()).url).toBe(`${url}/git-api/api/swagger`)

    // Outside the mount point the next middleware answers.
    const outside = await fetch(`${url}/elsewhere`)
    expect(await outside.json()).toEqual({ own404: true })
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
    await kiln.close()
    await rm(dataDir, { recursive: true, force: true })
  }
}, 120_000)
