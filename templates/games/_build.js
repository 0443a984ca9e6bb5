/* Build by touching the board (included in a nonced script by games/detail.html).
   Choosing a card lights the lots where it can build, in every city; touching
   one (or Tab and Enter) lists only the pieces that may go there, from the
   engine's legal placements the page carries (#build-options). "Build here"
   fills the form's own fields and sends it as usual, with its version and
   idempotency key. Without this script the form works as it is. */
(function () {
  "use strict";
  var form = document.getElementById("place-form");
  var dataNode = document.getElementById("build-options");
  var panel = document.getElementById("build-choices");
  var svg = document.querySelector("[data-testid=board] svg");
  if (!form || !dataNode || !panel || !svg) { return; }
  var options = JSON.parse(dataNode.textContent);
  var texts = panel.dataset;
  var prompt = document.getElementById("build-prompt");
  var pieces = document.getElementById("build-pieces");
  var where = document.getElementById("build-where");
  var list = document.getElementById("build-list");
  var confirm = document.getElementById("build-confirm");
  var lots = Array.prototype.slice.call(svg.querySelectorAll("g.lot"));
  var here = {};
  var spot = null;
  var sent = false;

  lots.forEach(function (g) { g.dataset.label = g.getAttribute("aria-label") || ""; });
  svg.classList.add("js-build");
  form.classList.add("board-build");
  // "Lots with a thick outline..." describes the page without this script.
  document.querySelectorAll(".no-js-only").forEach(function (node) { node.hidden = true; });
  panel.hidden = false;
  prompt.textContent = texts.chooseCard;
  // One build button: "Build here" (shown once a lot is chosen). The form's own
  // button comes back only for a move written out in the notation field.
  var submit = form.querySelector("[data-testid=submit-move]");
  var written = form.querySelector("input[name=notation]");
  function showSubmit() { if (submit) { submit.hidden = !(written && written.value.trim()); } }
  if (written) { written.addEventListener("input", showSubmit); }
  showSubmit();

  function keyOf(g) { return g.getAttribute("data-city") + "-" + g.getAttribute("data-lot"); }

  function clearChoice() {
    spot = null;
    list.textContent = "";
    pieces.hidden = true;
    confirm.hidden = true;
    confirm.disabled = true;
    lots.forEach(function (g) { g.classList.remove("chosen"); });
  }

  function light(cardValue) {
    here = options[cardValue] || {};
    clearChoice();
    lots.forEach(function (g) {
      var ok = Object.prototype.hasOwnProperty.call(here, keyOf(g));
      g.classList.toggle("can-build", ok);
      if (ok) {
        g.setAttribute("tabindex", "0");
        g.setAttribute("role", "button");
        g.setAttribute("aria-label", g.dataset.label + ", " + texts.canBuild);
      } else {
        g.removeAttribute("tabindex");
        g.setAttribute("role", "img");
        g.setAttribute("aria-label", g.dataset.label);
      }
    });
    prompt.textContent = texts.chooseLot;
    prompt.hidden = false;
  }

  function choose(g) {
    var found = here[keyOf(g)];
    if (!found) { return; }
    clearChoice();
    spot = found;
    g.classList.add("chosen");
    prompt.hidden = true;  // the question below says where
    where.textContent = texts.where.replace("{city}", spot.city).replace("{lot}", spot.lot);
    spot.choices.forEach(function (choice, index) {
      var label = document.createElement("label");
      label.className = "choice";
      var input = document.createElement("input");
      input.type = "radio";
      input.name = "build-piece";
      input.value = String(index);
      input.setAttribute("data-testid", "build-piece");
      input.setAttribute("data-size", String(choice.size));
      input.setAttribute("data-colour", choice.colour);
      if (choice.colour) {
        var chip = document.createElement("span");
        chip.className = "chip chip-" + choice.colour;
        label.appendChild(input);
        label.appendChild(chip);
      } else {
        label.appendChild(input);
      }
      label.appendChild(document.createTextNode(" " + choice.label));
      list.appendChild(label);
    });
    pieces.hidden = false;
    confirm.hidden = false;
    var inputs = list.querySelectorAll("input");
    if (inputs.length === 1) { inputs[0].checked = true; }
    confirm.disabled = !list.querySelector("input:checked");
    (inputs.length === 1 ? confirm : inputs[0]).focus();
  }

  function check(name, value) {
    var input = form.querySelector("input[name=" + name + "][value='" + value + "']");
    if (input) { input.checked = true; }
    return Boolean(input);
  }

  form.querySelectorAll("input[name=card]").forEach(function (radio) {
    radio.addEventListener("change", function () { if (radio.checked) { light(radio.value); } });
    if (radio.checked) { light(radio.value); }
  });
  lots.forEach(function (g) {
    g.addEventListener("click", function () { choose(g); });
    g.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        choose(g);
      }
    });
  });
  list.addEventListener("change", function () { confirm.disabled = !list.querySelector("input:checked"); });

  confirm.addEventListener("click", function () {
    var picked = list.querySelector("input:checked");
    if (!spot || !picked || sent) { return; }
    var choice = spot.choices[parseInt(picked.value, 10)];
    var complete = check("size", choice.size) && check("city", spot.city);
    if (choice.colour) { complete = check("colour", choice.colour) && complete; }
    var notation = form.querySelector("input[name=notation]");
    if (notation) {
      var card = form.querySelector("input[name=card]:checked").value;
      // The form's own fields carry the move; the notation stands in only if one was missing.
      notation.value = complete ? "" : "card " + card + " city " + spot.city + " size " + choice.size + (choice.colour ? " " + choice.colour : "");
    }
    list.querySelectorAll("input").forEach(function (input) { input.disabled = true; });  // not sent
    if (form.requestSubmit) { form.requestSubmit(); } else { form.submit(); }
  });

  // A double click sends once (the idempotency key makes sure of it on the server too).
  form.addEventListener("submit", function (event) {
    if (sent) { event.preventDefault(); return; }
    sent = true;
    confirm.disabled = true;
  });
})();
