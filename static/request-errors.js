// A request htmx sends that the server refuses (a 403 for a role that
// cannot do it, a stale form, a 5xx) or that never arrives must not fail
// silently: the answer's message is shown, as text, beside the control
// that sent it, until the next request from there succeeds.
(function () {
  "use strict";
  function message(xhr) {
    var type = xhr.getResponseHeader("Content-Type") || "", msg = "";
    try {
      if (type.indexOf("text/html") === 0) {
        var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
        var m = doc.querySelector('[data-testid="error-message"]');
        if (m) msg = m.textContent.trim();
      } else if (type.indexOf("application/json") === 0) {
        msg = JSON.parse(xhr.responseText).error || "";
      }
    } catch (e) { msg = ""; }
    return xhr.status + " " + (msg || xhr.statusText || "request failed");
  }
  function place(elt) {
    return (elt && elt.closest && (elt.closest("form") || elt)) || document.body;
  }
  function clear(at) {
    var next = at.nextElementSibling;
    if (next && next.dataset.testid === "request-error") next.remove();
  }
  function show(elt, text) {
    var at = place(elt);
    clear(at);
    var p = document.createElement("p");
    p.className = "error-msg request-error";
    p.setAttribute("role", "alert");
    p.dataset.testid = "request-error";
    p.textContent = text;
    at.insertAdjacentElement("afterend", p);
  }
  document.addEventListener("htmx:responseError", function (ev) {
    show(ev.detail.elt, message(ev.detail.xhr));
  });
  document.addEventListener("htmx:sendError", function (ev) {
    show(ev.detail.elt, "the server could not be reached: try again");
  });
  document.addEventListener("htmx:afterRequest", function (ev) {
    if (ev.detail.successful) clear(place(ev.detail.elt));
  });
})();
