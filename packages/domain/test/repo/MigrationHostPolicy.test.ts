import { assert, describe, it } from "@effect/vitest"
import * as fc from "fast-check"
import { classifyAddress, isHostAllowed, type MigrationSettingsShape } from "../../src/repo/MigrationHostPolicy.ts"

const base: MigrationSettingsShape = { allowLocal: false, allowedDomains: [], allowLocalPaths: false, maxSize: 1 }

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((bytes) => bytes.join("."))
const localV4 = fc.oneof(
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([b, c, d]) => `127.${b}.${c}.${d}`),
  fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([b, c, d]) => `10.${b}.${c}.${d}`),
  fc.tuple(fc.integer({ min: 16, max: 31 }), fc.nat(255), fc.nat(255)).map(([b, c, d]) => `172.${b}.${c}.${d}`),
  fc.tuple(fc.nat(255), fc.nat(255)).map(([c, d]) => `192.168.${c}.${d}`)
)

describe("classifyAddress", () => {
  it("knows Go's builtin classes", () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["127.0.0.1", "loopback"], ["::1", "loopback"], ["::ffff:127.0.0.1", "loopback"], ["0:0:0:0:0:0:0:1", "loopback"],
      ["10.0.0.1", "private"], ["172.16.5.4", "private"], ["172.32.0.1", "external"], ["192.168.1.1", "private"],
      ["fd00::1", "private"], ["fc12:3456::9", "private"], ["::ffff:10.1.2.3", "private"],
      ["169.254.169.254", "other"], ["0.0.0.0", "other"], ["::", "other"], ["fe80::1", "other"], ["ff02::1", "other"],
      ["224.0.0.1", "other"], ["255.255.255.255", "other"], ["8.8.8.8", "external"], ["2001:4860:4860::8888", "external"],
      ["not-an-address", "other"], ["1.2.3", "other"], ["1:2:3", "other"]
    ]
    for (const [address, expected] of cases) assert.strictEqual(classifyAddress(address), expected, address)
  })

  it("judges an IPv4-mapped IPv6 address as its IPv4 address", () => {
    fc.assert(fc.property(ipv4, (address) => classifyAddress(`::ffff:${address}`) === classifyAddress(address)))
  })
})

describe("isHostAllowed", () => {
  it("refuses loopback and private addresses by default and allows them with allowLocal", () => {
    fc.assert(fc.property(localV4, (address) =>
      !isHostAllowed(base, "example.test", [address]) && isHostAllowed({ ...base, allowLocal: true }, "example.test", [address])))
  })

  it("refuses a host when any of its addresses is refused (no mixing a public and a private answer)", () => {
    fc.assert(fc.property(localV4, fc.array(fc.constant("8.8.8.8"), { minLength: 1, maxLength: 3 }), (local, publics) =>
      !isHostAllowed(base, "rebind.test", [...publics, local]) && isHostAllowed(base, "rebind.test", publics)))
  })

  it("refuses a host that resolved to nothing, and link-local addresses even with allowLocal", () => {
    assert.isFalse(isHostAllowed(base, "nowhere.invalid", []))
    assert.isFalse(isHostAllowed({ ...base, allowLocal: true }, "metadata.test", ["169.254.169.254"]))
  })

  it("allows listed domains whatever they resolve to, and only them (plus local networks with allowLocal)", () => {
    const listed = { ...base, allowedDomains: ["git.example.com", "*.corp.test"] }
    assert.isTrue(isHostAllowed(listed, "git.example.com", ["127.0.0.1"]))
    assert.isTrue(isHostAllowed(listed, "a.b.corp.test", []))
    assert.isFalse(isHostAllowed(listed, "github.com", ["140.82.112.3"]))
    assert.isFalse(isHostAllowed(listed, "evil.example.com", ["8.8.8.8"]))
    assert.isTrue(isHostAllowed({ ...listed, allowLocal: true }, "intranet", ["10.1.1.1"]))
  })
})
