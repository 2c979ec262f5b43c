// Zoom, search and details for fscost flame graphs; analysis/flame_svg.cpp
// writes the markup this reads. Embedded into every SVG at build time (no
// network, no other file). All state is per <svg>, found from this script
// element, so several graphs can be inlined into one HTML page.
(function () {
  "use strict";
  var script = document.currentScript;
  var svg = script && script.closest ? script.closest("svg") : document.documentElement;
  var framesG = svg && svg.querySelector(".fg-frames");
  if (!framesG) return;
  var NS = "http://www.w3.org/2000/svg";
  var MATCH_FILL = "rgb(230,0,230)";
  var EPS = 0.005;  // rect x and width carry 3 decimals
  var details = svg.querySelector(".fg-details");
  var matchedLine = svg.querySelector(".fg-matched");
  var unzoomButton = svg.querySelector(".fg-unzoom");
  var searchButton = svg.querySelector(".fg-search");
  var icButton = svg.querySelector(".fg-ic");
  var icicle = framesG.getAttribute("data-icicle") === "1";
  var pad = +framesG.getAttribute("data-pad");
  var glyph = +framesG.getAttribute("data-font") * +framesG.getAttribute("data-glyph");
  var fullWidth = +svg.getAttribute("width") - 2 * pad;
  var frames = [];  // pre-order: frames[0] is "all"
  var byGroup = new WeakMap();
  var searchTerm = null;
  var ignoreCase = false;

  // The tooltip is "NAME (figures)"; the figures never contain " (".
  function nameOf(title) {
    var cut = title.lastIndexOf(" (");
    return cut < 0 ? title : title.substring(0, cut);
  }

  Array.prototype.forEach.call(framesG.children, function (g) {
    var rect = g.querySelector("rect");
    var title = g.querySelector("title").textContent;
    var f = {
      g: g, rect: rect, text: g.querySelector("text"), title: title, name: nameOf(title),
      x: +rect.getAttribute("x"), w: +rect.getAttribute("width"), y: +rect.getAttribute("y"),
      fill: rect.getAttribute("fill")
    };
    byGroup.set(g, f);
    frames.push(f);
  });

  function frameOf(event) {
    var g = event.target.closest ? event.target.closest("g") : null;
    return g ? byGroup.get(g) : undefined;
  }

  // Same rule as fit_label() in flame_svg.cpp.
  function label(name, w) {
    var fit = Math.floor((w - 6) / glyph);
    if (fit < 3) return "";
    return name.length <= fit ? name : name.substring(0, fit - 2) + "..";
  }

  function draw(f, x, w) {
    f.rect.setAttribute("x", x.toFixed(3));
    f.rect.setAttribute("width", w.toFixed(3));
    var s = label(f.name, w);
    if (!f.text) {
      if (!s) return;
      f.text = document.createElementNS(NS, "text");
      f.text.setAttribute("y", f.y + 11.5);
      f.g.appendChild(f.text);
    }
    f.text.setAttribute("x", (x + 3).toFixed(2));
    f.text.textContent = s;
  }

  // `z` fills the width; its ancestors span it, faded; the rest hides.
  function zoom(z) {
    var scale = fullWidth / z.w;
    frames.forEach(function (f) {
      var cls = f.g.classList;
      var ancestorRow = icicle ? f.y < z.y : f.y > z.y;
      if (ancestorRow) {
        var covers = f.x <= z.x + EPS && f.x + f.w >= z.x + z.w - EPS;
        cls.toggle("fg-hide", !covers);
        cls.toggle("fg-parent", covers);
        if (covers) draw(f, pad, fullWidth);
      } else if (f.x >= z.x - EPS && f.x + f.w <= z.x + z.w + EPS) {
        cls.remove("fg-hide", "fg-parent");
        draw(f, pad + (f.x - z.x) * scale, f.w * scale);
      } else {
        cls.add("fg-hide");
        cls.remove("fg-parent");
      }
    });
    unzoomButton.classList.remove("fg-hide");
  }

  function unzoom() {
    frames.forEach(function (f) {
      f.g.classList.remove("fg-hide", "fg-parent");
      draw(f, f.x, f.w);
    });
    unzoomButton.classList.add("fg-hide");
  }

  // Highlights frames whose name matches and states their share of the
  // total: the union of their ranges, so a match above a match counts once.
  function search(term) {
    var re = null;
    if (term !== null) {
      try {
        re = new RegExp(term, ignoreCase ? "i" : "");
      } catch (err) {
        matchedLine.textContent = "Invalid regex: " + err.message;
        return;
      }
    }
    searchTerm = term;
    var hits = [];
    frames.forEach(function (f) {
      var hit = re !== null && re.test(f.name);
      f.rect.setAttribute("fill", hit ? MATCH_FILL : f.fill);
      if (hit) hits.push(f);
    });
    searchButton.textContent = re === null ? "Search" : "Reset Search";
    if (re === null) {
      matchedLine.textContent = " ";
      return;
    }
    hits.sort(function (a, b) { return a.x - b.x; });
    var covered = 0;
    var end = -Infinity;
    hits.forEach(function (f) {
      var start = Math.max(f.x, end);
      if (f.x + f.w > start) {
        covered += f.x + f.w - start;
        end = f.x + f.w;
      }
    });
    var total = frames.length > 0 ? frames[0].w : 0;
    var share = total > 0 ? (100 * covered / total).toFixed(1) : "0.0";
    matchedLine.textContent = "Matched: " + share + "%";
  }

  function askSearch() {
    if (searchTerm !== null) {
      search(null);
      return;
    }
    var term = window.prompt("Search for (regular expression)", "");
    if (term) search(term);
  }

  framesG.addEventListener("click", function (event) {
    var f = frameOf(event);
    if (!f) return;
    if (f === frames[0]) unzoom();
    else zoom(f);
  });
  framesG.addEventListener("mouseover", function (event) {
    var f = frameOf(event);
    if (f) details.textContent = f.title;
  });
  framesG.addEventListener("mouseout", function () {
    details.textContent = " ";
  });
  unzoomButton.addEventListener("click", unzoom);
  searchButton.addEventListener("click", askSearch);
  icButton.addEventListener("click", function () {
    ignoreCase = !ignoreCase;
    icButton.classList.toggle("fg-on", ignoreCase);
    if (searchTerm !== null) search(searchTerm);
  });
  // Keys only for a standalone SVG; in a page they belong to the page.
  if (svg === document.documentElement) {
    window.addEventListener("keydown", function (event) {
      if (event.key === "F3" || ((event.ctrlKey || event.metaKey) && event.key === "f")) {
        event.preventDefault();
        askSearch();
      } else if (event.key === "Escape") {
        search(null);
        unzoom();
      }
    });
  }
})();
