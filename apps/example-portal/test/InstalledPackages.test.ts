/**
 * Kiln's packages as another project gets them: every package built and packed (`pnpm pack`), the
 * tarballs installed with npm into a project outside the workspace, the example portal copied
 * there, type-checked against the installed declarations and its tests run on the installed
 * JavaScript: with node:test (the portal) and with Jest (the test starter, and Kiln's handler as
 * Express middleware).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFile } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"

const run = promisify(execFile)
const workspace = fileURLToPath(new URL("../../../", import.meta.url))
const example = fileURLToPath(new URL("../", import.meta.url))
const pnpm = ["--yes", "pnpm@12.21.0"]

const packages = [
  "packages/domain",
  "packages/postgres",
  "packages/git",
  "packages/openpgp",
  "packages/markdown",
  "packages/blobs",
  "apps/server"
] as const

const inWorkspace = (args: ReadonlyArray<string>, cwd = workspace) =>
  run("npx", [...pnpm, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 })

describe("the packed packages", () => {
  it("install in an empty project, type-check and run the example there", { timeout: 600_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), "kiln-packages-"))
    try {
      // The library builds only: the server's bundle belongs to the test run's global setup.
      await inWorkspace(["-r", "--filter", "./packages/*", "build"])
      await inWorkspace(["--filter", "@kiln/server", "build:lib"])
      const tarballs = join(root, "tarballs")
      await inWorkspace(["-r", ...packages.flatMap((path) => ["--filter", `./${path}`]), "pack", "--pack-destination", tarballs])
      const packed = readdirSync(tarballs)
      assert.strictEqual(packed.length, packages.length, packed.join(", "))

      const project = join(root, "project")
      mkdirSync(project)
      const dependencies = Object.fromEntries(packed.map((file) => {
        const name = file.replace(/^kiln-/, "@kiln/").replace(/-\d+\.\d+\.\d+\.tgz$/, "")
        return [name, `file:${join(tarballs, file)}`]
      }))
      writeFileSync(join(project, "package.json"), JSON.stringify({
        name: "portal-from-tarballs",
        private: true,
        type: "module",
        dependencies: { ...dependencies, effect: "4.1.0" },
        devDependencies: { typescript: "7.0.2", "@types/node": "^24.0.0", jest: "30.5.2", express: "5.3.0" }
      }))
      cpSync(join(example, "src"), join(project, "src"), { recursive: true })
      cpSync(join(example, "test"), join(project, "test"), { recursive: true })
      cpSync(join(example, "tsconfig.json"), join(project, "tsconfig.json"))
      await run("npm", ["install", "--no-audit", "--no-fund", "--ignore-scripts", "--prefer-offline"], {
        cwd: project,
        maxBuffer: 64 * 1024 * 1024
      })

      // Every declaration of ours is checked; other packages' own declaration problems (PGlite
      // names Emscripten types it does not depend on) are theirs.
      const check = await run(join(project, "node_modules/.bin/tsc"), ["-p", "tsconfig.json"], { cwd: project })
        .then(() => "", (error: { stdout?: string }) => error.stdout ?? String(error))
      const ours = check.split("\n").filter((line) => line.trim() !== "" && !/^node_modules\/(?!@kiln\/)/.test(line))
      assert.deepStrictEqual(ours, [])

      const tests = await run(process.execPath, ["--test", "test/Portal.spec.ts"], { cwd: project })
      assert.match(tests.stdout, /# pass 5|ℹ pass 5/)
      assert.match(tests.stdout, /# fail 0|ℹ fail 0/)

      // Jest runs ES modules only under Node's VM modules flag; its summary goes to stderr.
      const jest = await run(process.execPath, [
        "--experimental-vm-modules",
        join(project, "node_modules/jest/bin/jest.js"),
        "--ci",
        "--config",
        JSON.stringify({ rootDir: join(project, "test/installed"), testMatch: ["**/*.test.mjs"], transform: {} })
      ], { cwd: project, env: { ...process.env, NODE_NO_WARNINGS: "1" }, maxBuffer: 64 * 1024 * 1024 })
      assert.match(jest.stderr, /Tests:\s+2 passed, 2 total/)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })
})
