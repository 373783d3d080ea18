// "I'm stuck" for the Pivit tile game (table option hints): the player taps the tiles in their
// hand on a 6 x 6 picker of pictured tiles (colours down, designs across) plus wilds, or reads
// them from a photo of the loose tiles, and sees an arrangement drawn as tiles, or which tile to
// trade and how likely that is to help. Trading from the advice records the ordinary trade.
//
// The arrangement is drawn from the answer's `cells` ([{row, col, tile}], 0-based from the
// top-left), never from its text. The one-trade advice shows at once; when the answer says
// `"two_trades": "pending"` with a `poll` address, the chance within two trades is added when
// that address answers `"two_trades": "done"`.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const Art = window.PivitArt;
  const COPIES = 3, WILDS = 6;
  const POLL_MS = 500, POLL_GIVE_UP_MS = 120000;

  let ui = null, table = null, player = null, counts = {};
  let asking = 0; // the current question: a newer one (or closing) stops the polling of the older
  const tileset = () => table.state.options.tileset;
  const storeKey = () => `hand:${ui.tableId}:${player}:${table.state.round}`;
  const total = () => Object.values(counts).reduce((a, b) => a + b, 0);
  const handTiles = () => Object.entries(counts).flatMap(([t, n]) => Array(n).fill(t));
  const percent = (p) => `${Math.round(p * 100)}%`;

  function save() { window.Companion.storage.set(storeKey(), JSON.stringify(counts)); }
  function load() {
    try { counts = JSON.parse(window.Companion.storage.get(storeKey()) || '{}') || {}; } catch (e) { counts = {}; }
  }

  function drawPicker() {
    const buttons = Art.tilesOf(tileset()).flat().map((tile) => pickButton(tile, COPIES));
    $('pvh-picker').replaceChildren(...buttons);
    $('pvh-wild').replaceChildren(pickButton(Art.WILD, WILDS));
    const n = total();
    $('pvh-total').textContent = `${n} tile${n === 1 ? '' : 's'} entered` + (n === table.state.options.tiles ? '' : ` (a hand holds ${table.state.options.tiles})`);
  }

  // One tap adds a copy; past the last copy it goes back to none. The count is written on the tile.
  function pickButton(tile, max) {
    const n = counts[tile] || 0;
    return ui.el('button', {
      type: 'button', class: 'pick' + (n ? ' held' : ''), dataset: { tile },
      'aria-label': `${Art.name(tile)}: ${n} in your hand. Tap to ${n < max ? 'add one' : 'clear'}`,
      onclick: () => {
        const next = (counts[tile] || 0) + 1;
        if (next > max) delete counts[tile]; else counts[tile] = next;
        save();
        drawPicker();
      },
    }, [Art.picture(tile, tileset()), n ? ui.el('span', { class: 'count', 'aria-hidden': 'true', text: `×${n}` }) : null]);
  }

  async function readPhoto(file) {
    $('pvh-status').textContent = 'Reading your tiles…';
    const result = await ui.call(`hand-photos?player=${player}`, { body: file });
    if (!result) { $('pvh-status').textContent = `Not read: ${ui.lastError}`; return; }
    counts = {};
    for (const t of result.tiles) counts[t] = (counts[t] || 0) + 1;
    save();
    drawPicker();
    $('pvh-status').textContent = `Read ${result.tiles.length} tiles: check them against your hand, then ask.`;
  }

  async function ask() {
    const question = ++asking;
    $('pvh-result').replaceChildren();
    $('pvh-status').textContent = 'Thinking…';
    const result = await ui.call('hints', { json: { player, tiles: handTiles() } });
    if (question !== asking) return;
    $('pvh-status').textContent = result ? '' : `No hint: ${ui.lastError}`;
    if (!result) return;
    showAnswer(result);
    if (!result.playable && result.two_trades === 'pending' && result.poll) pollTwoTrades(result.poll, question);
  }

  function showAnswer(result) {
    const out = [];
    if (result.playable) {
      out.push(ui.el('p', { class: 'verdict good', text: '✔ Your tiles can be arranged, like this:' }));
      out.push(Art.grid(result.cells || [], tileset(), { label: 'An arrangement of your tiles' }));
      out.push(ui.el('p', { class: 'hint', text: 'Lay your tiles out as drawn: every row and column across or down is one line.' }));
    } else {
      out.push(ui.el('p', { class: 'verdict bad', text: result.certain
        ? '✘ No arrangement of these tiles exists: trading is your way out.'
        : '✘ No arrangement was found in the time allowed.' }));
      if (!result.advice.length) {
        out.push(ui.el('p', { text: 'You have no trade tokens left this round.' }));
      } else {
        out.push(...adviceList(result));
      }
    }
    $('pvh-result').replaceChildren(...out);
  }

  function adviceList(result) {
    const two = result.trades_left > 1;
    const pending = two && result.two_trades === 'pending';
    const intro = two
      ? 'Best tiles to trade, with the chance your hand can be arranged after one trade, and within your two trades:'
      : 'Best tiles to trade, with the chance your hand can be arranged after the trade:';
    const items = result.advice.slice(0, 5).map((a) => {
      const chance = `${percent(a.p_one)} now` + (two && typeof a.p_two === 'number' ? `, ${percent(a.p_two)} within two trades` : '');
      return ui.el('li', { dataset: { tile: a.trade } }, [
        Art.picture(a.trade, tileset()),
        ui.el('span', { class: 'advice-text', text: `Trade the ${Art.name(a.trade)}: ${chance}` }),
        ui.el('button', {
          type: 'button', class: 'action', 'aria-label': `Trade the ${Art.name(a.trade)} now`,
          text: 'Trade it now', onclick: () => trade(a.trade),
        }),
      ]);
    });
    return [
      ui.el('p', { class: 'hint', text: intro }),
      ui.el('ol', { class: 'advice' }, items),
      pending ? ui.el('p', { id: 'pvh-two-pending', class: 'hint', role: 'status',
        text: 'Working out the chance within your two trades: it appears here in a moment.' }) : null,
    ].filter(Boolean);
  }

  // The chance within two trades takes the Pi longer: ask for it until it is there.
  async function pollTwoTrades(url, question) {
    const giveUp = Date.now() + POLL_GIVE_UP_MS;
    while (question === asking && $('pvh-dialog').open) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (question !== asking || !$('pvh-dialog').open) return;
      const result = await ui.call(url, { method: 'GET' });
      if (question !== asking) return;
      if (result && result.two_trades !== 'pending') { showAnswer(result); return; }
      if (!result || Date.now() > giveUp) {
        const note = $('pvh-two-pending');
        if (note) note.textContent = 'The chance within two trades could not be worked out: the chances after one trade stand.';
        return;
      }
    }
  }

  async function trade(tile) {
    asking += 1;
    const result = await ui.act({ type: 'trade', player });
    if (!result) { $('pvh-status').textContent = `Not traded: ${ui.lastError}`; return; }
    counts[tile] -= 1;
    if (counts[tile] <= 0) delete counts[tile];
    save();
    drawPicker();
    $('pvh-result').replaceChildren(ui.el('p', { class: 'verdict traded' }, [
      Art.picture(tile, tileset()),
      ` Traded: put the ${Art.name(tile)} face down in the centre, draw a new tile, add it above and ask again.`,
    ]));
  }

  let wired = false;
  function wire() {
    if (wired) return;
    wired = true;
    $('pvh-ask').addEventListener('click', ask);
    $('pvh-clear').addEventListener('click', () => {
      asking += 1;
      counts = {}; save(); drawPicker(); $('pvh-result').replaceChildren();
    });
    $('pvh-file').addEventListener('change', (e) => {
      const file = e.target.files && e.target.files[0];
      e.target.value = '';
      if (file) readPhoto(file);
    });
    $('pvh-close').addEventListener('click', () => { asking += 1; $('pvh-dialog').close(); });
  }

  function open(uiRef, tableRef, who) {
    ui = uiRef; table = tableRef; player = who;
    asking += 1;
    wire();
    load();
    $('pvh-result').replaceChildren();
    $('pvh-status').textContent = '';
    drawPicker();
    $('pvh-dialog').showModal();
  }

  window.PivitHints = { open };
})();
