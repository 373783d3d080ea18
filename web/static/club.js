// The club server's pages: the live overview, seatings and the organiser's devices page.
// Names are set with textContent only; nothing comes from another host.
"use strict";

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "text") node.textContent = value;
    else if (key.startsWith("data-") || key === "class" || key === "href" || key === "aria-label" || key === "role") node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

// -- the live overview ---------------------------------------------------------------------

function overviewPage() {
  const data = document.getElementById("overview-data");
  if (!data) return;
  const list = document.querySelector("[data-tables]");
  const results = document.querySelector("[data-results]");
  const state = document.querySelector("[data-live-state]");
  let offset = 0;  // server clock minus this phone's clock
  let current = JSON.parse(data.textContent);

  function countdownText(c) {
    if (!c) return null;
    if (c.status === "running" && c.deadline_ms) return `Timer: ${clock(c.deadline_ms - (Date.now() + offset))} left`;
    if (c.status === "paused") return `Timer paused at ${clock(c.remaining_ms)}`;
    if (c.status === "expired") return "Timer: time's up";
    return null;
  }

  function render(view) {
    current = view;
    offset = view.server_time_ms - Date.now();
    document.querySelector("[data-night]").textContent = view.night;
    list.replaceChildren(...view.tables.map((t) => {
      const scores = el("ol", { class: "seats" }, ...t.players.map((name, i) => el("li", {},
        el("span", { class: "name", text: name }),
        t.scores ? el("span", { class: "score", text: String(t.scores[i]) }) : null,
        t.winners.includes(name) ? el("span", { class: "won", text: " ★ won" }) : null,
        t.turn === name ? el("span", { class: "turn", text: " ← to play" }) : null)));
      const facts = [t.finished ? "Finished" : "Playing"];
      if (t.round) facts.push(`round ${t.round}`);
      const timer = el("p", { class: "countdown", "data-countdown": "" });
      timer.dataset.status = t.countdown ? t.countdown.status : "none";
      const card = el("li", { class: "club-table" + (t.finished ? " finished" : ""), "data-table-ref": String(t.ref) },
        el("h3", {}, el("a", { href: `/tables/${t.ref}`, text: t.title }), el("span", { class: "muted", text: ` · ${t.device ? t.device + ", " : ""}table ${t.table_id}` })),
        el("p", { class: "facts", text: facts.join(", ") }), timer, scores);
      card._countdown = t.finished ? null : t.countdown;
      return card;
    }));
    document.querySelector("[data-no-tables]").hidden = view.tables.length > 0;
    results.replaceChildren(...view.results.map((g) => el("li", { "data-result-ref": String(g.ref) },
      el("a", { href: `/tables/${g.ref}`, text: g.title }), ": ",
      ...g.seats.flatMap((s, i) => [i ? ", " : "", el("span", { text: `${s.rank}. ${s.name}${s.score != null ? " " + s.score : ""}` })]))));
    document.querySelector("[data-no-results]").hidden = view.results.length > 0;
    tick();
  }

  function tick() {
    for (const card of list.children) {
      const text = countdownText(card._countdown);
      const node = card.querySelector("[data-countdown]");
      node.textContent = text || "";
      node.hidden = !text;
    }
  }

  render(current);
  setInterval(tick, 250);
  const source = new EventSource("/api/stream");
  source.addEventListener("overview", (e) => { render(JSON.parse(e.data)); state.textContent = "live"; });
  source.addEventListener("heartbeat", () => { state.textContent = "live"; });
  source.onerror = () => { state.textContent = "reconnecting…"; };
  document.querySelector("[data-big-screen]").addEventListener("click", () => document.body.classList.toggle("big"));
}

// -- seatings ------------------------------------------------------------------------------

function seatingsPage() {
  const box = document.querySelector("[data-seating]");
  if (!box) return;
  const status = document.querySelector("[data-status]");
  const save = document.querySelector("[data-save]");
  let proposal = null;

  function draw() {
    const tables = proposal.tables;
    box.replaceChildren(el("p", { text: `Round ${proposal.round}:` }), el("ol", { class: "seated" }, ...tables.map((players, t) =>
      el("li", { "data-seating-table": String(t + 1) }, el("strong", { text: `Table ${t + 1}: ` }), ...players.map((p) => {
        const move = el("select", { "aria-label": `Move ${p.name} to another table` },
          ...tables.map((_, i) => el("option", { value: String(i), text: `table ${i + 1}`, selected: i === t })),
          el("option", { value: "new", text: "a new table" }));
        move.addEventListener("change", () => {
          const to = move.value === "new" ? tables.length : Number(move.value);
          tables[t] = tables[t].filter((q) => q.player_id !== p.player_id);
          if (to === tables.length) tables.push([]);
          tables[to].push(p);
          proposal.tables = tables.filter((tb) => tb.length);
          draw();
        });
        return el("span", { class: "seat" }, el("span", { text: p.name }), " ", move, " ");
      })))));
    const ok = tables.every((tb) => tb.length >= 2 && tb.length <= 4);
    save.disabled = !ok;
    status.textContent = ok ? "" : "Every table needs 2 to 4 players.";
  }

  document.querySelector("[data-propose]").addEventListener("click", async () => {
    const query = new URLSearchParams({ game: box.dataset.game, night: box.dataset.night });
    const answer = await fetch(`/api/seatings/proposal?${query}`);
    const body = await answer.json();
    if (!answer.ok) { status.textContent = body.error; return; }
    proposal = body;
    draw();
  });
  save.addEventListener("click", async () => {
    const pin = document.querySelector("[data-pin]").value;
    const answer = await fetch("/api/seatings", {
      method: "POST", headers: { "Content-Type": "application/json", "X-Club-Pin": pin },
      body: JSON.stringify({ game: proposal.game, night: proposal.night, round: proposal.round,
                             tables: proposal.tables.map((tb) => tb.map((p) => p.player_id)) }) });
    const body = await answer.json();
    if (!answer.ok) { status.textContent = body.error; return; }
    status.textContent = `Saved: round ${body.round}.`;
    const saved = document.querySelector("[data-saved]");
    saved.replaceChildren(el("p", { text: `Round ${body.round} of ${body.night} (${body.title}):` }),
      el("ol", { class: "seated" }, ...body.tables.map((tb, i) => el("li", { text: `Table ${i + 1}: ${tb.map((p) => p.name).join(", ")}` }))));
  });
  document.querySelector("[data-print]").addEventListener("click", () => window.print());
}

// -- devices ---------------------------------------------------------------------------------

function adminPage() {
  const form = document.querySelector("[data-admin]");
  if (!form) return;
  const status = document.querySelector("[data-status]");
  const pin = () => form.querySelector("[data-pin]").value;

  async function call(path, method) {
    const answer = await fetch(path, { method: method || "GET", headers: { "X-Club-Pin": pin(), "Content-Type": "application/json" } });
    const body = await answer.json();
    if (!answer.ok) throw new Error(body.error);
    return body;
  }

  async function load() {
    try {
      const [code, devices] = [await call("/api/join-code"), await call("/api/devices")];
      document.querySelector("[data-join-code]").textContent = code.code;
      document.querySelector("[data-devices]").replaceChildren(...devices.devices.map((d) => {
        const revoke = el("button", { type: "button", text: "Revoke", disabled: d.revoked });
        revoke.addEventListener("click", async () => {
          try { await call(`/api/devices/${d.id}/revoke`, "POST"); await load(); status.textContent = `${d.name} revoked.`; }
          catch (e) { status.textContent = e.message; }
        });
        return el("tr", { "data-device-id": String(d.id) }, el("td", { text: d.name }), el("td", { text: String(d.tables) }),
          el("td", { text: d.revoked ? "revoked" : "joined" }), el("td", {}, revoke));
      }));
      document.querySelector("[data-admin-panel]").hidden = false;
      status.textContent = "";
    } catch (e) { status.textContent = e.message; }
  }

  form.addEventListener("submit", (e) => { e.preventDefault(); load(); });
  document.querySelector("[data-renew]").addEventListener("click", async () => {
    try { document.querySelector("[data-join-code]").textContent = (await call("/api/join-code", "POST")).code; }
    catch (e) { status.textContent = e.message; }
  });
}

overviewPage();
seatingsPage();
adminPage();
