// Starts Swagger UI on /api/v1/docs from the JSON block the server put in the page.
// An external file because the site's Content-Security-Policy forbids inline scripts.
(function () {
  "use strict";
  const block = document.getElementById("swagger-config");
  const config = JSON.parse(block.textContent);
  window.ui = window.SwaggerUIBundle({
    url: config.url,
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [window.SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    // null: never send the document to validator.swagger.io (the docs work offline)
    validatorUrl: null,
    tryItOutEnabled: true,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
  });
})();
