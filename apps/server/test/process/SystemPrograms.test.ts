/**
 * The check of the machine's programs that runs before any test (testing/SystemPrograms.ts,
 * issue 15 item 6): a missing one stops the run at once with one line naming what to install.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { missingMessage, missingPrograms, REQUIRED_PROGRAMS } from "../../../../testing/SystemPrograms.ts"

const setupModule = pathToFileURL(join(import.meta.dirname, "../../../../testing/SystemPrograms.ts")).href

/** A directory holding executables of these names only. */
const binDir = (commands: ReadonlyArray<string>) => {
  const dir = mkdtempSync(join(tmpdir(), "kiln-bin-"))
  for (const command of commands) {
    writeFileSync(join(dir, command), "#!/bin/sh\nexit 0\n")
    chmodSync(join(dir, command), 0o755)
  }
  return dir
}

describe("SystemPrograms", () => {
  it("finds what is missing on a PATH", () => {
    assert.deepStrictEqual(missingPrograms(binDir([])), REQUIRED_PROGRAMS)
    assert.deepStrictEqual(missingPrograms(binDir(["git", "gpg", "ssh-keygen", "ssh", "git-lfs", "python3", "chromium"])), [])
    assert.deepStrictEqual(missingPrograms(`${binDir(["git", "gpg"])}:${binDir(["ssh-keygen", "ssh", "git-lfs", "python3"])}`).map((p) => p.command), ["chromium"])
  })

  it("stops at once with one line naming what to run when a program is missing and nothing can install it", () => {
    // No apt-get on this PATH: the check cannot install, whoever runs it.
    const path = binDir(["git", "gpg", "ssh-keygen", "ssh", "git-lfs", "python3"])
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", `(await import(${JSON.stringify(setupModule)})).default()`], {
      encoding: "utf8",
      env: { PATH: path },
      timeout: 30_000
    })
    assert.strictEqual(run.status, 1)
    assert.strictEqual(run.stderr, `${missingMessage(missingPrograms(path))}\n`)
    assert.strictEqual(
      run.stderr,
      "The tests need chromium, not found on PATH: run `sudo apt-get install -y chromium` (or your system's equivalent), then the tests again.\n"
    )
  })

  it("lets the run go on when every program is there", () => {
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", `(await import(${JSON.stringify(setupModule)})).default()`], {
      encoding: "utf8",
      env: { PATH: binDir(["git", "gpg", "ssh-keygen", "ssh", "git-lfs", "python3", "chromium"]) },
      timeout: 30_000
    })
    assert.strictEqual(run.status, 0)
    assert.strictEqual(run.stderr, "")
  })
})
