// Every htmx request carries the page's CSRF token, so state-changing
// requests htmx sends (decisions, notes, rules) pass the server's check;
// plain forms carry it as the csrf_token field.
document.addEventListener("htmx:configRequest", function (ev) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) ev.detail.headers["X-CSRF-Token"] = meta.content;
});
