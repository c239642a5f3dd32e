/**
 * The page at `/` (and the UI's paths) when no web UI is built: where to look, in plain words. No inline style:
 * the pages' Content-Security-Policy allows only the server's own stylesheets.
 */
export function landingPage(problem: string | null): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Recourse</title></head>
<body>
<h1>Recourse</h1>
${problem === null ? '' : `<p role="alert"><strong>${problem}</strong></p>`}
<p>The service is running. The API is under <code>/v1</code> (<a href="/openapi.json">OpenAPI</a>);
live events stream from <a href="/v1/events"><code>/v1/events</code></a>; routes are listed at
<a href="/v1/routes"><code>/v1/routes</code></a>.</p>
<p>From a terminal: <code>recourse routes list</code>, <code>recourse events</code>.</p>
</body></html>
`;
}
