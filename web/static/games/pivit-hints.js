// "I'm stuck" for the Pivit tile game (table option hints): the player enters the tiles in
// their hand (a 6 x 6 picker of designs and colours plus wilds, or a photo of the loose
// tiles), and sees an arrangement, or which tile to trade and how likely that is to help.
// Trading from the advice records the ordinary trade action.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const DESIGNS = { 1: 'circle', 2: 'clover', 3: 'diamond', 4: 'square', 5: 'four-point star', 6: 'eight-point star' };
  const COLOURS = { R: 'red', O: 'orange', Y: 'yellow', G: 'green', B: 'blue', P: 'purple', W: 'white' };
  const SETS = { classic: 'ROYGBP', connect: 'ROYGBW' };
  const COPIES = 3, WILDS = 6;

  let ui = null, table = null, player = null, counts = {};
  const tileName = (t) => (t === '**' ? 'wild' : `${COLOURS[t[1]]} ${DESIGNS[t[0]]}`);
  const storeKey = () => `hand:${ui.tableId}:${player}:${table.state.round}`;
  const total = () => Object.values(counts).reduce((a, b) => a + b, 0);
  const handTiles = () => Object.entries(counts).flatMap(([t, n]) => Array(n).fill(t));
  const percent = (p) => `${Math.round(p * 100)}%`;

  function save() { window.Companion.storage.set(storeKey(), JSON.stringify(counts)); }
  function load() {
    try { counts = JSON.parse(window.Companion.storage.get(storeKey()) || '{}') || {}; } catch (e) { counts = {}; }
  }

  function drawPicker() {
    const colours = SETS[table.state.options.tileset] || SETS.classic;
    const head = ui.el('tr', {}, [ui.el('th', { scope: 'col', text: '' })].concat(
      '123456'.split('').map((d) => ui.el('th', { scope: 'col', text: d, title: DESIGNS[d] }))));
    const rows = colours.split('').map((c) => ui.el('tr', {}, [ui.el('th', { scope: 'row', text: c, title: COLOURS[c] })]
      .concat('123456'.split('').map((d) => ui.el('td', {}, [pickButton(d + c, COPIES)])))));
    $('pvh-picker').replaceChildren(ui.el('thead', {}, [head]), ui.el('tbody', {}, rows));
    $('pvh-wild').replaceChildren(pickButton('**', WILDS));
    const n = total();
    $('pvh-total').textContent = `${n} tile${n === 1 ? '' : 's'} entered` + (n === table.state.options.tiles ? '' : ` (a hand holds ${table.state.options.tiles})`);
  }

  // One tap adds a copy; past the last copy it goes back to none.
  function pickButton(tile, max) {
    const n = counts[tile] || 0;
    return ui.el('button', {
      type: 'button', class: 'pick' + (n ? ' held' : ''), dataset: { tile, colour: tile[1] },
      'aria-label': `${tileName(tile)}: ${n} in your hand. Tap to ${n < max ? 'add one' : 'clear'}`,
      text: n ? `${tile}×${n}` : tile,
      onclick: () => {
        const next = (counts[tile] || 0) + 1;
        if (next > max) delete counts[tile]; else counts[tile] = next;
        save();
        drawPicker();
      },
    });
  }

  async function readPhoto(file) {
    $('pvh-status').textContent = 'Reading your tiles…';
    const result = await ui.call(`hand-photos?player=${player}`, { body: file });
    if (!result) { $('pvh-status').textContent = ''; return; }
    counts = {};
    for (const t of result.tiles) counts[t] = (counts[t] || 0) + 1;
    save();
    drawPicker();
    $('pvh-status').textContent = `Read ${result.tiles.length} tiles: check them against your hand, then ask.`;
  }

  async function ask() {
    $('pvh-result').replaceChildren();
    $('pvh-status').textContent = 'Thinking…';
    const result = await ui.call('hints', { json: { player, tiles: handTiles() } });
    $('pvh-status').textContent = '';
    if (!result) return;
    const out = [];
    if (result.playable) {
      out.push(ui.el('p', { class: 'verdict good', text: '✔ Your tiles can be arranged, like this:' }));
      out.push(gridTable(result.grid));
    } else {
      out.push(ui.el('p', { class: 'verdict bad', text: result.certain
        ? '✘ No arrangement of these tiles exists: trading is your way out.'
        : '✘ No arrangement was found in the time allowed.' }));
      if (!result.advice.length) {
        out.push(ui.el('p', { text: 'You have no trade tokens left this round.' }));
      } else {
        out.push(ui.el('p', { class: 'hint', text: result.trades_left > 1
          ? 'Best tiles to trade, with the chance your hand can be arranged after one trade, and within your two trades:'
          : 'Best tiles to trade, with the chance your hand can be arranged after the trade:' }));
        out.push(ui.el('ol', { class: 'advice' }, result.advice.slice(0, 5).map((a) => ui.el('li', {}, [
          ui.el('span', { text: `${a.trade} (${tileName(a.trade)}): ${percent(a.p_one)} now`
            + (result.trades_left > 1 ? `, ${percent(a.p_two)} within two trades` : '') }),
          ui.el('button', {
            type: 'button', class: 'action', 'aria-label': `Trade ${tileName(a.trade)} now`,
            text: `Trade ${a.trade} now`, onclick: () => trade(a.trade),
          }),
        ]))));
      }
    }
    $('pvh-result').replaceChildren(...out);
  }

  function gridTable(text) {
    const rows = text.split('\n').map((line) => line.trim() === '' ? [] : line.split(/\s+/));
    return ui.el('table', { class: 'hint-grid', 'aria-label': 'An arrangement of your tiles' }, [ui.el('tbody', {},
      rows.map((cells) => ui.el('tr', {}, cells.map((t) => ui.el('td', {
        class: t === '.' ? 'empty' : 'tile', dataset: { colour: t[1] || '' }, text: t === '.' ? '' : t,
        'aria-label': t === '.' ? 'empty' : tileName(t),
      })))))]);
  }

  async function trade(tile) {
    const result = await ui.act({ type: 'trade', player });
    if (!result) return;
    counts[tile] -= 1;
    if (counts[tile] <= 0) delete counts[tile];
    save();
    drawPicker();
    $('pvh-result').replaceChildren(ui.el('p', { class: 'verdict', text:
      `Traded: put ${tile} face down in the centre, draw a new tile, add it above and ask again.` }));
  }

  let wired = false;
  function wire() {
    if (wired) return;
    wired = true;
    $('pvh-ask').addEventListener('click', ask);
    $('pvh-clear').addEventListener('click', () => { counts = {}; save(); drawPicker(); $('pvh-result').replaceChildren(); });
    $('pvh-file').addEventListener('change', (e) => {
      const file = e.target.files && e.target.files[0];
      e.target.value = '';
      if (file) readPhoto(file);
    });
    $('pvh-close').addEventListener('click', () => $('pvh-dialog').close());
  }

  function open(uiRef, tableRef, who) {
    ui = uiRef; table = tableRef; player = who;
    wire();
    load();
    $('pvh-result').replaceChildren();
    $('pvh-status').textContent = '';
    drawPicker();
    $('pvh-dialog').showModal();
  }

  window.PivitHints = { open };
})();
