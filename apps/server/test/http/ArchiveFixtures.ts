/**
 * Repositories with real content for the archive, editorconfig, fork and migration tests: made
 * with the git CLI in a scratch work tree, pushed straight into the bare repository Kiln created,
 * then recorded with `Repositories.recordPush` as a push through Kiln would be.
 */
import { Effect } from "effect"
import { execFile } from "node:child_process"
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Repositories } from "@kiln/domain/repo/Repositories"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { at, type Auth, request } from "../support/TestServer.ts"

export const gitEnv: Record<string, string> = {
  ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined && !e[0].startsWith("GIT_"))),
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_TERMINAL_PROMPT: "0",
  GIT_AUTHOR_NAME: "Ada",
  GIT_AUTHOR_EMAIL: "ada@example.com",
  GIT_COMMITTER_NAME: "Ada",
  GIT_COMMITTER_EMAIL: "ada@example.com",
  GIT_AUTHOR_DATE: "2024-01-02T03:04:05Z",
  GIT_COMMITTER_DATE: "2024-01-02T03:04:05Z",
  LC_ALL: "C"
}

/** Runs git and returns stdout as bytes; fails the test on a non-zero exit. */
export const git = (args: ReadonlyArray<string>, cwd?: string) =>
  Effect.callback<Buffer>((resume) => {
    execFile("git", [...args], { cwd, env: gitEnv, encoding: "buffer", maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error === null) resume(Effect.succeed(stdout))
      else resume(Effect.die(new Error(`git ${args.join(" ")}: ${stderr.toString()}`)))
    })
  })

export const scratchDir = () => mkdtempSync(join(tmpdir(), "kiln-content-"))

export const bareRepositoryPath = (owner: string, name: string) =>
  Effect.map(Effect.service(KilnConfig), (config) => join(config.dataDir, "repositories", owner.toLowerCase(), `${name.toLowerCase()}.git`))

export const EDITORCONFIG = `root = true

[*]
indent_style = space
indent_size = 4
end_of_line = lf
charset = utf-8
trim_trailing_whitespace = true

[*.{js,ts}]
indent_size = 2

[Makefile]
indent_style = tab

[**.md]
indent_size = unset
charset = latin1
`

/** A work tree with nested folders, an executable, a symlink and an .editorconfig; returns its path. */
export const contentTree = () => {
  const work = scratchDir()
  mkdirSync(join(work, "src", "deep", "er"), { recursive: true })
  writeFileSync(join(work, "README.md"), "# Content\n")
  writeFileSync(join(work, ".editorconfig"), EDITORCONFIG)
  writeFileSync(join(work, "src", "main.ts"), "export const x = 1\n")
  writeFileSync(join(work, "src", "deep", "er", "data.bin"), Buffer.from([0, 1, 2, 255, 254]))
  writeFileSync(join(work, "run.sh"), "#!/bin/sh\necho hi\n")
  chmodSync(join(work, "run.sh"), 0o755)
  symlinkSync("src/main.ts", join(work, "link-to-main"))
  return work
}

/**
 * Creates `owner/name` through the API, pushes the content tree to it on `main` plus a branch
 * `feature/one` and a tag `v1.0`, and records the push. Returns the commit ids.
 */
export const seedRepository = (auth: Auth, owner: string, name: string, options: { readonly private?: boolean; readonly org?: boolean } = {}) =>
  Effect.gen(function*() {
    const path = options.org === true ? `/api/v1/orgs/${owner}/repos` : "/api/v1/user/repos"
    const created = yield* request("POST", path, { auth, json: { name, private: options.private ?? false } })
    if (created.status !== 201) return yield* Effect.die(new Error(`create ${owner}/${name}: ${created.status} ${created.text}`))
    const work = contentTree()
    yield* git(["init", "--quiet", "--initial-branch=main", work])
    yield* git(["add", "-A"], work)
    yield* git(["commit", "--quiet", "-m", "first"], work)
    yield* git(["tag", "-a", "v1.0", "-m", "release"], work)
    yield* git(["checkout", "--quiet", "-b", "feature/one"], work)
    writeFileSync(join(work, "feature.txt"), "feature\n")
    yield* git(["add", "-A"], work)
    yield* git(["commit", "--quiet", "-m", "feature"], work)
    yield* git(["checkout", "--quiet", "main"], work)
    const bare = yield* bareRepositoryPath(owner, name)
    yield* git(["push", "--quiet", bare, "main", "feature/one", "v1.0"], work)
    const repositories = yield* Repositories
    yield* repositories.recordPush(Number(at(created.body, "id"))).pipe(Effect.orDie)
    const main = (yield* git(["rev-parse", "main"], work)).toString().trim()
    const feature = (yield* git(["rev-parse", "feature/one"], work)).toString().trim()
    return { work, main, feature, id: Number(at(created.body, "id")) }
  })
