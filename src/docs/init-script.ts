// The script that starts Swagger UI on the docs page, served as docs/init.js: the page's CSP allows
// no inline script. The OpenAPI document to show comes from the page's data-spec attribute.
export const INIT_JS = `"use strict";
window.addEventListener('DOMContentLoaded', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-spec'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    // Never ask validator.swagger.io to judge the document: the page talks to the gateway only.
    validatorUrl: null,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;
