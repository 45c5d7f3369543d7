// Keyboard review on /review: j/k move between alarm groups, c confirms
// the focused group, d moves to its reason field (Enter then dismisses, as
// Dismiss is the form's first button).
(function () {
  "use strict";
  function groups() { return Array.from(document.querySelectorAll(".review-group")); }
  function focused() { return document.querySelector(".review-group.focused") || groups()[0]; }
  function move(step) {
    var gs = groups(), cur = focused(), i = gs.indexOf(cur) + step;
    if (!cur || i < 0 || i >= gs.length) return;
    cur.classList.remove("focused");
    gs[i].classList.add("focused");
    gs[i].focus();
    gs[i].scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) {
      return; // typing; Enter presses the form's first button, Dismiss
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    var g = focused();
    switch (e.key) {
      case "j": move(1); break;
      case "k": move(-1); break;
      case "c": if (g) g.querySelector('button[value="confirm"]').click(); break;
      case "d": if (g) { e.preventDefault(); g.querySelector('input[data-key="d"]').focus(); } break;
    }
  });
})();
