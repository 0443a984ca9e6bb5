(function () {
  "use strict";
  // The game page, live: the game's event stream says something happened, and
  // the page fetches itself and swaps its content, so everything on it is
  // drawn by the same template as a reload. Presence: while the page is open
  // and visible it says so every minute, and no turn email is sent meanwhile.
  var me = document.currentScript;
  if (!me || !window.fetch) { return; }
  var data = me.dataset;
  var nonce = me.nonce;
  var version = parseInt(data.version, 10) || 0;
  var myTurn = data.myTurn === "true";
  var baseTitle = document.title.replace(/^\(.*?\) /, "");

  function icon(mine) {
    // A tower: red when it is your turn, grey otherwise (an SVG, written URL-encoded).
    var colour = mine ? "%23d33" : "%23888";
    var link = document.querySelector("link[rel~=icon]");
    if (!link) { link = document.createElement("link"); link.rel = "icon"; document.head.appendChild(link); }
    link.href = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 16 16'%3E" +
      "%3Crect x='3' y='2' width='10' height='13' fill='" + colour + "'/%3E%3C/svg%3E";
    link.dataset.yourTurn = mine ? "true" : "false";
  }

  function showTurn() {
    document.title = myTurn ? "(" + data.yourTurn + ") " + baseTitle : baseTitle;
    icon(myTurn);
  }

  // Scripts of the swapped content run again (with this page's nonce), since
  // the elements they worked on are new. Listed before the content is moved
  // out of the fetched document (the table talk's script is inside it).
  function scriptsOf(doc) {
    return Array.prototype.slice.call(doc.querySelectorAll("script[nonce]:not([data-live])"));
  }
  function rerunScripts(scripts) {
    scripts.forEach(function (old) {
      var script = document.createElement("script");
      script.nonce = nonce;
      script.textContent = old.textContent;
      document.body.appendChild(script);
      script.remove();
    });
  }

  // What the reader is in the middle of: a half-typed text (table talk, a
  // written move, numbers of a selection) and where the caret was. The swap
  // must not take it from under their fingers: it is carried into the new
  // content, field by field (the same form and the same id).
  var TYPED = "textarea[id], input[id][type=text], input[id][type=number], input[id][type=search]";
  function fieldKey(field) { return (field.form ? field.form.id : "") + "#" + field.id; }
  function keepDrafts(main) {
    var drafts = {};
    main.querySelectorAll(TYPED).forEach(function (field) {
      if (field.value !== field.defaultValue) { drafts[fieldKey(field)] = field.value; }
    });
    var active = document.activeElement;
    var focus = null;
    if (active && active.id && main.contains(active)) {
      focus = { key: fieldKey(active), id: active.id, start: null, end: null, direction: null, scroll: active.scrollTop };
      try {
        focus.start = active.selectionStart;
        focus.end = active.selectionEnd;
        focus.direction = active.selectionDirection;
      } catch (error) { /* a field without a caret (a number): focus alone */ }
    }
    // A building half chosen by touching (a card, a lot, a piece): chosen again
    // on the new content if the position is the same (table talk came in).
    var card = main.querySelector("#place-form input[name=card]:checked");
    var lot = main.querySelector("[data-testid=board] g.lot.chosen");
    var piece = main.querySelector("#build-list input:checked");
    var build = {
      card: card ? card.id : null,
      lot: lot ? [lot.getAttribute("data-city"), lot.getAttribute("data-lot")] : null,
      piece: piece ? piece.value : null,
    };
    return { drafts: drafts, focus: focus, build: build };
  }
  function putBuild(kept) {
    var radio = kept.build.card && document.getElementById(kept.build.card);
    if (!radio || radio.name !== "card") { return; }
    radio.checked = true;
    radio.dispatchEvent(new Event("change", { bubbles: true }));  // the build script lights the lots
    if (!kept.build.lot) { return; }
    var lot = document.querySelector("[data-testid=board] g.lot.can-build[data-city='" + kept.build.lot[0] +
      "'][data-lot='" + kept.build.lot[1] + "']");
    if (!lot) { return; }
    lot.dispatchEvent(new MouseEvent("click", { bubbles: true }));  // and lists its pieces
    var piece = kept.build.piece !== null && document.querySelector("#build-list input[value='" + kept.build.piece + "']");
    if (piece && !piece.checked) {
      piece.checked = true;
      piece.dispatchEvent(new Event("change", { bubbles: true }));
    }
  }
  function putDrafts(fresh, kept) {
    fresh.querySelectorAll(TYPED).forEach(function (field) {
      var value = kept.drafts[fieldKey(field)];
      if (value !== undefined) { field.value = value; }
    });
  }
  function putFocus(kept) {
    if (!kept.focus) { return; }
    var field = document.getElementById(kept.focus.id);
    if (!field || fieldKey(field) !== kept.focus.key) { return; }
    field.focus({ preventScroll: true });
    if (kept.focus.start !== null && field.setSelectionRange) {
      try { field.setSelectionRange(kept.focus.start, kept.focus.end, kept.focus.direction || "none"); } catch (error) { /* no caret here */ }
    }
    field.scrollTop = kept.focus.scroll;
  }

  // A move's refresh swaps the page only for a newer version: events that
  // come close together end in one swap, not a second one of the same version
  // under the player's fingers (a card and a lot chosen). Table talk and the
  // review change the page without a new version: theirs always swap.
  var fetching = false;
  var again = false;
  var againAlways = false;
  function refresh(always) {
    if (fetching) { again = true; againAlways = againAlways || Boolean(always); return; }
    fetching = true;
    fetch(data.page, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (response) { return response.ok ? response.text() : Promise.reject(response.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("main");
        var live = doc.getElementById("live-script");
        var main = document.querySelector("main");
        if (!fresh || !live || !main) { return; }
        var fetched = parseInt(live.dataset.version, 10) || 0;
        if (!always && fetched <= version) { return; }  // nothing new: leave the page alone
        var scripts = scriptsOf(doc);
        var kept = keepDrafts(main);
        fresh = document.adoptNode(fresh);
        putDrafts(fresh, kept);
        main.replaceWith(fresh);
        var samePosition = fetched === version;
        version = fetched || version;
        me.dataset.version = String(version);
        myTurn = live.dataset.myTurn === "true";
        baseTitle = doc.title;
        showTurn();
        rerunScripts(scripts);
        if (samePosition) { putBuild(kept); }
        putFocus(kept);  // last: choosing the lot again moved the focus to its pieces
        document.dispatchEvent(new CustomEvent("game:updated", { detail: { version: version } }));
      })
      .catch(function () { /* the next event or a reload will try again */ })
      .then(function () {
        fetching = false;
        if (again) { var both = againAlways; again = againAlways = false; refresh(both); }
      });
  }

  showTurn();
  // A page that asks now and then (a spectator's, where the stream is not open
  // to them): only a newer version is swapped in.
  var polling = null;
  function poll() {
    var seconds = parseInt(data.poll, 10);
    if (polling || !seconds || data.history === "true") { return; }
    polling = setInterval(function () {
      if (document.visibilityState === "visible") { refresh(); }
    }, seconds * 1000);
  }
  // No stream URL when the page was served by WSGI (no streams there): reload to see.
  if (window.EventSource && data.stream && data.history !== "true") {
    var source = new EventSource(data.stream + (data.stream.indexOf("?") < 0 ? "?" : "&") + "after=" + version);
    source.onmessage = function (event) {
      if ((parseInt(event.lastEventId, 10) || 0) > version) { refresh(); }
    };
    source.addEventListener("talk", function () { refresh(true); });  // a message at the table
    // The finished game's review is ready: a page still saying it is being made shows it.
    source.addEventListener("review_ready", function () {
      if (document.querySelector("[data-testid=review-pending]")) { refresh(true); }
    });
    // Refused (not signed in, say): the browser gives up on it; ask now and then instead.
    source.onerror = function () { if (source.readyState === EventSource.CLOSED) { poll(); } };
  } else {
    poll();
  }

  if (data.presence) {
    // This page load's own id: its "I left" removes only its own presence, so a
    // reload's late goodbye cannot remove the new page's "I'm here".
    // A move or a message sent from this page leads to the same table's next
    // page, in this tab: the id is handed over to it (sessionStorage is the
    // tab's own) and no goodbye is said, so the player never leaves the table
    // between the two pages — a turn that comes back to them at once (their own
    // move ended the round) brings no email.
    var handover = "presence-page:" + data.presence;
    var pageId = null;
    try { pageId = sessionStorage.getItem(handover); sessionStorage.removeItem(handover); } catch (error) { /* none */ }
    if (!pageId) {
      pageId = (window.crypto && crypto.randomUUID) ? crypto.randomUUID()
        : Date.now().toString(36) + "-" + Math.random().toString(36).slice(2);
    }
    me.dataset.presencePage = pageId;
    var handingOver = false;
    document.addEventListener("submit", function (event) {
      var form = event.target;
      if (event.defaultPrevented || !form || (form.method || "").toLowerCase() !== "post") { return; }
      try { sessionStorage.setItem(handover, pageId); handingOver = true; } catch (error) { return; }
      // Should the next page never come (the network failed), this page says goodbye again as before.
      setTimeout(function () { handingOver = false; }, 15000);
    });
    var beat = function (state) {
      if (state === "hidden" && handingOver) { return; }
      var body = new URLSearchParams({ state: state, page: pageId });
      fetch(data.presence, {
        method: "POST", credentials: "same-origin", keepalive: true, body: body,
        headers: { "X-CSRFToken": data.csrf },
      }).catch(function () {});
    };
    var visible = function () { return document.visibilityState === "visible"; };
    if (visible()) { beat("visible"); }
    setInterval(function () { if (visible()) { beat("visible"); } }, 60000);
    document.addEventListener("visibilitychange", function () { beat(visible() ? "visible" : "hidden"); });
    window.addEventListener("pagehide", function () { beat("hidden"); });
  }
})();
