(function () {
  "use strict";
  // Step through the review's marked moves on the board: each position is drawn by
  // the server (the same board template) and fetched when asked for. Without this
  // script the marked moves are links to the history instead.
  var box = document.getElementById("review-stepper");
  if (!box || !window.fetch || !window.DOMParser) { return; }
  var slot = document.getElementById("review-step-board");
  var status = document.getElementById("review-step-status");
  var prev = box.querySelector("[data-step='-1']");
  var next = box.querySelector("[data-step='1']");
  var count = parseInt(box.dataset.count, 10) || 0;
  var current = 0;
  var asked = 0;
  box.hidden = false;

  function buttons() {
    // aria-disabled rather than disabled: the focus stays on the button at either end.
    prev.setAttribute("aria-disabled", current <= 1 ? "true" : "false");
    next.setAttribute("aria-disabled", current >= count ? "true" : "false");
  }

  function show(number) {
    if (number < 1 || number > count) { return; }
    asked = number;
    var url = box.dataset.url + (box.dataset.url.indexOf("?") < 0 ? "?" : "&") + "move=" + number;
    fetch(url, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        if (asked !== number) { return; }  // a later step was asked for meanwhile
        var step = new DOMParser().parseFromString(html, "text/html").querySelector("[data-testid=review-step]");
        if (!step) { return; }
        slot.replaceChildren(document.adoptNode(step));
        current = number;
        buttons();
        var caption = step.querySelector("[data-testid=review-step-caption]");
        status.textContent = caption ? caption.textContent : "";
      })
      .catch(function () { status.textContent = box.dataset.failed || ""; });
  }

  prev.addEventListener("click", function () { show(current - 1); });
  next.addEventListener("click", function () { show(current + 1); });
  box.addEventListener("keydown", function (event) {
    if (event.target.tagName !== "BUTTON") { return; }
    if (event.key === "ArrowRight") { event.preventDefault(); show(current + 1); }
    if (event.key === "ArrowLeft") { event.preventDefault(); show(current - 1); }
  });
  buttons();
  show(1);
})();
