import { describe, expect, it } from "@effect/vitest"
import { sshCloneUrl } from "../../src/wire/User.ts"

describe("sshCloneUrl (Forgejo's ComposeSSHCloneURL)", () => {
  it("uses the short form on port 22 and the URL form otherwise", () => {
    expect(sshCloneUrl({ user: "git", domain: "kiln.test", externalPort: 22 }, "alice/Hello")).toBe("git@kiln.test:alice/Hello.git")
    expect(sshCloneUrl({ user: "git", domain: "kiln.test", externalPort: 2222 }, "alice/Hello")).toBe("ssh://git@kiln.test:2222/alice/Hello.git")
    expect(sshCloneUrl({ user: "forge", domain: "::1", externalPort: 22 }, "a/b")).toBe("ssh://forge@[::1]/a/b.git")
    expect(sshCloneUrl({ user: "git", domain: "::1", externalPort: 2222 }, "a/b")).toBe("ssh://git@[::1]:2222/a/b.git")
  })
})
