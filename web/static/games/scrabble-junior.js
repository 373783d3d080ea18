// Scrabble Junior on phones: whose turn it is, the pool and the kitty, the printed
// word board to tap, and each player's chips and tiles. A tap on a square opens a
// small panel that says what covering it would do (which words it completes, and the
// rulebook's strategy tip: which word it would let the next player complete) or why
// it cannot be covered yet; "Cover" records the tile. Two taps per tile because the
// board's squares are small on a phone and a wrong cover costs an undo.
// Everything comes from the engine's JSON (state.playable, state.board, table.actions),
// so the page never offers a play the rules forbid.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const storage = window.Companion.storage;
  const ZOOM_KEY = 'scrabble-junior:zoom';

  let builtFor = null; // the board the squares were built for ("standard", or a custom layout)
  const squares = new Map(); // square name -> its button, built once so focus survives updates
  let selected = null; // the square tapped, waiting for "Cover"
  let chosen = []; // rack positions chosen to give back in an exchange
  let chosenKey = null; // the turn and rack `chosen` belongs to
  let busy = false;
  let current = null; // {table, ui} of the last render, for the handlers

  const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + 's'}`;
  const ordinal = (n) => n + (n % 10 === 1 && n !== 11 ? 'st' : n % 10 === 2 && n !== 12 ? 'nd' : n % 10 === 3 && n !== 13 ? 'rd' : 'th');
  const joinWith = (items, word) => items.length <= 1 ? items.join('')
    : items.slice(0, -1).join(', ') + ` ${word} ` + items[items.length - 1];
  const joinAnd = (items) => joinWith(items, 'and');

  // Everything the handlers and the drawing look up, from one table.
  function view(table) {
    const s = table.state;
    const cells = new Map(s.board.cells.map((c) => [c.id, c]));
    const playable = new Map(s.playable.map((p) => [p.cell, p]));
    const lastTurn = s.history.length ? s.history[s.history.length - 1] : null;
    const lastCells = new Set(lastTurn && lastTurn.kind === 'play' ? lastTurn.cells : []);
    const mover = s.turn.player === null ? null : s.players[s.turn.player];
    return { s, cells, playable, lastCells, mover };
  }

  const tileText = (v, id) => `${v.cells.get(id).letter} on ${id}`;

  function wordsThrough(v, cell) {
    return cell.words.map((w) => {
      const word = v.s.board.words[w];
      return `${ordinal(word.cells.indexOf(cell.id) + 1)} letter of ${word.word}`;
    });
  }

  function openedText(v, opened) {
    const tiles = joinAnd(opened.cells.map((id) => tileText(v, id)));
    const ifHeld = v.s.tiles === 'real' ? ' if they hold it' : '';
    return `${opened.name} could then complete ${opened.word} with ${tiles}${ifHeld}.`;
  }

  // Why a square cannot take a tile now, in the rulebook's words.
  function whyNot(v, cell) {
    const s = v.s;
    if (cell.covered) {
      const by = cell.by === null ? '' : ` by ${s.players[cell.by].name} on turn ${cell.turn}`;
      return `The ${cell.letter} on ${cell.id} is already covered${by}.`;
    }
    if (s.finished) return 'The game is over.';
    if (!cell.coverable) {
      const needs = cell.words.map((w) => {
        const word = s.board.words[w];
        return `the ${v.cells.get(word.next).letter} of ${word.word} (${word.next})`;
      });
      return `Play letters in order: cover ${joinWith(needs, 'or')} before the ${cell.letter} on ${cell.id}.`;
    }
    const name = v.mover.name;
    if (v.mover.rack_count === 0) return `${name} has no tiles left.`;
    if (v.mover.rack !== null && !v.mover.rack.includes(cell.letter)) return `${name} has no ${cell.letter} tile.`;
    if (s.turn.must === 'play-two') {
      return `${name} can play two tiles this turn, but after the ${cell.letter} on ${cell.id} no second tile ` +
        'would fit: cover another letter first.';
    }
    return `The ${cell.letter} on ${cell.id} cannot be covered now.`;
  }

  function turnText(s, t) {
    const name = s.players[t.player].name;
    if (t.kind === 'pass') {
      if (!t.auto) return `${name} passed.`;
      return s.tiles === 'real' ? `${name} passed (no tiles left and the pool is empty).`
        : `${name} passed (no tile fits and the pool is empty).`;
    }
    if (t.kind === 'exchange') return `${name} exchanged ${plural(t.exchanged, 'tile')} with the pool.`;
    let text = `${name} covered ${joinAnd(t.cells.map((c, i) => `${t.letters[i]} on ${c}`))}`;
    if (t.chips) text += `: ★ completed ${joinAnd(t.words)}, +${plural(t.chips, 'chip')}`;
    if (t.drew) text += `; drew ${t.drew}`;
    return text + '.';
  }

  // -- the turn panel ----------------------------------------------------------

  function renderTurn(v, ui) {
    const s = v.s;
    // Once over, the winner line below says who won; the prompt just says why it ended.
    $('sj-prompt').textContent = s.finished ? `The game is over: all ${s.tiles_total} tiles are on the board.` : s.prompt;
    const me = ui.me;
    let who = '';
    if (!s.finished && me !== null && me >= 0 && me < s.players.length) {
      who = me === s.turn.player ? 'Your turn!' : `Waiting for ${v.mover.name}. You can still tap for them.`;
    }
    $('sj-who').textContent = who;
    $('sj-who').dataset.mine = !s.finished && me === s.turn.player ? '1' : '0';
    const winner = $('sj-winner');
    winner.hidden = !s.finished;
    if (s.finished) {
      const names = s.winners.map((i) => s.players[i].name);
      const chips = plural(s.players[s.winners[0]].chips, 'chip');
      winner.textContent = names.length > 1 ? `${joinAnd(names)} share the win with ${chips} each!`
        : `${names[0]} wins with ${chips}!`;
    }
    $('sj-facts').replaceChildren(...[
      ui.el('li', { dataset: { fact: 'pool' } }, ['Pool: ', ui.el('strong', { text: String(s.pool) }), s.pool === 1 ? ' tile' : ' tiles']),
      ui.el('li', { dataset: { fact: 'kitty' } }, ['Kitty: ', ui.el('strong', { text: String(s.kitty) }), s.kitty === 1 ? ' chip' : ' chips']),
      ui.el('li', { dataset: { fact: 'board' } }, ['On the board: ', ui.el('strong', { text: `${s.tiles_on_board} of ${s.tiles_total}` })]),
      s.finished ? null : ui.el('li', { dataset: { fact: 'turn' } }, ['Turn ', ui.el('strong', { text: String(s.turn.number) })]),
    ].filter(Boolean));
    $('sj-legend').hidden = s.finished;
    let rule = '';
    if (!s.finished && s.turn.first_turn && s.turn.covered.length === 0) {
      rule = 'First turn: cover the first letters of two words, or the first and second letters of one word.';
    } else if (!s.finished && s.tiles === 'real') {
      rule = 'Real tiles: tap where each tile goes; draw as many tiles as you played.';
    }
    $('sj-rule').textContent = rule;
    let now = '';
    if (s.turn.covered.length) {
      now = `This turn: ${joinAnd(s.turn.covered.map((id) => tileText(v, id)))}`;
      if (s.turn.chips) now += `, ★ ${joinAnd(s.turn.words)} (+${plural(s.turn.chips, 'chip')})`;
      if (!s.finished) now += `. ${plural(s.turn.tiles_left, 'tile')} left to play.`;
    }
    $('sj-this-turn').textContent = now;
    const last = s.history.length ? s.history[s.history.length - 1] : null;
    $('sj-last').textContent = last ? 'Last turn: ' + turnText(s, last) : '';
  }

  // The player to move's tiles (digital tiles only: the rulebook has racks face up).
  // During an exchange they become toggles to choose the tiles to give back.
  function renderRack(v, table, ui) {
    const box = $('sj-rack');
    const s = v.s;
    if (s.finished || !v.mover || v.mover.rack === null) { box.replaceChildren(); return; }
    const exchange = table.actions.find((a) => a.type === 'exchange');
    const key = `${s.turn.number}:${v.mover.rack.join('')}`;
    if (key !== chosenKey) { chosen = []; chosenKey = key; }
    const tiles = v.mover.rack.map((letter, i) => {
      if (!exchange) return ui.el('li', { class: 'sj-tile', text: letter });
      const pressed = chosen.includes(i);
      return ui.el('li', {}, ui.el('button', {
        type: 'button', class: 'sj-tile', 'aria-pressed': pressed ? 'true' : 'false',
        'aria-label': `Give back ${letter}`, dataset: { letter },
        onclick: () => {
          chosen = pressed ? chosen.filter((j) => j !== i) : chosen.concat([i]).slice(-exchange.count);
          render(current.table, current.ui);
        },
      }, letter));
    });
    box.replaceChildren(
      ui.el('p', { class: 'sj-rack-label', text: exchange
        ? `${v.mover.name}'s tiles: choose ${plural(exchange.count, 'tile')} to give back`
        : `${v.mover.name}'s tiles` }),
      ui.el('ul', { class: 'sj-rack', 'aria-label': `${v.mover.name}'s tiles` }, tiles),
    );
  }

  function actionButton(ui, text, label, event, extraClass, disabled) {
    return ui.el('button', {
      type: 'button', class: 'action ' + (extraClass || ''), 'aria-label': label, disabled: !!disabled,
      dataset: { type: event.type },
      onclick: () => send(event),
    }, text);
  }

  function renderActions(v, table, ui) {
    const s = v.s;
    const buttons = [];
    for (const a of table.actions) {
      const name = s.players[a.player].name;
      const base = { type: a.type, player: a.player };
      if (a.type === 'exchange' && s.tiles === 'digital') {
        const letters = chosen.map((i) => v.mover.rack[i]);
        const ready = letters.length === a.count;
        buttons.push(actionButton(ui, ready ? `Exchange ${letters.join(' and ')}` : `Exchange ${plural(a.count, 'tile')}`,
          `${name}: exchange ${ready ? letters.join(' and ') : plural(a.count, 'tile')}`,
          Object.assign(base, { tiles: letters }), 'primary', !ready));
      } else if (a.type === 'exchange') {
        buttons.push(actionButton(ui, `No tile fits: exchange ${plural(a.count, 'tile')}`,
          `${name}: exchange ${plural(a.count, 'tile')}`, base));
      } else if (a.type === 'end-turn') {
        buttons.push(actionButton(ui, 'Only one tile fits: end the turn', `${name}: end the turn after one tile`, base));
      } else if (a.type === 'pass') {
        buttons.push(actionButton(ui, 'Pass', `${name}: pass`, base, 'primary'));
      }
    }
    $('sj-actions').replaceChildren(...buttons);
  }

  // -- the board -----------------------------------------------------------------

  function buildBoard(v, ui) {
    const board = $('sj-board');
    const { rows, cols } = v.s.board;
    board.style.setProperty('--cols', String(cols));
    board.style.setProperty('--rows', String(rows));
    squares.clear();
    const nodes = [];
    const at = new Map(v.s.board.cells.map((c) => [`${c.row},${c.col}`, c]));
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const cell = at.get(`${r},${c}`);
        if (!cell) { nodes.push(ui.el('span', { class: 'sj-gap', 'aria-hidden': 'true' })); continue; }
        const button = ui.el('button', {
          type: 'button', class: 'sj-sq', dataset: { cell: cell.id },
          onclick: () => { selected = selected === cell.id ? null : cell.id; render(current.table, current.ui); },
        }, cell.letter);
        squares.set(cell.id, button);
        nodes.push(button);
      }
    }
    board.replaceChildren(...nodes);
    builtFor = v.s.board.name + ':' + v.s.board.cells.map((c) => c.id + c.letter).join('');
  }

  function squareLabel(v, cell, play) {
    const s = v.s;
    const parts = [`${cell.id}: ${cell.letter}`];
    if (cell.covered) {
      parts.push(cell.by === null ? 'covered' : `covered by ${s.players[cell.by].name}`);
      if (cell.this_turn) parts.push('this turn');
      else if (v.lastCells.has(cell.id)) parts.push('last turn');
    } else if (play) {
      parts.push(`${v.mover.name} can cover it`);
      if (play.completes.length) parts.push(`completes ${joinAnd(play.completes)}`);
      if (play.opens.length) parts.push(`lets ${play.opens[0].name} complete ${joinAnd(play.opens.map((o) => o.word))}`);
    } else {
      parts.push('open');
    }
    return parts.join(', ');
  }

  function renderBoard(v, ui) {
    const key = v.s.board.name + ':' + v.s.board.cells.map((c) => c.id + c.letter).join('');
    if (key !== builtFor) buildBoard(v, ui);
    const danger = new Set();
    const pick = selected && v.playable.get(selected);
    if (pick) for (const o of pick.opens) for (const id of o.cells) danger.add(id);
    for (const cell of v.s.board.cells) {
      const button = squares.get(cell.id);
      const play = v.playable.get(cell.id);
      const cls = ['sj-sq'];
      if (cell.covered) cls.push('covered');
      if (play) cls.push('playable');
      if (cell.this_turn) cls.push('this-turn');
      else if (cell.covered && v.lastCells.has(cell.id)) cls.push('last');
      if (danger.has(cell.id)) cls.push('danger');
      if (selected === cell.id) cls.push('selected');
      button.className = cls.join(' ');
      let mark = '';
      if (play && play.completes.length) mark += '★';
      if (play && play.opens.length) mark += '!';
      if (mark) button.dataset.mark = mark; else delete button.dataset.mark;
      button.setAttribute('aria-label', squareLabel(v, cell, play));
      button.setAttribute('aria-pressed', selected === cell.id ? 'true' : 'false');
    }
    // "Bigger squares" only where the fitted squares are small (the printed board on a phone).
    const fitted = $('sj-board-wrap').clientWidth / v.s.board.cols;
    $('sj-zoom').hidden = fitted >= 40;
    const zoom = fitted < 40 && storage.get(ZOOM_KEY) === '1';
    $('sj-board').dataset.zoom = zoom ? '1' : '0';
    $('sj-zoom').setAttribute('aria-pressed', zoom ? 'true' : 'false');
    $('sj-zoom').textContent = zoom ? 'Whole board' : 'Bigger squares';
  }

  // The panel under the board for the tapped square: what covering it does, or why not.
  function renderPick(v, ui) {
    const panel = $('sj-pick');
    const cell = selected && v.cells.get(selected);
    if (!cell) { selected = null; panel.hidden = true; return; }
    panel.hidden = false;
    const play = v.playable.get(cell.id);
    $('sj-pick-title').textContent = `${cell.letter} on ${cell.id}`;
    $('sj-pick-words').textContent = 'The ' + joinAnd(wordsThrough(v, cell)) + '.';
    const cover = $('sj-pick-cover');
    if (play) {
      const forWhom = ui.me === v.s.turn.player ? '' : ` for ${v.mover.name}`;
      $('sj-pick-chips').textContent = play.completes.length
        ? `★ Completes ${joinAnd(play.completes)}: +${plural(play.completes.length, 'chip')}.` : '';
      $('sj-pick-warning').textContent = play.opens.length
        ? '! Careful: ' + play.opens.map((o) => openedText(v, o)).join(' ') : '';
      $('sj-pick-why').textContent = '';
      cover.hidden = false;
      cover.disabled = busy;
      cover.textContent = `Cover ${cell.id} with ${cell.letter}${forWhom}`;
      cover.setAttribute('aria-label', `${v.mover.name}: cover ${cell.id} with ${cell.letter}`);
    } else {
      $('sj-pick-chips').textContent = '';
      $('sj-pick-warning').textContent = '';
      $('sj-pick-why').textContent = whyNot(v, cell);
      cover.hidden = true;
    }
    $('sj-pick-cancel').textContent = play ? 'Cancel' : 'Close';
  }

  // -- the players ---------------------------------------------------------------

  function playerCard(v, ui, i) {
    const s = v.s;
    const p = s.players[i];
    const mine = ui.me === i;
    const moving = !s.finished && s.turn.player === i;
    const won = s.finished && s.winners.includes(i);
    const card = ui.el('li', {
      class: 'player' + (mine ? ' mine' : '') + (moving ? ' moving' : ''),
      dataset: { player: String(i) }, 'aria-label': p.name + (mine ? ' (you)' : ''),
    });
    card.append(ui.el('div', { class: 'player-head' }, [
      ui.el('h3', { class: 'name' }, [p.name, mine ? ui.el('span', { class: 'you', text: ' (you)' }) : null]),
      ui.el('p', { class: 'score' }, [ui.el('strong', { class: 'chips', text: String(p.chips) }), p.chips === 1 ? ' chip' : ' chips']),
    ]));
    if (moving) card.append(ui.el('p', { class: 'player-status', text: 'Playing now' }));
    if (won) card.append(ui.el('p', { class: 'player-status won', text: 'Winner' }));
    if (p.chips) card.append(ui.el('p', { class: 'sj-chip-row', 'aria-hidden': 'true', text: '●'.repeat(p.chips) }));
    if (p.rack !== null) {
      card.append(ui.el('ul', { class: 'sj-rack small', 'aria-label': `${p.name}'s tiles` },
        p.rack.map((letter) => ui.el('li', { class: 'sj-tile', text: letter }))));
      if (!p.rack.length) card.append(ui.el('p', { class: 'hint', text: 'No tiles left' }));
    } else {
      card.append(ui.el('p', { class: 'sj-rack-count', text: `${plural(p.rack_count, 'tile')} on the rack` }));
    }
    if (p.words.length) card.append(ui.el('p', { class: 'sj-words', text: 'Words: ' + p.words.join(', ') }));
    return card;
  }

  function renderPlayers(v, ui) {
    const order = v.s.players.map((_, i) => i);
    const me = ui.me;
    if (me !== null && me >= 0 && me < order.length) { order.splice(me, 1); order.unshift(me); }
    $('sj-players').replaceChildren(...order.map((i) => playerCard(v, ui, i)));
  }

  function renderHistory(v, ui) {
    const s = v.s;
    $('sj-history').replaceChildren(...s.history.slice().reverse().map((t) =>
      ui.el('li', { value: String(t.number) }, turnText(s, t))));
    $('sj-history-box').hidden = s.history.length === 0;
  }

  // -- acting --------------------------------------------------------------------

  async function send(event) {
    if (busy || !current) return null;
    busy = true;
    $('sj-pick-error').textContent = '';
    render(current.table, current.ui);
    let result = null;
    try {
      // expected_version: if another phone recorded a tile first, this tap is refused
      // (409) instead of landing on a board the player did not see.
      result = await current.ui.act(Object.assign({ expected_version: current.table.version }, event));
    } finally {
      busy = false;
    }
    if (!result) {
      // table.js shows the error further down the page; repeat it next to the board.
      const box = $('action-error');
      $('sj-pick-error').textContent = box ? box.textContent : '';
    }
    render(current.table, current.ui);
    return result;
  }

  $('sj-pick-cover').addEventListener('click', async () => {
    const v = view(current.table);
    const cell = selected && v.cells.get(selected);
    if (!cell || !v.playable.has(cell.id)) return;
    const done = await send({ type: 'cover', player: v.s.turn.player, cell: cell.id, letter: cell.letter });
    // The panel closes with the cover: keep keyboard focus on the board, where it was.
    if (done) squares.get(cell.id).focus({ preventScroll: true });
  });
  function closePick() {
    const back = selected && squares.get(selected);
    selected = null;
    $('sj-pick-error').textContent = '';
    render(current.table, current.ui);
    if (back) back.focus({ preventScroll: true });
  }
  $('sj-pick-cancel').addEventListener('click', closePick);
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && selected) closePick(); });
  $('sj-zoom').addEventListener('click', () => {
    storage.set(ZOOM_KEY, storage.get(ZOOM_KEY) === '1' ? null : '1');
    render(current.table, current.ui);
  });

  function render(table, ui) {
    const v = view(table);
    if (current && current.table.version !== table.version) {
      $('sj-pick-error').textContent = '';
      // The tapped square was covered (here or on another phone): nothing left to ask.
      if (selected && v.cells.has(selected) && v.cells.get(selected).covered) selected = null;
    }
    current = { table, ui };
    renderTurn(v, ui);
    renderRack(v, table, ui);
    renderActions(v, table, ui);
    renderBoard(v, ui);
    renderPick(v, ui);
    renderPlayers(v, ui);
    renderHistory(v, ui);
  }

  window.CompanionGame = {
    keepAwake(table) { return !table.finished; },
    render,
  };
})();
