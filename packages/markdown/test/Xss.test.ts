/**
 * A corpus of XSS payloads: raw HTML, attributes, entity-encoded and mixed-case schemes, SVG,
 * nested markdown links and autolinks. Every payload is rendered in each mode and the output is
 * parsed as a browser would; nothing executable may survive. Some payloads also pin the exact HTML.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import type { Element, Root, RootContent } from "hast"
import { fromHtml } from "hast-util-from-html"
import { find, html as htmlSchema } from "property-information"
import { html, render, rendered } from "./support/Render.ts"

const payloads: ReadonlyArray<string> = [
  // raw HTML elements
  `<script>alert(1)</script>`,
  `<SCRIPT SRC=https://evil.example/x.js></SCRIPT>`,
  `<scr<script>ipt>alert(1)</scr</script>ipt>`,
  `<style>body{background:url("javascript:alert(1)")}</style>`,
  `<iframe src="https://evil.example"></iframe>`,
  `<object data="javascript:alert(1)"></object>`,
  `<embed src="javascript:alert(1)">`,
  `<form action="https://evil.example"><input type="text" name="q"><button>go</button></form>`,
  `<textarea autofocus onfocus=alert(1)>x</textarea>`,
  `<select onchange=alert(1)><option>x</option></select>`,
  `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
  `<base href="javascript:alert(1)//">`,
  `<link rel="stylesheet" href="javascript:alert(1)">`,
  `<template><script>alert(1)</script></template>`,
  `<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`,
  // attributes
  `<img src=x onerror=alert(1)>`,
  `<img src="x" ONERROR="alert(1)">`,
  `<a href="https://ok.example" onclick="alert(1)">x</a>`,
  `<div onmouseover="alert(1)" style="position:fixed;width:100%;height:100%">x</div>`,
  `<p style="color: red; background-image: url(javascript:alert(1))">x</p>`,
  `<span style="color: expression(alert(1))">x</span>`,
  `<input type="checkbox" onclick="alert(1)" autofocus onfocus="alert(1)">`,
  `<details open ontoggle=alert(1)><summary>x</summary></details>`,
  `<video src=x onerror=alert(1) poster="javascript:alert(1)"></video>`,
  `<a href="https://ok.example" formaction="javascript:alert(1)">x</a>`,
  // schemes: case, entities, whitespace, control characters
  `<a href="javascript:alert(1)">x</a>`,
  `<a href="JaVaScRiPt:alert(1)">x</a>`,
  `<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>`,
  `<a href="&#x6A;avascript&colon;alert(1)">x</a>`,
  `<a href="java&#x09;script:alert(1)">x</a>`,
  `<a href=" javascript:alert(1)">x</a>`,
  `<a href="&#0;javascript:alert(1)">x</a>`,
  `<a href="vbscript:msgbox(1)">x</a>`,
  `<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>`,
  `<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">`,
  `<blockquote cite="javascript:alert(1)">x</blockquote>`,
  // SVG and MathML
  `<svg onload=alert(1)><circle r="10"/></svg>`,
  `<svg><a xlink:href="javascript:alert(1)"><text x="20" y="20">x</text></a></svg>`,
  `<svg><script>alert(1)</script></svg>`,
  `<math><mtext><table><mglyph><style><img src=x onerror=alert(1)></style></mglyph></table></mtext></math>`,
  // markdown links and images
  `[x](javascript:alert(1))`,
  `[x](JAVASCRIPT:alert(1))`,
  `[x](java&#115;cript:alert(1))`,
  `[x](<javascript:alert(1)>)`,
  `[x](vbscript:alert(1)) [y](data:text/html,<script>alert(1)</script>)`,
  `![x](javascript:alert(1))`,
  `[![x](javascript:alert(1))](javascript:alert(2))`,
  `[x][ref]\n\n[ref]: javascript:alert(1)`,
  `[x](https://ok.example "title\\" onmouseover=\\"alert(1)")`,
  `[<img src=x onerror=alert(1)>](https://ok.example)`,
  // autolinks
  `<javascript:alert(1)>`,
  `<JAVASCRIPT:alert(1)>`,
  `<data:text/html,<script>alert(1)</script>>`,
  `https://ok.example/"onmouseover="alert(1)`,
  `https://ok.example/<script>alert(1)</script>`,
  `foo@bar.example"onmouseover="alert(1)`,
  // post-processing syntax
  `[[javascript:alert(1)]] [[x|javascript:alert(1)]] [[javascript:alert(1).png]]`,
  `[[x.png|alt="><script>alert(1)</script>"]]`,
  `:smile" onmouseover="alert(1):`,
  `@alice"><script>alert(1)</script>`
]

const dangerousElements = new Set([
  "script", "style", "iframe", "object", "embed", "form", "textarea", "select", "button", "meta", "base", "link",
  "template", "svg", "math", "noscript", "frame", "frameset"
])
const urlAttributes = new Set(["href", "src", "cite", "action", "formaction", "poster", "background", "xlink:href", "usemap", "longdesc"])

/** What a browser would see as a URL scheme: controls and whitespace ignored, case folded. */
const scheme = (url: string): string =>
  /^([a-z][a-z0-9+.-]*):/.exec(url.replace(/[\u0000-\u0020\u007f]/g, "").toLowerCase())?.[1] ?? ""

const problems = (output: string): Array<string> => {
  const found: Array<string> = []
  const visit = (node: Root | RootContent): void => {
    if (node.type === "element") {
      const element: Element = node
      if (dangerousElements.has(element.tagName)) found.push(`<${element.tagName}>`)
      if (element.tagName === "input" && element.properties["type"] !== "checkbox") found.push("non-checkbox input")
      for (const [property, value] of Object.entries(element.properties)) {
        const name = find(htmlSchema, property).attribute.toLowerCase()
        const text = Array.isArray(value) ? value.join(" ") : String(value)
        if (name.startsWith("on")) found.push(`${name} attribute`)
        if (urlAttributes.has(name) && ["javascript", "vbscript", "data"].includes(scheme(text))) found.push(`${name}=${text}`)
        if (name === "style" && !/^((color|background-color): [#a-zA-Z0-9(),. %]+(; )?)+$/.test(text)) found.push(`style=${text}`)
      }
    }
    if ("children" in node) for (const child of node.children) visit(child)
  }
  visit(fromHtml(output, { fragment: true }))
  return found
}

describe("XSS corpus", () => {
  it("has at least 40 payloads", () => assert.isAtLeast(payloads.length, 40))

  for (const mode of ["gfm", "comment", "markdown"]) {
    it.each(payloads.map((p, i) => [i, p] as const))(`${mode} #%i is harmless`, (_, payload) => {
      const output = render(payload, { mode, context: "o/r", wiki: true, mentionable: ["alice"] })
      assert.deepStrictEqual(problems(output), [], `payload ${JSON.stringify(payload)}\noutput ${output}`)
    })
  }

  it("checks would catch an executable payload (the oracle itself can fail)", () => {
    assert.isNotEmpty(problems(`<a href=" JaVa&#x09;Script:x">x</a>`))
    assert.isNotEmpty(problems(`<img src=x onerror=y>`))
    assert.isNotEmpty(problems(`<svg></svg>`))
  })

  it("a link with a dangerous scheme keeps its text and loses the tag", () => {
    assert.strictEqual(rendered(`<a href="JaVaScRiPt:alert(1)">x</a> [y](javascript:alert(1))`), html("<p>x y</p>"))
  })

  it("scripts and styles disappear with their content, unknown tags keep their text", () => {
    assert.strictEqual(rendered(`<script>alert(1)</script>\n\n<foo>bar</foo> <style>p{}</style>`), html("<p>bar </p>"))
  })

  it("event handlers are dropped and the element kept", () => {
    assert.strictEqual(
      rendered(`<img src="https://ok.example/a.png" onerror="alert(1)"> <kbd onclick="x()">K</kbd>`),
      html(`<p><img src="https://ok.example/a.png"/> <kbd>K</kbd></p>`)
    )
  })

  it("only the task-list checkbox survives among form controls", () => {
    assert.strictEqual(rendered(`<input type="text" value="x"><input type="checkbox" checked>`), html(`<p><input type="checkbox" checked=""/></p>`))
  })

  // As in Forgejo, the wrapping link keeps its target (an allowed attribute) after losing its href.
  it("a data: image is refused like any data: URL", () => {
    assert.strictEqual(rendered(`![a](data:image/png;base64,AAAA)`, { mode: "markdown" }), html(`<p><a target="_blank"><img alt="a"/></a></p>`))
  })

  it("arbitrary text never renders anything executable", () => {
    const fragment = fc.constantFrom(
      "<script>", "</script>", "<img src=x onerror=alert(1)>", "javascript:", "<svg onload=x>", "[a](", ")", "<", ">", "\"",
      "'", "&#106;", "![", "]", "(", "<a href=", "`", "\n", " ", "@alice", "[[", "]]", "data:", "style=", "on", "x"
    )
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 30 }), fc.constantFrom("gfm", "comment", "markdown"), (parts, mode) => {
        assert.deepStrictEqual(problems(render(parts.join(""), { mode, mentionable: ["alice"] })), [])
      }),
      { numRuns: 300 }
    )
  })
})
