// chat.js drives the page at /chat: it posts each message with the page's
// CSRF token and shows the reply, which the server renders as safe HTML.
"use strict";

(function () {
  const promptSelect = document.getElementById("prompt");
  if (promptSelect) {
    promptSelect.addEventListener("change", () => promptSelect.form.submit());
  }
  const form = document.getElementById("chat-form");
  if (!form) {
    return;
  }
  const input = document.getElementById("chat-input");
  const send = document.getElementById("send");
  const list = document.getElementById("messages");
  const thinking = document.getElementById("thinking");
  const session = document.getElementById("session-id");
  const sessionLink = document.getElementById("session-link");
  const token = document.querySelector('meta[name="csrf-token"]').content;
  const appName = list.dataset.app || "Bot";
  const nameInput = document.getElementById("chat-name");
  if (nameInput) {
    nameInput.value = localStorage.getItem("hone-name") || "";
    nameInput.addEventListener("change", () => localStorage.setItem("hone-name", nameInput.value.trim()));
  }
  let busy = false;

  function add(kind, who) {
    const li = document.createElement("li");
    li.className = "chat-msg " + kind;
    const label = document.createElement("div");
    label.className = "who";
    label.textContent = who;
    const body = document.createElement("div");
    body.className = "body";
    li.append(label, body);
    list.append(li);
    return body;
  }

  function notice(text) {
    add("hone failed", "hone").textContent = text;
  }

  function react(emoji) {
    const answers = list.querySelectorAll(".chat-msg.bot");
    const last = answers[answers.length - 1];
    if (!last) {
      add("hone", "hone").textContent = emoji;
      return;
    }
    let reaction = last.querySelector(".reaction");
    if (!reaction) {
      reaction = document.createElement("span");
      reaction.className = "reaction";
      reaction.title = "Noted";
      reaction.dataset.count = "0";
      last.append(reaction);
    }
    const n = Number(reaction.dataset.count) + 1;
    reaction.dataset.count = String(n);
    reaction.textContent = n > 1 ? emoji + " " + n : emoji;
  }

  // acknowledge marks the last answer with what a command saved (a note of
  // !improve), in words: a mark of its own, not a rating's 👍.
  function acknowledge(text) {
    const answers = list.querySelectorAll(".chat-msg.bot");
    const last = answers[answers.length - 1];
    const mark = document.createElement("p");
    mark.className = "ack";
    mark.setAttribute("role", "status");
    const glyph = document.createElement("span");
    glyph.className = "ack-mark";
    glyph.setAttribute("aria-hidden", "true");
    glyph.textContent = "✎";
    const words = document.createElement("span");
    words.className = "ack-text";
    words.textContent = text;
    mark.append(glyph, " ", words);
    if (!last) {
      add("hone", "hone").append(mark);
      return;
    }
    let box = last.querySelector(".acks");
    if (!box) {
      box = document.createElement("div");
      box.className = "acks";
      last.append(box);
    }
    box.append(mark);
  }

  // fileButtons puts Copy and Download buttons over the block of a reply
  // that carries a document (!print's CSV).
  function fileButtons(body, file) {
    const bar = document.createElement("div");
    bar.className = "file-actions";
    const pre = body.querySelector("pre");
    if (file.data !== undefined && file.data !== "") {
      const copy = document.createElement("button");
      copy.type = "button";
      copy.className = "button small secondary copy-file";
      copy.textContent = "Copy";
      copy.addEventListener("click", async () => {
        try {
          await navigator.clipboard.writeText(file.data);
          copy.textContent = "Copied";
        } catch (e) {
          if (pre) {
            const range = document.createRange();
            range.selectNodeContents(pre);
            const sel = window.getSelection();
            sel.removeAllRanges();
            sel.addRange(range);
          }
          copy.textContent = "Selected: press Ctrl+C";
        }
      });
      const download = document.createElement("a");
      download.className = "button small secondary download-file";
      download.textContent = "Download";
      download.download = file.name;
      download.href = URL.createObjectURL(new Blob([file.data], { type: "text/csv;charset=utf-8" }));
      bar.append(copy, download);
    } else if (file.link) {
      const download = document.createElement("a");
      download.className = "button small secondary download-file";
      download.textContent = "Download";
      download.download = file.name;
      download.href = file.link;
      bar.append(download);
    }
    if (pre) {
      pre.before(bar);
    } else {
      body.append(bar);
    }
  }

  // rateButtons puts 👍 and 👎 under an answer of the model; a 👎 makes
  // hone ask what it should have done instead, and the next message sent
  // is the correction.
  function rateButtons(li, turnID) {
    if (!list.hasAttribute("data-rating") || !turnID || li.querySelector(".rate")) {
      return;
    }
    li.dataset.turnId = turnID;
    const box = document.createElement("div");
    box.className = "rate";
    for (const [rating, emoji, label] of [["up", "👍", "Good answer"], ["down", "👎", "Bad answer"]]) {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "rate-" + rating;
      b.textContent = emoji;
      b.title = label;
      b.setAttribute("aria-label", label);
      b.setAttribute("aria-pressed", String(li.dataset.rating === rating));
      b.addEventListener("click", () => rate(li, rating));
      box.append(b);
    }
    li.append(box);
  }

  async function rate(li, rating) {
    try {
      const resp = await fetch("/chat/turns/" + encodeURIComponent(li.dataset.turnId) + "/feedback", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
        body: JSON.stringify({ rating: rating }),
      });
      const data = await resp.json().catch(() => null);
      if (!resp.ok || !data) {
        const message = data && data.error && data.error.message;
        notice("⚠️ " + (message || "The rating was not saved (" + resp.status + "); try again."));
        return;
      }
      li.dataset.rating = data.rating;
      for (const b of li.querySelectorAll(".rate button")) {
        b.setAttribute("aria-pressed", String(b.className === "rate-" + data.rating));
      }
      if (data.ask) {
        add("hone", "hone").textContent = data.ask;
        input.focus();
      }
    } catch (e) {
      notice("⚠️ hone could not be reached; the rating was not saved.");
    } finally {
      form.dataset.rated = String(Number(form.dataset.rated || 0) + 1);
    }
  }

  for (const li of list.querySelectorAll(".chat-msg.bot[data-turn-id]")) {
    rateButtons(li, li.dataset.turnId);
  }

  function setSession(id) {
    if (!id || session.textContent === id) {
      return;
    }
    session.textContent = id;
    if (sessionLink) {
      sessionLink.href = "/sessions/" + encodeURIComponent(id);
    }
  }

  function show(data) {
    setSession(data.session_id);
    if (data.ack && !data.reply_html) {
      if (data.ack_text) {
        acknowledge(data.ack_text);
      } else {
        react("👍");
      }
    }
    if (!data.reply_html) {
      return;
    }
    let body;
    if (!data.command && !data.failed) {
      body = add("bot", appName);
      rateButtons(body.parentElement, data.turn_id);
    } else {
      body = add(data.failed ? "hone failed" : "hone", "hone");
    }
    body.classList.add("md");
    body.innerHTML = data.reply_html;
    if (data.file) {
      fileButtons(body, data.file);
    }
  }

  // keep puts a message that was not answered back in the box, unless
  // something new was typed meanwhile.
  function keep(text) {
    if (input.value.trim() === "") {
      input.value = text;
    }
  }

  async function submit() {
    const text = input.value.trim();
    if (!text || busy) {
      return;
    }
    busy = true;
    send.disabled = true;
    input.value = "";
    add("user", "You").textContent = text;
    thinking.hidden = false;
    thinking.scrollIntoView({ block: "end" });
    try {
      const resp = await fetch("/chat/messages", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
        body: JSON.stringify({ prompt: form.dataset.prompt, text: text, name: nameInput ? nameInput.value.trim() : "" }),
      });
      let data = null;
      try {
        data = await resp.json();
      } catch (e) {
        data = null;
      }
      if (!resp.ok || !data) {
        const message = data && data.error && data.error.message;
        notice("⚠️ " + (message || "The server answered " + resp.status + ". Your session is intact; send the message again."));
        keep(text);
        return;
      }
      show(data);
      if (data.failed) {
        keep(text);
      }
    } catch (e) {
      notice("⚠️ hone could not be reached. Your session is intact; send the message again.");
      keep(text);
    } finally {
      form.dataset.done = String(Number(form.dataset.done || 0) + 1);
      busy = false;
      send.disabled = false;
      thinking.hidden = true;
      if (list.lastElementChild) {
        list.lastElementChild.scrollIntoView({ block: "end" });
      }
      input.focus();
    }
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    submit();
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      submit();
    }
  });
})();
