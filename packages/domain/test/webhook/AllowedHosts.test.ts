import { describe, expect, it } from "vitest"
import { allowsConnection, parseAllowedHosts } from "../../src/webhook/AllowedHosts.ts"

/** Forgejo's hostmatcher classes and forms (modules/hostmatcher), as KILN_WEBHOOK_ALLOWED_HOSTS reads them. */
describe("KILN_WEBHOOK_ALLOWED_HOSTS", () => {
  it("external (the default) allows global unicast addresses only", () => {
    const list = parseAllowedHosts("external")
    expect(allowsConnection(list, "example.com", "93.184.216.34")).toBe(true)
    expect(allowsConnection(list, "example.com", "2606:4700:4700::1111")).toBe(true)
    for (const address of ["127.0.0.1", "::1", "10.0.0.1", "192.168.1.1", "172.16.0.1", "fd00::1", "169.254.169.254", "0.0.0.0", "::ffff:127.0.0.1", "2001:db8::1"]) {
      expect(allowsConnection(list, "attacker.example", address)).toBe(false)
    }
  })

  it("loopback and private add their classes; * allows anything", () => {
    expect(allowsConnection(parseAllowedHosts("loopback"), "localhost", "127.0.0.1")).toBe(true)
    expect(allowsConnection(parseAllowedHosts("loopback"), "h", "10.0.0.1")).toBe(false)
    expect(allowsConnection(parseAllowedHosts("private"), "h", "10.0.0.1")).toBe(true)
    expect(allowsConnection(parseAllowedHosts("private"), "h", "127.0.0.1")).toBe(false)
    expect(allowsConnection(parseAllowedHosts(" * "), "h", "169.254.169.254")).toBe(true)
  })

  it("CIDRs match addresses and host globs match names, whatever they resolve to", () => {
    const list = parseAllowedHosts("192.168.0.0/16, *.ci.example,fd00::/8")
    expect(allowsConnection(list, "h", "192.168.3.4")).toBe(true)
    expect(allowsConnection(list, "h", "192.169.0.1")).toBe(false)
    expect(allowsConnection(list, "h", "fd12::1")).toBe(true)
    expect(allowsConnection(list, "build.ci.example", "127.0.0.1")).toBe(true)
    expect(allowsConnection(list, "BUILD.CI.EXAMPLE", "127.0.0.1")).toBe(true)
    expect(allowsConnection(list, "ci.example", "127.0.0.1")).toBe(false)
    expect(allowsConnection(list, "h", "93.184.216.34")).toBe(false)
  })
})
