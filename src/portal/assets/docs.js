/* global window */
// Starts Swagger UI from Herald's own copy of swagger-ui-dist: /docs works offline.
window.SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui' });
