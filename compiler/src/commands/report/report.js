// pcc profile report: path highlighting, "show more", and a self-check that the browser test reads
// from the DOM (compiler/src/commands/report/html.rs includes it, after replacing __PER_CLICK__ and
// __MIN_SCALE__).
"use strict";
function ids(row, name) {
  var v = row.getAttribute("data-" + name);
  return v ? v.split(" ").filter(function (s) { return s !== ""; }) : [];
}
function choose(row) {
  var section = row.closest("section.function");
  section.querySelectorAll(".on").forEach(function (e) { e.classList.remove("on"); });
  row.classList.add("on");
  ids(row, "lines").forEach(function (n) {
    section.querySelectorAll('.src tr[data-line="' + n + '"]').forEach(function (e) { e.classList.add("on"); });
  });
  ids(row, "blocks").forEach(function (b) {
    section.querySelectorAll('.block[data-b="' + b + '"]').forEach(function (e) { e.classList.add("on"); });
  });
  ids(row, "edges").forEach(function (e) {
    section.querySelectorAll('path.edge[data-e~="' + e + '"]').forEach(function (p) { p.classList.add("on"); });
  });
  ids(row, "dummies").forEach(function (d) {
    section.querySelectorAll('path.edge[data-d="' + d + '"]').forEach(function (p) { p.classList.add("on"); });
  });
  var svg = section.querySelector("svg.cfg");
  if (svg) { svg.classList.add("dim"); }
}
document.querySelectorAll("tr.path").forEach(function (row) {
  row.addEventListener("click", function () { choose(row); });
  row.addEventListener("keydown", function (ev) { if (ev.key === "Enter") { choose(row); } });
});
document.querySelectorAll("button.more").forEach(function (button) {
  button.addEventListener("click", function () {
    var hidden = button.parentElement.querySelectorAll("tr.hidden");
    for (var i = 0; i < Math.min(hidden.length, __PER_CLICK__); i++) { hidden[i].classList.remove("hidden"); }
    var left = hidden.length - Math.min(hidden.length, __PER_CLICK__);
    if (left === 0) { button.remove(); }
    else if (left <= __PER_CLICK__) { button.textContent = "show " + left + " more"; }
    else { button.textContent = "show __PER_CLICK__ more (" + left + " hidden)"; }
  });
});
// A CFG wider than its column is shrunk to fit, but to no less than __MIN_SCALE__ of its size (its text
// stays readable), and scrolled to show its entry block.
function fit(box) {
  var svg = box.querySelector("svg");
  if (!svg || box.clientWidth === 0 || svg.hasAttribute("data-fitted")) { return; }
  svg.setAttribute("data-fitted", "");
  var w = svg.width.baseVal.value, h = svg.height.baseVal.value;
  var scale = Math.max(Math.min(1, box.clientWidth / w), __MIN_SCALE__);
  svg.setAttribute("data-scale", scale);
  svg.setAttribute("width", w * scale);
  svg.setAttribute("height", h * scale);
  var entry = svg.querySelector('.block[data-b="0"] rect');
  if (entry) {
    var vb = svg.viewBox.baseVal;
    box.scrollLeft = (entry.x.baseVal.value - vb.x) * scale - box.clientWidth / 3;
  }
}
document.querySelectorAll("details.cfg").forEach(function (details) {
  var box = details.querySelector(".svgbox");
  if (box) {
    fit(box);
    details.addEventListener("toggle", function () { fit(box); });
  }
});
// Choose each function's hottest path, and check that choosing highlights what it should and
// that no text of a drawn CFG falls outside its drawing.
(function selfCheck() {
  var problems = [];
  document.querySelectorAll("svg.cfg").forEach(function (svg) {
    if (svg.getBoundingClientRect().width === 0) { return; }
    var vb = svg.viewBox.baseVal;
    var section = svg.closest("section");
    if (svg.getAttribute("data-scale") < __MIN_SCALE__ && section.clientWidth >= vb.width * __MIN_SCALE__) {
      problems.push(section.id + ": its CFG shrunk to " + svg.getAttribute("data-scale") + " of its size");
    }
    svg.querySelectorAll("text").forEach(function (text) {
      var b = text.getBBox();
      if (b.x < vb.x || b.y < vb.y || b.x + b.width > vb.x + vb.width || b.y + b.height > vb.y + vb.height) {
        problems.push(section.id + ": '" + text.textContent + "' outside its CFG");
      }
    });
  });
  // [BL96]: the increments along a path sum to its id. Each drawn edge has its increment in
  // `data-val` (one per edge of `data-e`; "-" for a back edge, whose dummies carry it).
  document.querySelectorAll("section.function").forEach(function (section) {
    var svg = section.querySelector("svg.cfg");
    if (!svg || !svg.querySelector("path[data-val]")) { return; }
    var drawnDummies = svg.querySelector("path.dummy") !== null;
    section.querySelectorAll("tr.path[data-id]").forEach(function (row) {
      if (!drawnDummies && ids(row, "dummies").length > 0) { return; }
      var sum = BigInt(0);
      ids(row, "edges").forEach(function (e) {
        var arrow = svg.querySelector('path.edge[data-e~="' + e + '"]');
        var val = arrow ? ids(arrow, "val")[ids(arrow, "e").indexOf(e)] : undefined;
        if (val !== undefined && val !== "-") { sum += BigInt(val); }
      });
      ids(row, "dummies").forEach(function (d) {
        var arrow = svg.querySelector('path.edge[data-d="' + d + '"]');
        if (arrow) { sum += BigInt(arrow.getAttribute("data-val")); }
      });
      if (sum.toString() !== row.getAttribute("data-id")) {
        problems.push(section.id + ": path " + row.getAttribute("data-id") + "'s increments sum to " + sum);
      }
    });
  });
  document.querySelectorAll("section.function").forEach(function (section) {
    var row = section.querySelector("tr.path");
    if (!row) { return; }
    choose(row);
    var want = ids(row, "lines").length > 0 ? 1 : 0;
    if (section.querySelectorAll(".src tr.on").length < want) { problems.push(section.id + ": no line highlighted"); }
    var edges = ids(row, "edges").length;
    if (section.querySelector("svg.cfg") && edges > 0 && section.querySelectorAll("path.edge.on").length < 1) {
      problems.push(section.id + ": no edge highlighted");
    }
  });
  document.body.setAttribute("data-selfcheck", problems.length === 0 ? "ok" : problems.join("; "));
})();
