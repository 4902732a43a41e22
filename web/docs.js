// Renders /openapi.json with Swagger UI (served from node_modules by this server: no CDN).
// "Authorize" takes the key once; "Try it out" sends real requests to this server with it.
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  persistAuthorization: true,
  displayRequestDuration: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  filter: true,
  tryItOutEnabled: false,
  syntaxHighlight: { activated: true },
  // Swagger UI would otherwise send the document to validator.swagger.io for a badge: this page makes no request
  // beyond its own server.
  validatorUrl: null,
});
