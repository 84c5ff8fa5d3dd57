// kerker's own small script: pan and zoom of the maps (wheel, drag, keys + - 0 and arrows).
// Pages work without it; it only makes them smoother.
"use strict";
(function () {
  function setup(box) {
    var svg = box.querySelector("svg");
    if (!svg || !svg.viewBox || !svg.viewBox.baseVal) { return; }
    var base = svg.viewBox.baseVal;
    var home = { x: base.x, y: base.y, w: base.width, h: base.height };
    var view = { x: home.x, y: home.y, w: home.w, h: home.h };
    function apply() {
      svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
      if (view.w < home.w) { box.setAttribute("data-zoomed", ""); } else { box.removeAttribute("data-zoomed"); }
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
  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("[data-panzoom]"), setup);
  });
})();
