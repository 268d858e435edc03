/** Each construct the renderer supports, in the modes where it differs. */
import { assert, describe, it } from "@effect/vitest"
import { html, render, rendered } from "./support/Render.ts"

describe("GitHub-flavoured syntax", () => {
  it("tables keep the column alignment as an attribute", () => {
    assert.strictEqual(
      rendered("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |"),
      html(`<table><thead><tr><th align="left">a</th><th align="center">b</th><th align="right">c</th></tr></thead>
<tbody><tr><td align="left">1</td><td align="center">2</td><td align="right">3</td></tr></tbody></table>`)
    )
  })

  it("task lists render disabled checkboxes with the source position of the box", () => {
    assert.strictEqual(
      rendered("- [ ] open\n- [x] done"),
      html(`<ul><li class="task-list-item"><input type="checkbox" disabled="" data-source-position="2"/>open</li>
<li class="task-list-item"><input type="checkbox" disabled="" data-source-position="13" checked=""/>done</li></ul>`)
    )
  })

  it("a loose task list keeps the checkbox first and the paragraph after it", () => {
    assert.strictEqual(
      rendered("- [x] one\n\n- [ ] two"),
      html(`<ul><li class="task-list-item"><input type="checkbox" disabled="" data-source-position="2" checked=""/><p>one</p></li>
<li class="task-list-item"><input type="checkbox" disabled="" data-source-position="13"/><p>two</p></li></ul>`)
    )
  })

  it("strikethrough with one or two tildes", () => {
    assert.strictEqual(rendered("~~gone~~ and ~also~"), html("<p><del>gone</del> and <del>also</del></p>"))
  })

  it("footnotes in Forgejo's shape, numbered by first reference", () => {
    assert.strictEqual(
      rendered("b[^b] a[^a]\n\n[^a]: A\n[^b]: B"),
      html(`<p>b<sup id="fnref:user-content-b"><a href="#fn:user-content-b" rel="nofollow">1</a></sup>
a<sup id="fnref:user-content-a"><a href="#fn:user-content-a" rel="nofollow">2</a></sup></p>
<div><hr/><ol>
<li id="fn:user-content-b"><p>B <a href="#fnref:user-content-b" rel="nofollow">\u21a9\ufe0e</a></p></li>
<li id="fn:user-content-a"><p>A <a href="#fnref:user-content-a" rel="nofollow">\u21a9\ufe0e</a></p></li>
</ol></div>`)
    )
  })

  it("fenced code carries the language class, indented code does not", () => {
    assert.strictEqual(
      rendered("```go\nfunc main() {}\n```\n\n```\nplain\n```\n\n    indented"),
      html(`<pre class="code-block"><code class="chroma language-go display">func main() {}
</code></pre><pre class="code-block"><code class="chroma language-text display">plain
</code></pre><pre><code>indented
</code></pre>`)
    )
  })

  it("mermaid blocks are marked loading; odd language names lose the class, as the sanitizer requires", () => {
    assert.include(render("```mermaid\ngraph\n```"), `<pre class="code-block is-loading">`)
    assert.include(render("```c++\nint x;\n```"), `<pre class="code-block"><code>int x;`)
  })
})

describe("heading ids", () => {
  it("follow Forgejo's slug rules, not github-slugger's", () => {
    const ids = [...render("# Foo & Bar\n# Hello, World!\n# Привет мир\n# C++ / Go\n# `code` *em*\n# 123\n#\n").matchAll(/id="([^"]*)"/g)]
      .map((m) => m[1])
    assert.deepStrictEqual(ids, [
      "user-content-foo-bar",
      "user-content-hello-world",
      "user-content-привет-мир",
      "user-content-c-go",
      "user-content-code-em",
      "user-content-123",
      "user-content-heading"
    ])
  })

  it("repeated headings get -1, -2; an attribute block sets the id", () => {
    assert.strictEqual(
      rendered("## Same\n## Same\n## Same\n## Custom {#mine}"),
      html(`<h2 id="user-content-same">Same</h2><h2 id="user-content-same-1">Same</h2>
<h2 id="user-content-same-2">Same</h2><h2 id="user-content-mine">Custom</h2>`)
    )
  })

  it("anchors in links point at the prefixed ids", () => {
    assert.strictEqual(rendered("[up](#same)"), html(`<p><a href="#user-content-same" rel="nofollow">up</a></p>`))
  })
})

describe("links and images", () => {
  it("every link is rel=nofollow", () => {
    const output = render("[a](https://a.example) <https://b.example> https://c.example [r][ref] foo@bar.example\n\n[ref]: /x", { mode: "comment" })
    const anchors = [...output.matchAll(/<a [^>]*>/g)].map((m) => m[0])
    assert.strictEqual(anchors.length, 5)
    for (const anchor of anchors) assert.include(anchor, `rel="nofollow"`)
  })

  it("bare http(s) URLs are linked but www. and other schemes are not", () => {
    assert.strictEqual(
      rendered("see https://example.com/a_(b) and http://x.example. www.example.com ftp://x.example", { mode: "comment" }),
      html(`<p>see <a href="https://example.com/a_(b)" rel="nofollow">https://example.com/a_(b)</a> and
<a href="http://x.example" rel="nofollow">http://x.example</a>. www.example.com ftp://x.example</p>`)
    )
  })

  it("the raw renderer links no bare URL", () => {
    assert.strictEqual(rendered("https://example.com", { mode: "markdown" }), html("<p>https://example.com</p>"))
  })

  it("images are wrapped in a link to themselves that opens a new tab", () => {
    assert.strictEqual(
      rendered(`![logo](https://example.com/logo.png "Logo")`),
      html(`<p><a href="https://example.com/logo.png" title="Logo" target="_blank" rel="nofollow noopener"><img src="https://example.com/logo.png" alt="logo" title="Logo"/></a></p>`)
    )
  })

  it("an image inside a link is not wrapped again", () => {
    assert.strictEqual(
      rendered("[![b](b.svg)](https://ci.example)", { context: "o/r" }),
      html(`<p><a href="https://ci.example" rel="nofollow"><img src="http://localhost:3000/o/r/b.svg" alt="b"/></a></p>`)
    )
  })
})

describe("context resolution", () => {
  const text = "[doc](docs/a.md) ![img](/img/b.png) [top](/x) [[Page]]"

  it("gfm joins a relative context to the root URL", () => {
    assert.strictEqual(
      rendered(text, { context: "owner/repo" }),
      html(`<p><a href="http://localhost:3000/owner/repo/docs/a.md" rel="nofollow">doc</a>
<a href="http://localhost:3000/owner/repo/img/b.png" target="_blank" rel="nofollow noopener"><img src="http://localhost:3000/owner/repo/img/b.png" alt="img"/></a>
<a href="http://localhost:3000/x" rel="nofollow">top</a>
<a href="http://localhost:3000/owner/repo/src/Page" rel="nofollow">Page</a></p>`)
    )
  })

  it("with Wiki, links resolve under the wiki and images under wiki/raw", () => {
    assert.strictEqual(
      rendered(text, { context: "owner/repo", wiki: true }),
      html(`<p><a href="http://localhost:3000/owner/repo/wiki/docs/a.md" rel="nofollow">doc</a>
<a href="http://localhost:3000/owner/repo/wiki/raw/img/b.png" target="_blank" rel="nofollow noopener"><img src="http://localhost:3000/owner/repo/wiki/raw/img/b.png" alt="img"/></a>
<a href="http://localhost:3000/x" rel="nofollow">top</a>
<a href="http://localhost:3000/owner/repo/wiki/Page" rel="nofollow">Page</a></p>`)
    )
  })

  it("an absolute http(s) context is used as it is", () => {
    assert.strictEqual(
      rendered("[doc](docs/a.md)", { context: "https://other.example/base/" }),
      html(`<p><a href="https://other.example/base/docs/a.md" rel="nofollow">doc</a></p>`)
    )
  })

  // Go's URLJoin drops the leading slash when the base is a relative path, so "/x" becomes "x".
  it("the raw renderer takes the context as given and keeps [[...]] literal", () => {
    assert.strictEqual(
      rendered(text, { mode: "markdown", context: "owner/repo", wiki: true }),
      html(`<p><a href="owner/repo/docs/a.md" rel="nofollow">doc</a>
<a href="owner/repo/img/b.png" target="_blank" rel="nofollow noopener"><img src="owner/repo/img/b.png" alt="img"/></a>
<a href="x" rel="nofollow">top</a> [[Page]]</p>`)
    )
  })

  it("without a context links are root-relative", () => {
    assert.strictEqual(rendered("[doc](docs/a.md)"), html(`<p><a href="/docs/a.md" rel="nofollow">doc</a></p>`))
  })
})

describe("modes", () => {
  const text = "line one\nline two @alice #12 :smile:"

  it("gfm is a document: soft breaks stay, #12 is not linked", () => {
    assert.strictEqual(
      rendered(text, { mentionable: ["alice"] }),
      html(`<p>line one
line two <a href="http://localhost:3000/alice" class="mention" rel="nofollow">@alice</a> #12
<span class="emoji" aria-label="grinning face with smiling eyes" data-alias="smile">😄</span></p>`)
    )
  })

  it("comment turns soft breaks into <br> and links #12", () => {
    assert.strictEqual(
      rendered(text, { mode: "comment", mentionable: ["alice"], repository: { owner: "o", name: "r" } }),
      html(`<p>line one<br/>line two <a href="http://localhost:3000/alice" class="mention" rel="nofollow">@alice</a>
<a href="http://localhost:3000/o/r/issues/12" class="ref-issue" rel="nofollow">#12</a>
<span class="emoji" aria-label="grinning face with smiling eyes" data-alias="smile">😄</span></p>`)
    )
  })

  it("gfm still links cross-repository references, and a wiki document links #12", () => {
    assert.include(render("see o/r#3", { repository: { owner: "o", name: "r" } }), `href="http://localhost:3000/o/r/issues/3"`)
    assert.include(render("see #3", { wiki: true, repository: { owner: "o", name: "r" } }), `href="http://localhost:3000/o/r/issues/3"`)
  })

  for (const mode of ["markdown", "wiki", "", "file", "unknown"]) {
    it(`mode ${JSON.stringify(mode)} uses the raw renderer: no post-processing pass`, () => {
      assert.strictEqual(
        rendered(text, { mode, mentionable: ["alice"], repository: { owner: "o", name: "r" } }),
        html("<p>line one<br/>line two @alice #12 :smile:</p>")
      )
    })
  }

  it("empty text renders to nothing in every mode", () => {
    for (const mode of ["gfm", "comment", "markdown"]) assert.strictEqual(render("", { mode }), "")
  })

  it("the output ends with a newline after the last block", () => {
    assert.isTrue(render("# a\n\ntext").endsWith("</p>\n"))
  })

  it("line endings are normalized: \\r\\n and \\r are line breaks", () => {
    assert.strictEqual(rendered("a\r\nb\rc", { mode: "comment" }), html("<p>a<br/>b<br/>c</p>"))
  })
})

describe("the post-processing pass", () => {
  it("e-mail addresses become mailto links", () => {
    assert.strictEqual(
      rendered("mail me@example.org.", { mode: "comment" }),
      html(`<p>mail <a href="mailto:me@example.org" rel="nofollow">me@example.org</a>.</p>`)
    )
  })

  it("full issue and commit URLs are shortened", () => {
    const sha = "65f1bf27bc3bf70f64657658635e66094edbcb4d"
    assert.strictEqual(
      rendered(`http://localhost:3000/o/r/issues/7 http://localhost:3000/x/y/pulls/8 https://git.example/o/r/commit/${sha}`, {
        mode: "comment",
        repository: { owner: "o", name: "r" }
      }),
      html(`<p><a href="http://localhost:3000/o/r/issues/7" class="ref-issue" rel="nofollow">#7</a>
<a href="http://localhost:3000/x/y/pulls/8" class="ref-issue" rel="nofollow">x/y#8</a>
<a href="https://git.example/o/r/commit/${sha}" rel="nofollow"><code>65f1bf27bc</code></a></p>`)
    )
  })

  it("closing keywords are marked", () => {
    assert.strictEqual(
      rendered("Fixes #4", { mode: "comment", repository: { owner: "o", name: "r" } }),
      html(`<p><span class="issue-keyword">Fixes</span> <a href="http://localhost:3000/o/r/issues/4" class="ref-issue" rel="nofollow">#4</a></p>`)
    )
  })

  it("pull references use !", () => {
    assert.include(render("see !9", { mode: "comment", repository: { owner: "o", name: "r" } }), `href="http://localhost:3000/o/r/pulls/9"`)
  })

  it("commit cross-references link to the commit", () => {
    assert.strictEqual(
      rendered("o/r@65f1bf27bc3bf70f", { mode: "comment" }),
      html(`<p><a href="http://localhost:3000/o/r/commit/65f1bf27bc3bf70f" rel="nofollow">o/r@65f1bf27bc</a></p>`)
    )
  })

  // Forgejo's custom emoji image path is joined to the base like any relative image.
  it("emoji by alias, by code point, and Forgejo's custom emoji; unknown aliases stay", () => {
    assert.strictEqual(
      rendered(":+1: 🎉 :forgejo: :nope:", { mode: "comment" }),
      html(`<p><span class="emoji" aria-label="thumbs up" data-alias="+1">👍</span>
<span class="emoji" aria-label="party popper" data-alias="tada">🎉</span>
<span class="emoji" aria-label="forgejo" data-alias="forgejo"><img alt=":forgejo:" src="/assets/img/emoji/forgejo.png"/></span> :nope:</p>`)
    )
  })

  it("nothing is processed inside code", () => {
    assert.strictEqual(
      rendered("`@alice #1 :smile: https://x.example`", { mode: "comment", mentionable: ["alice"] }),
      html("<p><code>@alice #1 :smile: https://x.example</code></p>")
    )
  })

  it("link text only gets emoji", () => {
    assert.strictEqual(
      rendered("[@alice :smile: #1](https://x.example)", { mode: "comment", mentionable: ["alice"] }),
      html(`<p><a href="https://x.example" rel="nofollow">@alice <span class="emoji" aria-label="grinning face with smiling eyes" data-alias="smile">😄</span> #1</a></p>`)
    )
  })

  it("wiki links: [[Text|Page]] and images with alt and title", () => {
    assert.strictEqual(
      rendered("[[Home page|Home Page]] [[pic.png|alt=A picture]]", { context: "o/r", wiki: true }),
      html(`<p><a href="http://localhost:3000/o/r/wiki/Home-Page" rel="nofollow">Home page</a>
<a href="http://localhost:3000/o/r/wiki/raw/pic.png" rel="nofollow"><img src="http://localhost:3000/o/r/wiki/raw/pic.png" title="A picture" alt="A picture"/></a></p>`)
    )
  })

  it("raw HTML ids and anchors get the user-content- prefix", () => {
    assert.strictEqual(
      rendered(`<a id="top" href="#top">x</a>`),
      html(`<p><a id="user-content-top" href="#user-content-top" rel="nofollow">x</a></p>`)
    )
  })
})

describe("wiki link scanning", () => {
  it("a line break inside [[...]] is not a link, the next [[...]] on one line is", () => {
    assert.strictEqual(
      rendered("[[a\nb]] [[c]]x", { context: "o/r", wiki: true }),
      html(`<p>[[a\nb]] <a href="http://localhost:3000/o/r/wiki/c" rel="nofollow">cx</a></p>`)
    )
  })
})
