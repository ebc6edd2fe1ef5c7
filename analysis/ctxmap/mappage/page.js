// The map's only script: the details panel follows the pointer (or the
// keyboard focus), the pieces of one bin light up together, and a click
// asks an editor that hosts the page to reveal the line (a VS Code
// webview's postMessage, or a sessionlsReveal function another host
// defines); a plain browser follows the link. In a VS Code webview the
// scroll position is kept in the webview's state, so that the page the
// editor puts in its place after an edit opens where the reader was.
(function () {
  "use strict";
  var strip = document.getElementById("strip");
  var info = document.getElementById("info");
  if (!strip || !info) return;
  var idle = info.textContent;
  var lit = [];
  function unlight() {
    for (var i = 0; i < lit.length; i++) lit[i].classList.remove("hl");
    lit = [];
  }
  function show(a) {
    unlight();
    if (!a) { info.textContent = idle; return; }
    info.textContent = a.getAttribute("data-info") || a.title;
    lit = Array.prototype.slice.call(strip.querySelectorAll('a[data-bin="' + a.getAttribute("data-bin") + '"]'));
    for (var i = 0; i < lit.length; i++) lit[i].classList.add("hl");
  }
  function piece(e) {
    var t = e.target;
    return t && t.closest ? t.closest("a[data-bin]") : null;
  }
  strip.addEventListener("mouseover", function (e) { show(piece(e)); });
  strip.addEventListener("focusin", function (e) { show(piece(e)); });
  strip.addEventListener("mouseleave", function () { show(null); });
  var vscode = typeof acquireVsCodeApi === "function" ? acquireVsCodeApi() : null;
  if (vscode) {
    // The editor replaces the page after every edit: keep the reader's place.
    var state = vscode.getState();
    if (state && typeof state.scrollY === "number") window.scrollTo(0, state.scrollY);
    var saving = false;
    window.addEventListener("scroll", function () {
      if (saving) return;
      saving = true;
      window.requestAnimationFrame(function () {
        saving = false;
        vscode.setState({ scrollY: window.scrollY });
      });
    });
  }
  document.addEventListener("click", function (e) {
    var a = e.target && e.target.closest ? e.target.closest("a[data-line]") : null;
    if (!a) return;
    var line = parseInt(a.getAttribute("data-line"), 10);
    if (vscode) {
      e.preventDefault();
      vscode.postMessage({ command: "reveal", line: line });
    } else if (typeof window.sessionlsReveal === "function") {
      e.preventDefault();
      window.sessionlsReveal(line);
    }
  });
})();
