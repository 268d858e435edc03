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

  it("allows only listed domains (plus local networks with allowLocal), and still checks their addresses", () => {
    const listed = { ...base, allowedDomains: ["git.example.com", "*.corp.test"] }
    assert.isTrue(isHostAllowed(listed, "git.example.com", ["140.82.112.3"]))
    assert.isTrue(isHostAllowed(listed, "a.b.corp.test", ["8.8.8.8"]))
    assert.isFalse(isHostAllowed(listed, "github.com", ["140.82.112.3"]))
    assert.isFalse(isHostAllowed(listed, "evil.example.com", ["8.8.8.8"]))
    assert.isTrue(isHostAllowed({ ...listed, allowLocal: true }, "intranet", ["10.1.1.1"]))
    // A listed name is no way around the address check.
    assert.isFalse(isHostAllowed(listed, "git.example.com", ["127.0.0.1"]))
    assert.isTrue(isHostAllowed({ ...listed, allowLocal: true }, "git.example.com", ["127.0.0.1"]))
    for (const metadata of ["169.254.169.254", "fe80::1", "fd00:ec2::254", "100.100.100.200", "::ffff:169.254.169.254", "64:ff9b::a9fe:a9fe"]) {
      assert.isFalse(isHostAllowed(listed, "git.example.com", [metadata]), metadata)
      assert.isFalse(isHostAllowed({ ...listed, allowLocal: true }, "git.example.com", [metadata]), metadata)
      assert.isFalse(isHostAllowed({ ...base, allowLocal: true }, "any.test", [metadata]), metadata)
    }
  })

  it("refuses a listed name that resolved to nothing (git would resolve it unpinned)", () => {
    const listed = { ...base, allowedDomains: ["*.corp.test"] }
    assert.isFalse(isHostAllowed(listed, "a.b.corp.test", []))
    assert.isFalse(isHostAllowed({ ...listed, allowLocal: true }, "a.b.corp.test", []))
  })
})

describe("IPv4 inside IPv6", () => {
  const hex = (address: string) => {
    const [a = 0, b = 0, c = 0, d = 0] = address.split(".").map(Number)
    return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)]
  }
  const forms: ReadonlyArray<readonly [string, (v4: string) => string]> = [
    ["IPv4-mapped", (v4) => `::ffff:${v4}`],
    ["IPv4-translated", (v4) => `::ffff:0:${v4}`],
    ["NAT64 well-known prefix", (v4) => `64:ff9b::${v4}`],
    ["NAT64 well-known prefix, hex", (v4) => `64:ff9b::${hex(v4).join(":")}`],
    ["6to4", (v4) => `2002:${hex(v4).join(":")}::1`]
  ]
  for (const [name, form] of forms) {
    it(`judges ${name} addresses as their IPv4 address`, () => {
      fc.assert(fc.property(ipv4, (address) => classifyAddress(form(address)) === classifyAddress(address)))
    })
  }

  it("judges IPv4-compatible ::a.b.c.d addresses as their IPv4 address (but :: and ::1 stay themselves)", () => {
    fc.assert(fc.property(ipv4.filter((address) => address !== "0.0.0.0" && address !== "0.0.0.1"), (address) =>
      classifyAddress(`::${address}`) === classifyAddress(address)))
    assert.strictEqual(classifyAddress("::7f00:1"), "loopback")
    assert.strictEqual(classifyAddress("::a9fe:a9fe"), "other")
  })

  it("judges local-use NAT64 (64:ff9b:1::/48) addresses by the IPv4 address around the reserved octet", () => {
    fc.assert(fc.property(fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)), ([a, b, c, d]) => {
      const group = (high: number, low: number) => ((high << 8) | low).toString(16)
      return classifyAddress(`64:ff9b:1:${group(a, b)}:${group(0, c)}:${group(d, 0)}::`) === classifyAddress(`${a}.${b}.${c}.${d}`)
    }))
  })

  it("refuses a loopback, private or metadata address reached through NAT64 or a tunnel", () => {
    for (const address of ["64:ff9b::127.0.0.1", "64:ff9b::10.0.0.1", "64:ff9b::169.254.169.254", "64:ff9b:1:a9fe:a9:fe00::", "::ffff:0:127.0.0.1", "::10.0.0.1", "2002:a9fe:a9fe::", "2001:0:4136:e378:8000:63bf:80ff:fffe"]) {
      assert.isFalse(isHostAllowed(base, "nat64.test", [address]), address)
    }
    assert.isTrue(isHostAllowed(base, "nat64.test", ["64:ff9b::8.8.8.8"]))
  })
})
