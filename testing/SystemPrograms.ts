/**
 * vitest globalSetup (root vitest.config.ts): the programs of the machine that the tests run
 * (git, git-lfs, gpg, ssh-keygen, python3, Chromium for the Swagger UI page) are checked before any test starts.
 * Missing ones are installed when the run is root with apt-get (as .ci/run does); otherwise the run
 * stops at once with one line saying what to install, instead of one test failing deep in the suite.
 */
import { execFileSync } from "node:child_process"
import { accessSync, constants } from "node:fs"
import { delimiter, join } from "node:path"

export interface SystemProgram {
  readonly command: string
  /** The Debian package that provides it. */
  readonly aptPackage: string
}

export const REQUIRED_PROGRAMS: ReadonlyArray<SystemProgram> = [
  { command: "git", aptPackage: "git" },
  { command: "gpg", aptPackage: "gnupg" },
  { command: "ssh-keygen", aptPackage: "openssh-client" },
  // The LFS tests push, clone and lock with the real client.
  { command: "git-lfs", aptPackage: "git-lfs" },
  // git over SSH is tested with the real client (the SSH bench also needs sshd, and says so).
  { command: "ssh", aptPackage: "openssh-client" },
  // The git launcher in Python is tested with the real interpreter (the server falls back to Perl without it).
  { command: "python3", aptPackage: "python3-minimal" },
  // The Swagger UI test launches /usr/bin/chromium, which Debian's package provides.
  { command: "chromium", aptPackage: "chromium" }
]

/** Whether `command` is an executable in one of the directories of `path` (a PATH value). */
export const onPath = (command: string, path: string): boolean =>
  path.split(delimiter).filter((dir) => dir !== "").some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK)
      return true
    } catch {
      return false
    }
  })

export const missingPrograms = (path: string): ReadonlyArray<SystemProgram> =>
  REQUIRED_PROGRAMS.filter((program) => !onPath(program.command, path))

/** The one line that stops the run: what is missing and the command that installs it. */
export const missingMessage = (missing: ReadonlyArray<SystemProgram>): string =>
  `The tests need ${missing.map((program) => program.command).join(", ")}, not found on PATH: run ` +
  `\`sudo apt-get install -y ${missing.map((program) => program.aptPackage).join(" ")}\` (or your system's equivalent), then the tests again.`

export default function setup(): void {
  const path = process.env["PATH"] ?? ""
  const missing = missingPrograms(path)
  if (missing.length === 0) return
  if (process.getuid?.() === 0 && onPath("apt-get", path)) {
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
    execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env })
    execFileSync("apt-get", ["install", "-y", "-qq", ...missing.map((program) => program.aptPackage)], { stdio: "inherit", env })
    const still = missingPrograms(path)
    if (still.length === 0) return
    process.stderr.write(`${missingMessage(still)}\n`)
    process.exit(1)
  }
  process.stderr.write(`${missingMessage(missing)}\n`)
  process.exit(1)
}
