/**
 * Where a request for a renamed repository goes (Forgejo's `RedirectToRepo`): the same path with
 * the `{owner}/{repo}` segments that follow `prefix` replaced by the repository's current names,
 * the query kept, under the root URL's path (Forgejo's `AppSubURL`).
 */
export const movedLocation = (
  rootUrl: string,
  requestUrl: string,
  prefix: string,
  to: { readonly owner: string; readonly name: string }
): string | undefined => {
  const url = new URL(requestUrl, "http://internal")
  if (!url.pathname.startsWith(prefix)) return undefined
  const [, , ...rest] = url.pathname.slice(prefix.length).split("/")
  const path = [encodeURIComponent(to.owner), encodeURIComponent(to.name), ...rest].join("/")
  return `${new URL(rootUrl).pathname.replace(/\/$/, "")}${prefix}${path}${url.search}`
}
