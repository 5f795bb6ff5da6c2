// The reference page of one service's OpenAPI document (api/openapi/routes.ts): Swagger UI, served by
// this service, with nothing fetched elsewhere (no validator badge, no fonts from a CDN).
window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-url'),
    dom_id: '#swagger-ui',
    validatorUrl: null,
    deepLinking: true,
    displayOperationId: true,
    // Same origin: the browser's session cookie (or no token) is what the calls carry.
    withCredentials: true,
  });
});
