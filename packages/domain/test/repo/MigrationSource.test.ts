import { assert, describe, it } from "@effect/vitest"
import { Invalid } from "../../src/errors.ts"
import { cloneCredentials, parseCloneAddress } from "../../src/repo/MigrationSource.ts"

describe("parseCloneAddress", () => {
  it("reads http(s) and git URLs, dropping user information", () => {
    assert.deepStrictEqual(parseCloneAddress(" https://User:pw@Git.Example.com:8443/a/b.git "), {
      kind: "remote", scheme: "https", host: "git.example.com", url: "https://git.example.com:8443/a/b.git"
    })
    assert.deepStrictEqual(parseCloneAddress("git://[::1]:9418/x"), { kind: "remote", scheme: "git", host: "::1", url: "git://[::1]:9418/x" })
    assert.deepStrictEqual(parseCloneAddress("http://10.0.0.1/r"), { kind: "remote", scheme: "http", host: "10.0.0.1", url: "http://10.0.0.1/r" })
  })

  it("treats paths and file URLs as local", () => {
    assert.deepStrictEqual(parseCloneAddress("/srv/git/repo.git"), { kind: "local", path: "/srv/git/repo.git" })
    assert.deepStrictEqual(parseCloneAddress("file:///srv/repo"), { kind: "local", path: "/srv/repo" })
  })

  it("refuses other schemes, scp-like addresses and URLs without a host with Forgejo's texts", () => {
    const message = (raw: string) => {
      const parsed = parseCloneAddress(raw)
      return parsed instanceof Invalid ? parsed.message : "accepted"
    }
    assert.strictEqual(message("ssh://git@host/repo"), "migration/cloning from 'host' is not allowed: the provided url protocol is not allowed")
    assert.strictEqual(message("ftp://host/repo"), "migration/cloning from 'host' is not allowed: the provided url protocol is not allowed")
    assert.strictEqual(message("git@github.com:a/b.git"), "migration/cloning from 'git@github.com:a/b.git' is not allowed: the provided url is invalid")
    assert.strictEqual(message("http:///nohost"), "migration/cloning from 'http:///nohost' is not allowed: the provided url is invalid")
  })
})

describe("cloneCredentials", () => {
  it("prefers username and password, then a token as oauth2's password", () => {
    assert.deepStrictEqual(cloneCredentials({ authUsername: "u", authPassword: "p", authToken: "t" }), { username: "u", password: "p" })
    assert.deepStrictEqual(cloneCredentials({ authToken: "t" }), { username: "oauth2", password: "t" })
    assert.strictEqual(cloneCredentials({}), undefined)
  })
})
