// kerker's own small script: pan and zoom of the maps (wheel, drag, keys + - 0 and arrows).
// Pages work without it; it only makes them smoother.
"use strict";
(function () {
  // The numbered exit markers of a play map stay at least TOUCH CSS px to touch however far
  // the map is scaled down (a phone shows the whole sheet small): an invisible area around
  // each number, a circle of TOUCH px cut where it would come nearer to a neighbouring
  // marker than to its own (so that a tap always opens the nearest exit).
  var TOUCH = 44;
  var SVGNS = "http://www.w3.org/2000/svg";
  function clipHalf(poly, p, q) {
    // the part of polygon ``poly`` nearer to point p than to point q
    var mx = (p[0] + q[0]) / 2, my = (p[1] + q[1]) / 2, nx = q[0] - p[0], ny = q[1] - p[1];
    function side(v) { return (v[0] - mx) * nx + (v[1] - my) * ny; }
    var out = [];
    for (var i = 0; i < poly.length; i++) {
      var a = poly[i], b = poly[(i + 1) % poly.length], sa = side(a), sb = side(b);
      if (sa <= 0) { out.push(a); }
      if ((sa < 0 && sb > 0) || (sa > 0 && sb < 0)) {
        var t = sa / (sa - sb);
        out.push([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]);
      }
    }
    return out;
  }
  function sizeTargets(svg) {
    var links = svg.querySelectorAll("a.exit");
    if (!links.length) { return; }
    var dot = links[0].querySelector("circle");
    var ctm = dot && dot.getScreenCTM ? dot.getScreenCTM() : null;
    var scale = ctm ? Math.sqrt(ctm.a * ctm.a + ctm.b * ctm.b) : 0;
    if (!scale) { return; }
    var spots = Array.prototype.map.call(links, function (link) {
      var c = link.querySelector("circle");
      return c ? [parseFloat(c.getAttribute("cx")), parseFloat(c.getAttribute("cy")),
                  parseFloat(c.getAttribute("r")) || 0] : null;
    });
    Array.prototype.forEach.call(links, function (link, i) {
      var me = spots[i];
      if (!me) { return; }
      var r = Math.max(me[2], TOUCH / 2 / scale), poly = [];
      for (var k = 0; k < 48; k++) {
        var angle = k * Math.PI / 24;
        poly.push([me[0] + r * Math.cos(angle), me[1] + r * Math.sin(angle)]);
      }
      spots.forEach(function (other, j) {
        if (other && j !== i && Math.hypot(other[0] - me[0], other[1] - me[1]) < 2 * r) {
          poly = clipHalf(poly, me, other);
        }
      });
      var hit = link.querySelector("path.hit");
      if (!hit) {
        hit = document.createElementNS(SVGNS, "path");
        hit.setAttribute("class", "hit");
        hit.setAttribute("fill", "transparent");
        link.insertBefore(hit, link.firstChild);
      }
      hit.setAttribute("d", poly.length ? "M" + poly.map(function (v) {
        return v[0].toFixed(2) + " " + v[1].toFixed(2);
      }).join("L") + "Z" : "");
    });
  }
  window.addEventListener("resize", function () {
    Array.prototype.forEach.call(document.querySelectorAll("[data-panzoom] svg"), sizeTargets);
  });
  function setup(box) {
    var svg = box.querySelector("svg");
    if (!svg || !svg.viewBox || !svg.viewBox.baseVal) { return; }
    // Home is the whole drawing as the renderer wrote it; a kept view (after a step) is
    // clamped into it, since the drawing may have grown meanwhile.
    var home = { x: 0, y: 0, w: parseFloat(svg.getAttribute("width")) || svg.viewBox.baseVal.width,
                 h: parseFloat(svg.getAttribute("height")) || svg.viewBox.baseVal.height };
    var base = svg.viewBox.baseVal;
    var view = { x: base.x, y: base.y, w: Math.min(base.width, home.w), h: 0 };
    view.h = view.w * home.h / home.w;
    function apply() {
      svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
      if (view.w < home.w) { box.setAttribute("data-zoomed", ""); } else { box.removeAttribute("data-zoomed"); }
      sizeTargets(svg);
    }
    function zoom(factor, fx, fy) {
      var w = Math.min(home.w, Math.max(home.w / 12, view.w * factor));
      var h = w * home.h / home.w;
      view.x += (view.w - w) * fx; view.y += (view.h - h) * fy; view.w = w; view.h = h;
      clamp(); apply();
    }
    function clamp() {
      view.x = Math.min(Math.max(view.x, home.x), home.x + home.w - view.w);
      view.y = Math.min(Math.max(view.y, home.y), home.y + home.h - view.h);
    }
    clamp(); apply();
    box.addEventListener("wheel", function (ev) {
      var r = svg.getBoundingClientRect();
      ev.preventDefault();
      zoom(ev.deltaY < 0 ? 0.8 : 1.25, (ev.clientX - r.left) / r.width, (ev.clientY - r.top) / r.height);
    }, { passive: false });
    var drag = null;
    box.addEventListener("pointerdown", function (ev) {
      if (ev.target.closest && ev.target.closest("a, button")) { return; }
      drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y };
      box.setPointerCapture(ev.pointerId);
    });
    box.addEventListener("pointermove", function (ev) {
      if (!drag) { return; }
      var r = svg.getBoundingClientRect();
      view.x = drag.vx - (ev.clientX - drag.x) * view.w / r.width;
      view.y = drag.vy - (ev.clientY - drag.y) * view.h / r.height;
      clamp(); apply();
    });
    box.addEventListener("pointerup", function () { drag = null; });
    box.addEventListener("keydown", function (ev) {
      var step = view.w / 10;
      if (ev.key === "+" || ev.key === "=") { zoom(0.8, 0.5, 0.5); }
      else if (ev.key === "-") { zoom(1.25, 0.5, 0.5); }
      else if (ev.key === "0") { view = { x: home.x, y: home.y, w: home.w, h: home.h }; apply(); }
      else if (ev.key === "ArrowLeft") { view.x -= step; clamp(); apply(); }
      else if (ev.key === "ArrowRight") { view.x += step; clamp(); apply(); }
      else if (ev.key === "ArrowUp") { view.y -= step; clamp(); apply(); }
      else if (ev.key === "ArrowDown") { view.y += step; clamp(); apply(); }
      else { return; }
      ev.preventDefault();
    });
  }
  function setupAll(root, keep) {
    Array.prototype.forEach.call(root.querySelectorAll("[data-panzoom]"), function (box) {
      var svg = box.querySelector("svg");
      if (keep && svg) { svg.setAttribute("viewBox", keep); }
      setup(box);
    });
  }

  // Play pages: a step is sent with fetch and the page part is swapped in place, so the
  // map keeps its pan and zoom; a conflict (409) shows the current state the same way.
  function currentView() {
    var svg = document.querySelector("#play [data-panzoom] svg");
    return svg ? svg.getAttribute("viewBox") : null;
  }
  function swap(html, keepView) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var fresh = doc.getElementById("play");
    var old = document.getElementById("play");
    if (!fresh || !old) { return false; }
    var zoomed = document.querySelector("#play [data-panzoom][data-zoomed]");
    var keep = keepView && zoomed ? currentView() : null;
    var focus = document.activeElement && document.activeElement.closest("form") ? true : false;
    old.replaceWith(fresh);
    var sameLevel = keep && fresh.querySelector("[data-panzoom] svg");
    setupAll(fresh, sameLevel ? keep : null);
    wire(fresh);
    if (focus) {
      var first = fresh.querySelector("ol.exits button, [data-panzoom]");
      if (first) { first.focus(); }
    }
    return true;
  }
  // A refused step (4xx page) shows its one-line message here instead of leaving the page.
  function flash(html) {
    var doc = new DOMParser().parseFromString(html, "text/html");
    var message = doc.querySelector("[role=alert] .message");
    var box = document.querySelector("#play [data-flash]");
    if (!message || !box) { return false; }
    box.textContent = message.textContent;
    box.hidden = false;
    box.scrollIntoView({ block: "nearest" });
    return true;
  }
  function send(form) {
    var body = new URLSearchParams(new FormData(form));
    fetch(form.action, { method: "POST", body: body, credentials: "same-origin",
                         headers: { "Accept": "text/html" } })
      .then(function (r) { return r.text().then(function (t) { return { ok: r.ok || r.status === 409, text: t }; }); })
      .then(function (res) { if (!swap(res.text, true) && !flash(res.text)) { form.submit(); } })
      .catch(function () { form.submit(); });
  }
  function wire(root) {
    Array.prototype.forEach.call(root.querySelectorAll("form.act"), function (form) {
      form.addEventListener("submit", function (ev) { ev.preventDefault(); send(form); });
    });
    Array.prototype.forEach.call(root.querySelectorAll("a.exit"), function (link) {
      link.addEventListener("click", function (ev) {
        var target = root.querySelector(link.getAttribute("href") + " form");
        if (!target) { return; }
        ev.preventDefault();
        send(target);
      });
    });
  }
  function watch() {
    var root = document.getElementById("play");
    if (!root || !root.getAttribute("data-watch") || !window.EventSource) { return; }
    var url = root.getAttribute("data-watch");
    var stream = new EventSource(url + "/events");
    stream.addEventListener("changed", function () {
      fetch(window.location.href, { credentials: "same-origin" })
        .then(function (r) { return r.text(); })
        .then(function (t) { swap(t, true); });
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    setupAll(document, null);
    wire(document);
    watch();
  });
})();
