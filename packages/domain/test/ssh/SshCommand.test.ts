import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { parseSshCommand, shellWords } from "../../src/ssh/SshCommand.ts"

describe("parseSshCommand", () => {
  it("reads Forgejo's path forms", () => {
    for (const command of [
      "git-upload-pack 'alice/repo.git'",
      "git-upload-pack '/alice/repo.git'",
      "git-upload-pack alice/repo",
      "git-upload-pack \"/alice/repo\""
    ]) {
      expect(parseSshCommand(command)).toEqual({ _tag: "Git", verb: "git-upload-pack", owner: "alice", repo: "repo" })
    }
    expect(parseSshCommand("git-receive-pack 'o/r.git'")).toMatchObject({ verb: "git-receive-pack" })
    expect(parseSshCommand("git-upload-archive 'o/r.git'")).toMatchObject({ verb: "git-upload-archive" })
    expect(parseSshCommand("git-lfs-authenticate o/r.git download")).toEqual({
      _tag: "LfsAuthenticate",
      owner: "o",
      repo: "r",
      operation: "download"
    })
  })

  it("refuses everything else with one line", () => {
    expect(parseSshCommand("ls /")).toEqual({ _tag: "Refused", message: "Unknown git command" })
    expect(parseSshCommand("git-upload-pack")).toEqual({ _tag: "Refused", message: "Too few arguments" })
    expect(parseSshCommand("")).toEqual({ _tag: "Refused", message: "Too few arguments" })
    expect(parseSshCommand("git-upload-pack 'a/b/c'")).toEqual({ _tag: "Refused", message: "Invalid repository path" })
    expect(parseSshCommand("git-upload-pack '../etc'")).toEqual({ _tag: "Refused", message: "Invalid repo name" })
    expect(parseSshCommand("git-upload-pack 'a/b;rm -rf'")).toEqual({ _tag: "Refused", message: "Invalid repo name" })
    expect(parseSshCommand("git-upload-pack 'a/b' extra")).toEqual({ _tag: "Refused", message: "Too many arguments" })
    expect(parseSshCommand("git-upload-pack 'a/b")).toEqual({ _tag: "Refused", message: "Invalid command" })
    expect(parseSshCommand("git-lfs-authenticate a/b delete")).toEqual({ _tag: "Refused", message: "Unknown LFS operation" })
    expect(parseSshCommand(`git-upload-pack ${"a".repeat(5000)}/b`)).toEqual({ _tag: "Refused", message: "Too long command" })
  })

  it("never accepts a name with characters outside Forgejo's, whatever the input", () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), (command) => {
      const parsed = parseSshCommand(command)
      if (parsed._tag === "Refused") return true
      return parsed.owner !== ".." && parsed.repo !== ".." && /^[\w\-.]+$/.test(parsed.owner) && /^[\w\-.]+$/.test(parsed.repo) && !parsed.repo.endsWith(".git")
    }))
  })

  it("splits words as a shell does, expanding nothing", () => {
    expect(shellWords("a 'b c' \"d\\\"e\" f\\ g $HOME")).toEqual(["a", "b c", "d\"e", "f g", "$HOME"])
  })
})
