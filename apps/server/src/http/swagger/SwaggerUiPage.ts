/**
 * The `/api/swagger` page: Swagger UI loaded from Kiln's own copy of `swagger-ui-dist`, pointed at the
 * served description. Nothing is fetched from another origin: the online validator badge is disabled.
 */

export interface SwaggerUiPageOptions {
  readonly title: string
  /** URL path of the Swagger description, e.g. `/swagger.v1.json`. */
  readonly documentUrl: string
  /** URL path of the folder holding `swagger-ui.css` and `swagger-ui-bundle.js` (ending in `/`). */
  readonly assetsUrl: string
  /** Suffix appended to asset URLs so a new swagger-ui-dist version is not served from stale caches. */
  readonly assetsVersion: string
  /** Where the "back" link leads (the instance's root). */
  readonly homeUrl: string
}

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`)

/** JSON inside `<script>`: `<` escaped so no value can close the element. */
const scriptJson = (value: unknown): string => JSON.stringify(value).replaceAll("<", "\\u003c")

export const swaggerUiPage = (options: SwaggerUiPageOptions): string => {
  const asset = (file: string) => escapeHtml(`${options.assetsUrl}${file}?v=${encodeURIComponent(options.assetsVersion)}`)
  const config = {
    url: options.documentUrl,
    dom_id: "#swagger-ui",
    deepLinking: true,
    docExpansion: "list",
    defaultModelRendering: "model",
    validatorUrl: null
  }
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(options.title)}</title>
  <link rel="stylesheet" href="${asset("swagger-ui.css")}">
  <link rel="icon" type="image/png" sizes="32x32" href="${asset("favicon-32x32.png")}">
  <link rel="icon" type="image/png" sizes="16x16" href="${asset("favicon-16x16.png")}">
  <style>.swagger-back-link { display: inline-block; margin: 1rem 1.25rem 0; font-family: sans-serif; }</style>
</head>
<body>
  <a class="swagger-back-link" href="${escapeHtml(options.homeUrl)}">&larr; Back</a>
  <div id="swagger-ui"></div>
  <script src="${asset("swagger-ui-bundle.js")}"></script>
  <script>
    window.ui = SwaggerUIBundle(Object.assign(${scriptJson(config)}, {
      presets: [SwaggerUIBundle.presets.apis],
      plugins: [SwaggerUIBundle.plugins.DownloadUrl]
    }));
  </script>
</body>
</html>
`
}
