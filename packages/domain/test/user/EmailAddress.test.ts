import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fc from "fast-check"
import {
  bindEmailForAdmin,
  checkEmailForAdmin,
  isValidEmailForAdmin,
  parseMailAddress,
  placeholderEmail
} from "../../src/user/EmailAddress.ts"

const error = <A>(effect: Effect.Effect<A, { readonly message: string }>) => Effect.runSync(Effect.flip(effect)).message

describe("EmailAddress", () => {
  it("accepts bare addresses as Go's net/mail does", () => {
    for (const email of [
      "deleteme@domain.com", "allowedUser1@example1.org", "user2@example.com", "a@b", "first.last+tag@sub.example.org",
      "\"quoted local\"@example.com", "\"a\\\"b\"@example.com", "<a@b.c>", " a@b.c", "a@b.c ", "a@b.c ()", "a@b.c () (x)",
      "a@[127.0.0.1]", "a@[IPv6:::1]", "a@[IPv6:2001:db8::1]", "group: a@b.c;", "=?utf-8?q??= <a@b.c>", "\"\" <a@b.c>",
      "üser@exämple.org", "a!#$%&'*+/=?^_`{|}~-@x.y", "a@-"
    ]) assert.isTrue(isValidEmailForAdmin(email), email)
  })

  it("rejects display names, CR/LF and malformed addresses", () => {
    for (const email of [
      "", "invalid_email@domain.com\r\n", "a@b.c\n", "John <a@b.c>", "a@b.c (John)", "\"Jo\" <a@b.c>", "a..b@c.d",
      ".a@b.c", "a.@b.c", "a@", "@b.c", "a b@c.d", "a@b.c, d@e.f", "g: a@b.c, d@e.f;", "g:;", "a@[1.2.3]",
      "a@[IPv6:::g]", "a@[01.2.3.4]", "<a@b.c", "a@b.c (unclosed", "a@b.c (=?x-unknown?q?a?=)", "\"\" \"\" <a@b.c>",
      "a\"b@c.d", "a@b..c", "plainaddress"
    ]) assert.isFalse(isValidEmailForAdmin(email), JSON.stringify(email))
  })

  it("returns Go's address and display name", () => {
    assert.deepStrictEqual(parseMailAddress("Barry Gibbs <bg@example.com>"), { name: "Barry Gibbs", address: "bg@example.com" })
    assert.deepStrictEqual(parseMailAddress("bg@example.com (Barry =?utf-8?q?G=C3=AF?=)")?.address, "bg@example.com")
    assert.deepStrictEqual(parseMailAddress("\"a b\"@[IPv6:::ffff:1.2.3.4]"), { name: "", address: "a b@[IPv6:::ffff:1.2.3.4]" })
  })

  it("binding (422) and model level (400) use Forgejo's texts", () => {
    assert.strictEqual(error(bindEmailForAdmin("", "Email")), "[Email]: Required")
    assert.strictEqual(error(bindEmailForAdmin("invalid_email@domain.com\r\n", "Email")),
      "[Email]: e-mail invalid [email: invalid_email@domain.com\r\n]")
    assert.strictEqual(error(bindEmailForAdmin(`${"a".repeat(250)}@b.cd`, "Email")), "[Email]: MaxSize")
    assert.strictEqual(Effect.runSync(bindEmailForAdmin(`${"a".repeat(249)}@b.cd`, "Email")).length, 254)
    // ADM-11: PATCH {"email": ""} → 400 with exactly this message
    assert.strictEqual(error(checkEmailForAdmin("")), "e-mail invalid [email: ]")
    assert.strictEqual(error(checkEmailForAdmin("x")), "e-mail invalid [email: x]")
    assert.strictEqual(Effect.runSync(checkEmailForAdmin("user2@example1.com")), "user2@example1.com")
  })

  it("builds the placeholder for hidden addresses", () => {
    assert.strictEqual(placeholderEmail("User2", "localhost"), "user2@noreply.localhost")
    assert.strictEqual(placeholderEmail("org3", "example.com"), "org3@noreply.example.com")
  })

  it("dot-atom addresses always pass; anything with CR or LF never does", () => {
    const atom = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]{1,8}$/)
    const dotAtom = fc.array(atom, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("."))
    fc.assert(fc.property(dotAtom, dotAtom, (local, domain) => isValidEmailForAdmin(`${local}@${domain}`)))
    fc.assert(fc.property(fc.string(), fc.constantFrom("\r", "\n"), fc.string(), (before, newline, after) =>
      !isValidEmailForAdmin(before + newline + after)))
  })
})
