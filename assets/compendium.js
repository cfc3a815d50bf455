/* The book's own small script (no network, no library): runs once the page has loaded.
   - A table that still scrolls sideways gets the class compendium-scrolls (its "scrolls sideways" cue shows).
   - Each figure of a chapter is wrapped in a link to the image itself: a click shows it at full size. */
(function () {
  function mark() {
    document.querySelectorAll(".compendium-table").forEach(function (box) {
      box.classList.toggle("compendium-scrolls", box.scrollWidth > box.clientWidth + 2);
    });
  }
  function enlarge() {
    document.querySelectorAll(".cell_output img").forEach(function (img) {
      if (img.closest("a")) { return; }
      var link = document.createElement("a");
      link.href = img.getAttribute("src");
      link.className = "compendium-enlarge";
      link.title = "Open the figure at full size";
      img.parentNode.insertBefore(link, img);
      link.appendChild(img);
    });
  }
  function run() { enlarge(); mark(); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", run); } else { run(); }
  window.addEventListener("resize", mark);
  window.addEventListener("load", mark);
})();
/* A figure drawn wider than the text column takes the margin at laptop width (as a wide table does), so that
   its labels keep their size; on a phone the link to the full-size image stays the way to read it. */
(function () {
  function widen() {
    document.querySelectorAll(".cell_output img").forEach(function (img) {
      var column = img.closest(".cell_output");
      if (!column || !img.naturalWidth) { return; }
      var output = img.closest(".output") || img.parentNode;
      output.classList.toggle("compendium-wide-figure", img.naturalWidth > 1.15 * column.clientWidth);
    });
  }
  window.addEventListener("load", widen);
})();
