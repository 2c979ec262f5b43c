// Tabs of fscost's HTML report (html_report.cpp): one flame graph per
// section is shown at a time; a link to a graph (table of contents, tab,
// URL fragment) opens its tab. Without script every graph is shown. The
// graphs' own zoom and search come with each SVG (flamegraph.js).
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function show(panel) {
    var group = panel.closest(".views");
    group.querySelectorAll(".view-panel").forEach(function (p) {
      p.classList.toggle("active", p === panel);
    });
    group.querySelectorAll(".view-tab").forEach(function (t) {
      var on = t.getAttribute("href") === "#" + panel.id;
      t.classList.toggle("active", on);
      t.setAttribute("aria-selected", on ? "true" : "false");
    });
  }

  function panelOf(hash) {
    var el = hash.length > 1 ? document.getElementById(decodeURIComponent(hash.substring(1))) : null;
    return el && el.classList.contains("view-panel") ? el : null;
  }

  document.querySelectorAll(".views").forEach(function (group) {
    var first = group.querySelector(".view-panel");
    if (first) show(first);
  });

  document.addEventListener("click", function (event) {
    var link = event.target.closest ? event.target.closest("a[href^='#']") : null;
    var panel = link ? panelOf(link.getAttribute("href")) : null;
    if (!panel) return;
    show(panel);
    // A tab keeps the page where it is; other links scroll to the graph.
    if (link.classList.contains("view-tab")) {
      event.preventDefault();
      window.history.replaceState(null, "", link.getAttribute("href"));
    }
  });

  function follow() {
    var panel = panelOf(window.location.hash);
    if (!panel) return;
    show(panel);
    panel.scrollIntoView();
  }
  window.addEventListener("hashchange", follow);
  follow();
})();
