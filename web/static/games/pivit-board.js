// Pivit, the board game: a touch board that mirrors the one on the table. Tap a piece, its
// legal targets light up, tap a target. Around the board: whose turn it is, each player's
// masters, minions and captures, the history with a take-back, the turn clock, and the
// practice computer's move (the engine's `suggestion`, sent as an ordinary move).
// Everything the board offers comes from the engine's view (`moves`, each piece's
// `targets`), so the page never offers a move the rules forbid.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const storage = window.Companion.storage;

  // Colour is never the only signal: each player also has a shape, and masters have
  // double arrows and a gold edge.
  const SHAPE_WORDS = ['round', 'square', 'diamond', 'six-sided'];
  const ARROWS = { minion: { vertical: '↕', horizontal: '↔' }, master: { vertical: '⇕', horizontal: '⇔' } };

  let table = null;
  let ui = null;
  let selected = null; // the square of the piece this phone picked up
  let busy = false; // a move is on its way to the service
  let note = ''; // why the last tap did nothing

  // -- reading the view ------------------------------------------------------

  const state = () => table.state;
  const nameOf = (i) => state().players[i].name;
  const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`;

  function pieceAt(square) {
    return state().pieces.find((p) => p.square === square) || null;
  }

  function pieceWords(piece) {
    const along = piece.axis === 'vertical' ? 'along its file' : 'along its rank';
    return `${nameOf(piece.owner)}'s ${piece.kind}, arrows ${along}`;
  }

  // May this phone move now? A phone that says whose it is moves only for that player;
  // a phone "just watching" (one phone passed round the table) moves for whoever is to move.
  function mayMove() {
    const s = state();
    return !s.finished && s.turn !== null && (ui.me === null || ui.me === s.turn);
  }

  // -- turning the board to match where this phone's player sits ---------------

  const turnKey = () => 'pivit-board:turn:' + table.id;
  function quarterTurns() {
    const value = Number(storage.get(turnKey()));
    return Number.isInteger(value) && value >= 0 && value < 4 ? value : 0;
  }

  // The square drawn at column x, row y (0, 0 = top left) with the board turned k quarter
  // turns clockwise: undo the turns one at a time, then read it as seen from rank 1.
  function squareAt(x, y, k) {
    const n = state().board_size;
    for (let i = 0; i < k; i++) [x, y] = [y, n - 1 - x];
    return state().files[x] + String(n - y);
  }

  // -- drawing ---------------------------------------------------------------

  function disc(piece, turned, extraClass) {
    let axis = piece.axis;
    if (turned) axis = axis === 'vertical' ? 'horizontal' : 'vertical';
    return ui.el('span', { class: `pb-disc owner-${piece.owner} ${piece.kind} ${extraClass || ''}`, 'aria-hidden': 'true' },
      ui.el('span', { class: 'pb-disc-face', text: ARROWS[piece.kind][axis] }));
  }

  function drawBoard() {
    const s = state();
    const n = s.board_size;
    const k = quarterTurns();
    const corners = new Set(s.corners);
    const targets = selected ? (s.moves[selected] || []) : [];
    const last = s.last_move && !s.last_move.timeout ? s.last_move : null;
    const tapping = mayMove();
    const squares = [];
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const name = squareAt(x, y, k);
        const piece = pieceAt(name);
        const file = name[0];
        const rank = name.slice(1);
        const dark = (s.files.indexOf(file) + Number(rank)) % 2 === 1; // a1 is dark, as in chess
        const isTarget = targets.includes(name);
        const movable = !!(piece && piece.movable && tapping);
        const classes = ['pb-square', dark ? 'dark' : 'light'];
        let label = name + (corners.has(name) ? ', corner' : '');
        label += piece ? ', ' + pieceWords(piece) : ', empty';
        let stateWord = piece ? 'piece' : 'empty';
        if (corners.has(name)) classes.push('corner');
        if (movable) { classes.push('movable'); label += ', can move'; }
        if (selected === name) { classes.push('selected'); label += ', picked up: tap again to put it down'; stateWord = 'selected'; }
        if (isTarget) {
          const mover = pieceAt(selected);
          const promotes = mover && mover.kind === 'minion' && corners.has(name);
          classes.push(piece ? 'capture' : 'target');
          label += piece ? `: capture it with the piece on ${selected}` : `: move the piece on ${selected} here`;
          if (promotes) label += ' and promote it to master';
          stateWord = piece ? 'capture' : 'target';
        }
        if (last && last.from === name) { classes.push('last-from'); label += ', last move from here'; }
        if (last && last.to === name) { classes.push('last-to'); label += ', last move to here'; }
        const children = [];
        if (corners.has(name)) children.push(ui.el('span', { class: 'pb-corner-mark', 'aria-hidden': 'true', text: '★' }));
        if (piece) children.push(disc(piece, k % 2 === 1));
        if (isTarget) children.push(ui.el('span', { class: 'pb-mark', 'aria-hidden': 'true' }));
        // Coordinates along the bottom and the left edge, whichever way the board is turned.
        if (y === n - 1) children.push(ui.el('span', { class: 'pb-coord bottom', 'aria-hidden': 'true', text: k % 2 === 0 ? file : rank }));
        if (x === 0) children.push(ui.el('span', { class: 'pb-coord left', 'aria-hidden': 'true', text: k % 2 === 0 ? rank : file }));
        squares.push(ui.el('button', {
          type: 'button', class: classes.join(' '), 'aria-label': label,
          'aria-pressed': selected === name ? 'true' : null,
          disabled: busy || null,
          dataset: { square: name, state: stateWord },
          onclick: () => tapSquare(name),
        }, children));
      }
    }
    const board = $('pb-board');
    board.className = `pb-board size-${n}` + (busy ? ' busy' : '');
    board.setAttribute('aria-label', `Board, ${n} by ${n}, ${squareAt(0, n - 1, k)} at the bottom left`);
    board.replaceChildren(...squares);
  }

  function drawTurn() {
    const s = state();
    const box = $('pb-turn');
    box.hidden = s.finished; // the outcome box says who won
    if (s.finished) {
      box.replaceChildren();
      return;
    }
    const mine = ui.me === s.turn;
    box.replaceChildren(
      disc({ owner: s.turn, kind: 'minion', axis: 'vertical' }, false, 'swatch'),
      ui.el('span', {}, [
        ui.el('strong', { text: `${s.turn_name} to move` }),
        mine ? ui.el('span', { class: 'pb-yours', text: ': your turn!' }) : '',
        ui.el('span', { class: 'pb-turn-number', text: ` (turn ${s.history.length + 1})` }),
      ]),
    );
    box.dataset.mine = mine ? '1' : '0';
  }

  function drawOutcome() {
    const s = state();
    const box = $('pb-outcome');
    box.hidden = !s.finished;
    if (!s.finished) return;
    const o = s.outcome;
    const names = o.winner_names;
    $('pb-winner').textContent = `${names.join(' and ')} ${names.length > 1 ? 'win' : 'wins'} the game!`;
    let why = `${o.reason[0].toUpperCase()}${o.reason.slice(1)}. Masters: ` +
      s.players.map((p) => `${p.name} ${o.masters[p.index]}`).join(', ') + '.';
    const best = Math.max(...o.masters);
    const tied = s.players.filter((p) => p.in_game && o.masters[p.index] === best);
    if (o.reason !== 'only one player remains' && tied.length > 1 && o.winners.length === 1) {
      const w = s.players[o.winners[0]];
      why += ` Tied on ${plural(best, 'master')}: ${w.name} got a first master earliest` +
        (w.first_master_turn ? ` (turn ${w.first_master_turn}).` : '.');
    }
    $('pb-why').textContent = why;
  }

  function drawHint() {
    const s = state();
    let text = '';
    if (s.finished) text = '';
    else if (busy) text = 'Sending the move…';
    else if (note) text = note;
    else if (selected) {
      const targets = s.moves[selected] || [];
      text = `Picked up the ${pieceAt(selected).kind} on ${selected}: tap a marked square ` +
        `(${targets.join(', ')}), or tap it again to put it down.`;
    } else if (mayMove()) {
      text = `Tap one of ${ui.me === s.turn ? 'your' : s.turn_name + "'s"} pieces: those that can move have a dashed frame.`;
    } else {
      text = `Waiting for ${s.turn_name}'s move.`;
    }
    $('pb-hint').textContent = text;
  }

  function drawTools() {
    const s = state();
    const computer = $('pb-computer');
    computer.hidden = s.finished || !s.suggestion;
    if (!computer.hidden) {
      computer.textContent = `Computer move for ${s.turn_name}`;
      computer.setAttribute('aria-label', `Computer move for ${s.turn_name}`);
    }
    computer.disabled = busy;
    const k = quarterTurns();
    $('pb-rotate').setAttribute('aria-label',
      `Turn the board a quarter turn (now ${squareAt(0, s.board_size - 1, k)} is at the bottom left)`);
    const clock = $('pb-clock');
    const lines = [];
    if (s.clock_seconds && !s.finished) {
      lines.push(`Turn clock: ${s.clock_seconds} s a turn on the timer. If it runs out, ${s.turn_name} loses the turn.`);
    }
    if (s.quiet_limit) {
      lines.push(`Quiet turns: ${s.quiet_turns} of ${s.quiet_limit} (the game ends after ${s.quiet_limit} turns without a capture or promotion).`);
    }
    clock.hidden = lines.length === 0;
    clock.textContent = lines.join(' ');
    const last = $('pb-last');
    last.hidden = !s.last_move;
    last.textContent = s.last_move ? 'Last: ' + s.last_move.text : '';
  }

  function playerCard(p) {
    const s = state();
    const mine = ui.me === p.index;
    const won = s.finished && s.winners.includes(p.index);
    const badges = [];
    if (s.turn === p.index) badges.push(ui.el('span', { class: 'badge pb-badge to-move', text: '▶ to move' }));
    if (won) badges.push(ui.el('span', { class: 'badge pb-badge won', text: '★ winner' }));
    if (!p.in_game) badges.push(ui.el('span', { class: 'badge pb-badge out', text: 'out' }));
    const captured = p.captured.length
      ? p.captured.map((piece) => ui.el('span', { class: 'pb-captured-piece' }, [
        disc(piece, false, 'small'), ui.el('span', { class: 'visually-hidden', text: `${nameOf(piece.owner)}'s ${piece.kind}` })]))
      : ['none'];
    return ui.el('li', {
      class: 'player pb-player' + (mine ? ' mine' : '') + (p.in_game ? '' : ' inactive') + (s.turn === p.index ? ' to-move' : ''),
      dataset: { player: String(p.index) },
      'aria-label': p.name + (mine ? ' (you)' : '') + (s.turn === p.index ? ', to move' : '') + (won ? ', winner' : ''),
    }, [
      ui.el('div', { class: 'player-head' }, [
        ui.el('h4', { class: 'name' }, [
          disc({ owner: p.index, kind: 'minion', axis: 'vertical' }, false, 'swatch'),
          ui.el('span', {}, [p.name, mine ? ui.el('span', { class: 'you', text: ' (you)' }) : null])]),
        ui.el('p', { class: 'score' }, [ui.el('strong', { class: 'points masters', text: String(p.masters) }),
          p.masters === 1 ? ' master' : ' masters']),
      ]),
      badges.length ? ui.el('p', { class: 'pb-badges' }, badges) : null,
      ui.el('p', { class: 'pb-counts', text: `${SHAPE_WORDS[p.index]} pieces · ${plural(p.minions, 'minion')} on the board · lost ${p.lost}` }),
      ui.el('p', { class: 'pb-captured' }, [`Captured ${p.captured.length}: `].concat(captured)),
      p.first_master_turn ? ui.el('p', { class: 'pb-first-master', text: `First master on turn ${p.first_master_turn}` }) : null,
    ]);
  }

  function drawHistory() {
    const s = state();
    $('pb-history-empty').hidden = s.history.length > 0;
    const items = s.history.slice().reverse().map((h) => ui.el('li', {
      value: String(h.turn), class: 'pb-turn-entry' + (h.timeout ? ' timeout' : '') + (h.captured ? ' took' : '') + (h.promoted ? ' promoted' : ''),
      dataset: { turn: String(h.turn) },
    }, [ui.el('span', { class: 'pb-entry-mark', 'aria-hidden': 'true', text: h.timeout ? '–' : (h.promoted ? '★' : (h.captured ? '✕' : '·')) }), ' ', h.text]));
    $('pb-history').replaceChildren(...items);
    // Take back = the table's own undo (everyone's phone changes at once).
    const back = $('pb-takeback');
    const undo = $('undo');
    const last = s.history[s.history.length - 1];
    back.hidden = !undo || !table.can_undo || !last;
    if (!back.hidden) {
      const what = last.timeout ? `${last.name}'s lost turn` : `${last.name}'s ${last.label}`;
      back.textContent = last.timeout ? `Take back ${last.name}'s lost turn` : `Take back ${last.label}`;
      back.setAttribute('aria-label', `Take back ${what}`);
    }
    back.disabled = busy;
    $('pb-record').textContent = s.record;
    $('pb-position').textContent = s.position;
  }

  function draw() {
    if (!table) return;
    drawTurn();
    drawOutcome();
    drawHint();
    drawBoard();
    drawTools();
    $('pb-players').replaceChildren(...state().players.map(playerCard));
    drawHistory();
  }

  // -- taps ------------------------------------------------------------------

  function tapSquare(square) {
    if (!table || busy || state().finished) return; // the outcome box says the game is over
    const s = state();
    note = '';
    if (selected && (s.moves[selected] || []).includes(square)) {
      move(`${selected}-${square}`);
      return;
    } else if (selected === square) {
      selected = null;
    } else {
      selected = null;
      const piece = pieceAt(square);
      if (piece && s.moves[square] && piece.owner === s.turn) {
        if (mayMove()) selected = square;
        else note = `It is ${s.turn_name}'s turn and this phone is ${nameOf(ui.me)}'s. (To move for anyone, choose "just watching" under This phone.)`;
      } else if (piece && piece.owner === s.turn) {
        note = `The ${piece.kind} on ${square} has no legal move now: its path is blocked.`;
      } else if (piece) {
        note = `${pieceWords(piece)}. It is ${s.turn_name}'s turn.`;
      }
    }
    draw();
  }

  async function move(text) {
    const s = state();
    busy = true;
    draw();
    const result = await ui.act({ type: 'move', player: s.turn, move: text, expected_version: table.version });
    busy = false;
    if (result) selected = null;
    draw();
  }

  $('pb-computer').addEventListener('click', () => {
    if (!table || busy || state().finished || !state().suggestion) return;
    selected = null;
    note = '';
    move(state().suggestion);
  });
  $('pb-rotate').addEventListener('click', () => {
    if (!table) return;
    storage.set(turnKey(), String((quarterTurns() + 1) % 4));
    draw();
  });
  $('pb-takeback').addEventListener('click', () => {
    const undo = $('undo');
    if (undo && !undo.disabled) undo.click();
  });

  window.CompanionGame = {
    keepAwake(t) { return !t.finished; },

    render(t, u) {
      const previous = table;
      table = t;
      ui = u;
      if (previous && previous.version !== t.version) {
        // Someone moved (or took a move back): a piece picked up here no longer means anything.
        selected = null;
        note = '';
        const s = t.state;
        const nowMine = !s.finished && u.me !== null && u.me === s.turn && previous.state.turn !== s.turn;
        if (nowMine && navigator.vibrate) navigator.vibrate(120);
      }
      if (selected && !(t.state.moves || {})[selected]) selected = null;
      draw();
    },
  };
})();
