// The workshop pages work with plain form posts; this script makes them
// smoother: submit buttons wait for what their form requires, the next
// follow-up question is asked as soon as its page opens, busy buttons say
// so, join links copy with one click, and draft rubric items move between
// groups by drag and drop.
(function () {
  "use strict";

  var csrf = (document.querySelector('meta[name="csrf-token"]') || {}).content || "";

  // filled reports whether every required field of form has a value: a
  // choice in each radio group, text that is not only white space.
  function filled(form) {
    var fields = form.querySelectorAll("[required]");
    for (var i = 0; i < fields.length; i++) {
      var f = fields[i];
      if (f.type === "radio") {
        if (!form.querySelector('input[type="radio"][name="' + f.name + '"]:checked')) return false;
      } else if (!f.value.trim()) {
        return false;
      }
    }
    return true;
  }

  document.querySelectorAll("form[data-require]").forEach(function (form) {
    var button = form.querySelector('button[type="submit"]');
    var update = function () { button.disabled = !filled(form); };
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    update();
  });

  // A form that comes back to this page keeps the place it was sent from:
  // the scroll position is put back when the page opens again.
  var here = location.pathname + location.search;
  try {
    var kept = JSON.parse(sessionStorage.getItem("hone-scroll") || "null");
    sessionStorage.removeItem("hone-scroll");
    if (kept && kept.at === here && !location.hash) {
      window.scrollTo(0, kept.y);
    }
  } catch (err) { /* no storage: the page opens at the top */ }

  // A form being sent disables its button, which says what is happening.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (form.dataset.sending) {
      e.preventDefault();
      return;
    }
    form.dataset.sending = "1";
    var back = form.querySelector('input[name="back"]');
    if (back && back.value === here) {
      try {
        sessionStorage.setItem("hone-scroll", JSON.stringify({ at: here, y: window.scrollY }));
      } catch (err) { /* no storage */ }
    }
    var button = form.querySelector('button[type="submit"]');
    if (button && button.dataset.busy) {
      button.textContent = button.dataset.busy;
      button.classList.add("busy");
    }
    var generating = form.querySelector(".generating");
    if (generating) generating.hidden = false;
  });

  var auto = document.querySelector("form[data-autosubmit]");
  if (auto) {
    window.setTimeout(function () { auto.requestSubmit(); }, 0);
  }

  document.querySelectorAll("form[data-autonavigate] select").forEach(function (select) {
    select.addEventListener("change", function () { select.form.requestSubmit(); });
  });

  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    button.addEventListener("click", function () {
      var input = document.querySelector(button.dataset.copy);
      input.select();
      var done = function () { button.textContent = "Copied"; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(input.value).then(done, function () { document.execCommand("copy"); done(); });
      } else {
        document.execCommand("copy");
        done();
      }
    });
  });

  // A reviewer's keyboard: g and b choose Good or Bad, Ctrl+Enter submits,
  // n and p go to the next and previous trace, ? lists them.
  var step = document.getElementById("step");
  var shortcuts = document.getElementById("shortcuts");
  if (step && shortcuts) {
    var toggleHelp = function (show) {
      shortcuts.hidden = show === undefined ? !shortcuts.hidden : !show;
    };
    var shortcutsButton = document.getElementById("shortcuts-button");
    if (shortcutsButton) shortcutsButton.addEventListener("click", function () { toggleHelp(); });
    var labelForm = function () {
      var form = document.getElementById("feedback-form");
      if (form) return form;
      var change = document.getElementById("change-feedback");
      return change && change.open ? document.getElementById("change-feedback-form") : null;
    };
    var go = function (ids) {
      for (var i = 0; i < ids.length; i++) {
        var link = document.getElementById(ids[i]);
        if (link) {
          location.href = link.href;
          return true;
        }
      }
      return false;
    };
    document.addEventListener("keydown", function (e) {
      var t = e.target || document.body;
      if ((e.ctrlKey || e.metaKey) && e.key === "Enter") {
        var form = (t.closest && t.closest("#step form")) || step.querySelector("#feedback-form, #answer-form");
        var button = form && form.querySelector('button[type="submit"]');
        if (button && !button.disabled) {
          e.preventDefault();
          form.requestSubmit(button);
        }
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      var typing = t.isContentEditable || t.tagName === "TEXTAREA" || t.tagName === "SELECT" ||
        (t.tagName === "INPUT" && t.type !== "radio" && t.type !== "checkbox");
      if (typing) {
        if (e.key === "Escape") t.blur();
        return;
      }
      var handled = true;
      switch (e.key) {
        case "g":
        case "b":
          var lf = labelForm();
          var radio = lf && lf.querySelector('input[name="feedback_label"][value="' + (e.key === "g" ? "good" : "bad") + '"]');
          if (radio) {
            radio.click();
            var comment = lf.querySelector("textarea");
            if (comment) comment.focus();
          } else {
            handled = false;
          }
          break;
        case "n":
          handled = go(["next-trace", "following-trace"]);
          break;
        case "p":
          handled = go(["prev-trace"]);
          break;
        case "?":
          toggleHelp();
          break;
        case "Escape":
          toggleHelp(false);
          break;
        default:
          handled = false;
      }
      if (handled) e.preventDefault();
    });
  }

  if (typeof Sortable === "undefined") return;

  // Draft rubric panel: dropping an item in a group moves it there at once.
  var panel = document.getElementById("rubric-panel");
  if (panel && panel.querySelector("form.add-item")) {
    var workshop = panel.dataset.workshop;
    panel.querySelectorAll("ul.rubric-items").forEach(function (list) {
      Sortable.create(list, {
        group: "rubric", animation: 120, forceFallback: true, fallbackTolerance: 3, filter: "details, a, input, textarea, select, button", preventOnFilter: false,
        onAdd: function (e) {
          var body = new URLSearchParams();
          body.set("csrf", csrf);
          body.set("move", "1");
          body.set("back", location.pathname + location.search);
          var group = e.to.dataset.groupId;
          body.set("group_id", group);
          if (group === "+new") {
            var name = document.getElementById("new-group-name");
            body.set("new_group", (name && name.value.trim()) || "New group");
          }
          panel.classList.add("saving");
          fetch("/w/" + workshop + "/rubric/" + encodeURIComponent(e.item.dataset.itemId), {
            method: "POST", body: body, headers: { "X-CSRF-Token": csrf }, credentials: "same-origin"
          }).then(function () { location.reload(); }, function () { location.reload(); });
        }
      });
    });
  }

  // Proposal review: dragging an item to a group picks that group in the
  // item's select, and picking a group moves the item there.
  var proposal = document.getElementById("proposal");
  if (proposal) {
    var lists = proposal.querySelectorAll("ul.proposed-items");
    lists.forEach(function (list) {
      Sortable.create(list, {
        group: "proposal", animation: 120, forceFallback: true, fallbackTolerance: 3, filter: "select, option, label", preventOnFilter: false,
        onAdd: function (e) {
          e.item.querySelector("select.item-group").value = e.to.dataset.index;
        }
      });
    });
    proposal.querySelectorAll("select.item-group").forEach(function (select) {
      select.addEventListener("change", function () {
        var to = proposal.querySelector('ul.proposed-items[data-index="' + select.value + '"]');
        if (to) to.appendChild(select.closest("li"));
      });
    });
  }
})();
