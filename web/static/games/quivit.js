// Quivit on the phones. Two ways to play: the digital deal (the 5 x 5 grid is drawn here; tap a
// card, then a rotation) and scorekeeping for the real deck (record the cards each turn took).
// Around them: Color Blocks, the colour die, the Double Rotate card and free links, the timed
// turn (the countdown is the page's timer panel), Drain the Deck's kept-apart cards, Family Play
// teams, the final draw, and the best-rotation hint. Every button comes from the engine's allowed
// actions, so the page never offers what the rules forbid; names are set as text only.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const COLOR = { R: 'red', G: 'green', B: 'blue', Y: 'yellow' };
  const COLORS = ['R', 'G', 'B', 'Y'];
  const QUADRANTS = ['top-left', 'top-right', 'bottom-right', 'bottom-left'];
  const DIRECTION_WORDS = { right: 'right', left: 'left', double: 'twice (Double Rotate)' };
  const VALUES = [3, 2, 1, -1];
  const TOP_HINTS = 5;

  // What this phone is doing between two taps (a selected card, a hint on show, the take being
  // counted). It outlives re-renders from the stream and is forgotten when the turn moves on.
  const local = { key: null, selected: null, showing: null, draft: null };
  let current = null; // the last table and ui, to redraw after a tap that changed only `local`

  const points = (n) => `${n} point${n === 1 || n === -1 ? '' : 's'}`;
  const cards = (n) => `${n} card${n === 1 ? '' : 's'}`;
  const valueText = (v) => (v < 0 ? '−' + Math.abs(v) : String(v));

  // -- who may tap what on this phone -----------------------------------------------------

  // A phone that says who it is shows its own side's buttons (a Family Play team sits together,
  // so a teammate's phone taps for the member whose turn it is); a shared phone ("just watching")
  // shows everyone's.
  function mySide(s, ui) {
    const me = ui.me;
    return me !== null && me >= 0 && me < s.players.length ? s.players[me].side : null;
  }

  function mine(action, s, ui) {
    const side = mySide(s, ui);
    if (side === null) return true;
    return action.player !== undefined && s.players[action.player].side === side;
  }

  // Block and final-draw actions come once per member of a side; a phone needs one per side,
  // preferably its own player's.
  function onePerSide(actions, s, ui) {
    const bySide = new Map();
    for (const a of actions) {
      const side = s.players[a.player].side;
      if (!bySide.has(side) || a.player === ui.me) bySide.set(side, a);
    }
    return [...bySide.values()];
  }

  function sideName(s, side) { return s.sides[side].name; }

  function whoseTurn(s) {
    const cur = s.current;
    if (!cur) return '';
    return cur.side_name !== cur.name ? `${cur.side_name}: ${cur.name}` : cur.name;
  }

  // -- buttons ------------------------------------------------------------------------------

  function actButton(ui, text, aria, event, cls, key) {
    return ui.el('button', {
      type: 'button', class: 'action ' + (cls || ''), 'aria-label': aria,
      dataset: { key, type: event.type },
      onclick: async (e) => {
        const b = e.currentTarget;
        b.disabled = true;
        const result = await ui.act(event);
        b.disabled = false;
        if (result) { local.selected = null; local.showing = null; redraw(); }
      },
    }, text);
  }

  function localButton(ui, text, aria, key, onclick, cls) {
    return ui.el('button', {
      type: 'button', class: 'action ' + (cls || ''), 'aria-label': aria, dataset: { key },
      onclick: () => { onclick(); redraw(); },
    }, text);
  }

  // -- the headline ---------------------------------------------------------------------------

  function headline(s) {
    const round = s.extra_round ? `Drain the Deck round ${s.round}` : `Round ${s.round} of ${s.rounds}`;
    const who = whoseTurn(s);
    const digital = s.mode === 'digital';
    switch (s.phase) {
      case 'color-blocking':
        return `${round} · ${who}'s turn. Color Blocking: anyone holding a Color Block may play it now, ` +
          `then ${s.current.name} starts the turn.`;
      case 'color-die': return `${round} · ${who}'s turn: roll the color die.`;
      case 'turn':
        return digital ? `${round} · ${who}'s turn: tap a card, then rotate it.`
          : `${round} · ${who}'s turn: rotate a card on the table, then record the cards it took.`;
      case 'final-draw': return 'The rounds are over. A side still holding its Double Rotate card may draw one card.';
      case 'game-over': return 'The game is over.';
      default: return s.phase;
    }
  }

  // -- the die --------------------------------------------------------------------------------

  function renderDie(ui, s) {
    const box = $('qv-die');
    box.hidden = !s.options.random_color || s.finished || s.phase === 'final-draw';
    if (box.hidden) return;
    if (s.die) {
      box.replaceChildren(
        ui.el('span', { class: `qv-die-face qv-c-${s.die}`, 'aria-hidden': 'true', text: s.die }),
        ui.el('span', { class: 'qv-die-text' }, ['Color die: ', ui.el('strong', { text: COLOR[s.die] }),
          `. Only ${COLOR[s.die]} links score this turn.`]));
    } else {
      box.replaceChildren(
        ui.el('span', { class: 'qv-die-face qv-die-blank', 'aria-hidden': 'true', text: '?' }),
        ui.el('span', { class: 'qv-die-text', text: 'Color die: not rolled yet this turn.' }));
    }
  }

  // -- what this phone may do now ---------------------------------------------------------

  function renderStep(ui, table) {
    const s = table.state;
    const box = $('qv-step');
    const mineActions = table.actions.filter((a) => mine(a, s, ui));
    const parts = [];
    const digital = s.mode === 'digital';
    if (s.phase === 'color-blocking') {
      const blocks = onePerSide(mineActions.filter((a) => a.type === 'block'), s, ui);
      for (const b of blocks) {
        const side = sideName(s, s.players[b.player].side);
        if (digital) {
          parts.push(ui.el('p', { class: 'qv-instruction', text: `${side}: to play your Color Block, tap the card to block in the grid.` }));
        } else {
          parts.push(actButton(ui, `Play the Color Block (${side})`, `${side}: play the Color Block on a card on the table`,
            { type: 'block', player: b.player }, '', `block-${b.player}`));
        }
      }
      const start = mineActions.find((a) => a.type === 'start-turn');
      if (start) {
        parts.push(actButton(ui, `Start ${s.current.name}'s turn`, `Start ${s.current.name}'s turn: no more Color Blocks`,
          { type: 'start-turn', player: start.player }, 'primary big', 'start-turn'));
      }
    } else if (s.phase === 'color-die') {
      const roll = mineActions.find((a) => a.type === 'roll');
      if (roll && digital) {
        parts.push(actButton(ui, 'Roll the color die', `${s.current.name}: roll the color die`,
          { type: 'roll', player: roll.player }, 'primary big', 'roll'));
      } else if (roll) {
        parts.push(ui.el('p', { class: 'qv-instruction', text: 'Roll the real die and tap its colour, or let the companion roll.' }));
        const row = ui.el('div', { class: 'actions qv-colors' });
        for (const c of roll.colors || COLORS) {
          row.append(actButton(ui, ui.el('span', {}, [ui.el('span', { class: `qv-swatch qv-c-${c}`, 'aria-hidden': 'true' }), COLOR[c]]),
            `The die shows ${COLOR[c]}`, { type: 'roll', player: roll.player, color: c }, 'qv-color-button', `roll-${c}`));
        }
        parts.push(row);
        parts.push(actButton(ui, 'Roll for us', `${s.current.name}: let the companion roll the color die`,
          { type: 'roll', player: roll.player }, '', 'roll'));
      }
    } else if (s.phase === 'turn') {
      const take = mineActions.find((a) => a.type === 'take');
      if (take) parts.push(takeForm(ui, s, take));
      const rotate = mineActions.find((a) => a.type === 'rotate');
      if (rotate) {
        const claim = mineActions.find((a) => a.type === 'claim-free-link');
        let text = `${s.current.name}: tap a card in the grid, then choose a rotation.`;
        if (claim) text += ' A card of a free link may instead be selected with the Double Rotate card.';
        parts.push(ui.el('p', { class: 'qv-instruction', text }));
      }
    } else if (s.phase === 'final-draw') {
      const draws = onePerSide(mineActions.filter((a) => a.type === 'draw'), s, ui);
      for (const d of draws) {
        const side = sideName(s, s.players[d.player].side);
        const row = ui.el('div', { class: 'actions qv-draw' }, [ui.el('p', { class: 'qv-instruction', text: `${side}: the Double Rotate card was not used.` })]);
        if (d.values) {
          for (const v of d.values) {
            row.append(actButton(ui, `Drew a ${valueText(v)}`, `${side} drew a card worth ${v}`,
              { type: 'draw', player: d.player, value: v }, '', `draw-${d.player}-${v}`));
          }
        } else {
          row.append(actButton(ui, 'Draw a card', `${side}: draw a card for the unused Double Rotate card`,
            { type: 'draw', player: d.player }, 'primary', `draw-${d.player}`));
        }
        row.append(actButton(ui, 'Keep it, no draw', `${side}: keep the Double Rotate card without drawing`,
          { type: 'skip-draw', player: d.player }, 'minor', `skip-${d.player}`));
        parts.push(row);
      }
    }
    // Someone else's move: say whose, and how to tap for them from this phone.
    const turnAction = s.current && table.actions.find((a) => a.player === s.current.player && a.type !== 'block');
    const othersTurn = turnAction && !mine(turnAction, s, ui);
    if (othersTurn || (!parts.length && table.actions.length)) {
      const waitingFor = s.current ? s.current.name : table.actions.map((a) => s.players[a.player].name)
        .filter((n, i, all) => all.indexOf(n) === i).join(' or ');
      parts.push(ui.el('p', { class: 'qv-waiting', text: `Waiting for ${waitingFor}. To tap for someone else, choose them (or "just watching") under This phone.` }));
    }
    box.replaceChildren(...parts);
  }

  // Scorekeeping: count the cards the turn took by value, then record them.
  function takeForm(ui, s, take) {
    const draft = local.draft || (local.draft = { counts: { 3: 0, 2: 0, 1: 0, '-1': 0 }, mode: 'plain' });
    const total = VALUES.reduce((n, v) => n + draft.counts[v], 0);
    const sum = VALUES.reduce((n, v) => n + v * draft.counts[v], 0);
    const form = ui.el('div', { class: 'qv-take', role: 'group', 'aria-label': `Cards ${s.current.name} took` });
    form.append(ui.el('p', { class: 'qv-instruction', text: `Count the cards ${s.current.name}'s rotation took, by value:` }));
    for (const v of VALUES) {
      const left = take.values_left ? take.values_left[String(v)] : 99;
      const n = draft.counts[v];
      const word = `${valueText(v)}-point`;
      const minus = localButton(ui, '−', `One fewer ${v}-point card`, `less-${v}`, () => { draft.counts[v] -= 1; }, 'qv-step-button');
      minus.disabled = n <= 0;
      const plus = localButton(ui, '+', `One more ${v}-point card`, `more-${v}`, () => { draft.counts[v] += 1; }, 'qv-step-button');
      plus.disabled = total >= take.max_cards || n >= left;
      form.append(ui.el('div', { class: 'qv-count', dataset: { value: String(v) } }, [
        ui.el('span', { class: 'qv-count-label', text: `${word} cards` }), minus,
        ui.el('output', { class: 'qv-count-n', 'aria-label': `${word} cards taken`, text: String(n) }), plus,
      ]));
    }
    const specials = [];
    if (take.may_double_rotate) specials.push(['double', 'The Double Rotate card turned it 180°']);
    if (take.may_claim_free_link) specials.push(['free', 'A free link was claimed with the Double Rotate card']);
    for (const [mode, text] of specials) {
      const id = `qv-take-${mode}`;
      const box = ui.el('input', { type: 'checkbox', id, dataset: { key: id },
        onchange: (e) => { draft.mode = e.currentTarget.checked ? mode : 'plain'; redraw(); } });
      box.checked = draft.mode === mode;
      form.append(ui.el('label', { class: 'check', for: id }, [box, text]));
    }
    const summary = `${cards(total)}, ${points(sum)}`;
    form.append(ui.el('p', { class: 'qv-take-sum', 'aria-live': 'polite', text: `Taken: ${summary}` +
      (total === 1 ? '. A link joins two cards: record none, or two or more.' : '') }));
    const values = VALUES.flatMap((v) => Array(draft.counts[v]).fill(v));
    const event = { type: 'take', player: take.player, cards: values };
    if (draft.mode === 'double') event.double_rotate = true;
    if (draft.mode === 'free') event.free_link = true;
    const record = actButton(ui, `Record: ${summary}`, `Record that ${s.current.name} took ${summary}`, event, 'primary big', 'take');
    record.disabled = total < 2;
    const row = ui.el('div', { class: 'actions' }, [record]);
    if (draft.mode !== 'free') {
      row.append(actButton(ui, 'Nothing taken', `${s.current.name} took nothing`,
        Object.assign({}, event, { cards: [] }), '', 'take-none'));
    }
    form.append(row);
    return form;
  }

  // -- the grid (digital deal) -----------------------------------------------------------------

  function cardLabel(cell, markNew) {
    if (cell.empty) return `${cell.cell}: empty`;
    if (cell.blocked) return `${cell.cell}: under a Color Block`;
    const colours = cell.colors.map((c, i) => `${COLOR[c]} ${QUADRANTS[i]}`).join(', ');
    return `${cell.cell}: ${points(cell.value)}; ${colours}` + (cell.new && markNew ? '; new' : '');
  }

  // For each place: the actions of this phone that may target it now.
  function targets(table, ui) {
    const s = table.state;
    const by = new Map();
    const add = (cell, what) => { if (!by.has(cell)) by.set(cell, []); by.get(cell).push(what); };
    for (const a of table.actions) {
      if (!mine(a, s, ui) || !a.cards) continue;
      if (a.type === 'rotate' || a.type === 'claim-free-link') for (const c of a.cards) add(c, a);
    }
    for (const a of onePerSide(table.actions.filter((a) => a.type === 'block' && a.cards && mine(a, s, ui)), s, ui)) {
      for (const c of a.cards) add(c, a);
    }
    return by;
  }

  // A hint's key: its card and rotation, and for a free-link claim the free links it scores.
  function hintKey(h) {
    return h.direction === 'free-link' ? `${h.card}:free-link:${h.links.join('')}` : `${h.card}:${h.direction}`;
  }

  function hintIndex(s) {
    const index = new Map();
    for (const h of s.hints || []) index.set(hintKey(h), h);
    return index;
  }

  function renderGrid(ui, table, tappable) {
    const s = table.state;
    const box = $('qv-grid-box');
    box.hidden = !s.grid;
    if (!s.grid) return;
    const showing = local.showing && hintIndex(s).get(local.showing);
    // Right after the deal every card is new: marking them all would say nothing.
    const placed = s.grid.flat().filter((c) => !c.empty);
    const markNew = placed.some((c) => !c.new);
    const wouldTake = new Set(showing ? showing.cards : []);
    const board = ui.el('div', { class: 'qv-board', role: 'group', 'aria-label': 'The grid: columns a to e, rows 1 to 5' });
    for (const row of s.grid) {
      for (const cell of row) {
        const canTap = tappable.has(cell.cell);
        const classes = ['qv-card'];
        if (cell.empty) classes.push('qv-empty');
        if (cell.blocked) classes.push('qv-blocked');
        if (markNew && cell.new && !cell.empty) classes.push('qv-new');
        if (local.selected === cell.cell) classes.push('qv-selected-card');
        if (wouldTake.has(cell.cell)) classes.push('qv-would-take');
        const children = [];
        if (!cell.empty) {
          // CSS lays the squares out row by row; the colours are listed clockwise.
          for (const q of [0, 1, 3, 2]) {
            children.push(ui.el('span', { class: `qv-q qv-c-${cell.colors[q]}`, 'aria-hidden': 'true', text: cell.colors[q] }));
          }
          children.push(ui.el('span', { class: 'qv-value', 'aria-hidden': 'true', text: valueText(cell.value) }));
          if (cell.blocked) children.push(ui.el('span', { class: 'qv-block-mark', 'aria-hidden': 'true', text: 'BLOCK' }));
          else if (markNew && cell.new) children.push(ui.el('span', { class: 'qv-new-mark', 'aria-hidden': 'true', text: 'new' }));
          if (wouldTake.has(cell.cell)) children.push(ui.el('span', { class: 'qv-take-mark', 'aria-hidden': 'true', text: '✓' }));
        }
        const attrs = {
          class: classes.join(' '), 'aria-label': cardLabel(cell, markNew) + (wouldTake.has(cell.cell) ? '; the hint takes it' : ''),
          dataset: { cell: cell.cell, key: 'card-' + cell.cell, value: cell.empty ? '' : String(cell.value),
                     colors: cell.empty ? '' : cell.colors.join(''), blocked: cell.blocked ? '1' : '0' },
        };
        if (canTap) {
          attrs.type = 'button';
          attrs['aria-pressed'] = local.selected === cell.cell ? 'true' : 'false';
          attrs.onclick = () => {
            local.selected = local.selected === cell.cell ? null : cell.cell;
            if (!local.showing || !local.showing.startsWith(cell.cell + ':')) local.showing = null;
            redraw();
          };
          board.append(ui.el('button', attrs, children));
        } else {
          attrs.role = 'img';
          board.append(ui.el('div', attrs, children));
        }
      }
    }
    for (const fl of s.free_links) {
      const mark = ui.el('span', { class: `qv-free-mark qv-c-${fl.color}`, 'aria-hidden': 'true', text: fl.color });
      mark.style.setProperty('left', `${fl.corner[1] * 20}%`);
      mark.style.setProperty('top', `${fl.corner[0] * 20}%`);
      board.append(mark);
    }
    const cols = ui.el('div', { class: 'qv-cols', 'aria-hidden': 'true' }, 'abcde'.split('').map((c) => ui.el('span', { text: c })));
    const rows = ui.el('div', { class: 'qv-rows', 'aria-hidden': 'true' }, '12345'.split('').map((r) => ui.el('span', { text: r })));
    $('qv-board-wrap').replaceChildren(ui.el('span', { class: 'qv-corner' }), cols, rows, board);
    $('qv-free-links').textContent = s.free_links.length
      ? 'Free links: ' + s.free_links.map((fl) => `${fl.color_name} where ${fl.cards.join(', ')} meet`).join('; ') + '.'
      : '';
  }

  // The buttons for the selected card: rotations (with the hint's points when hints are on),
  // the free-link claim, or Color Blocks.
  function renderSelection(ui, table, tappable) {
    const s = table.state;
    const box = $('qv-selected');
    const cell = local.selected;
    if (!cell || !tappable.has(cell)) { box.replaceChildren(); return; }
    const hints = hintIndex(s);
    const place = s.grid.flat().find((c) => c.cell === cell);
    const parts = [ui.el('p', { class: 'qv-selected-title' }, [ui.el('strong', { text: cell }), ` selected (${points(place.value)})`])];
    const row = ui.el('div', { class: 'actions' });
    for (const a of tappable.get(cell)) {
      if (a.type === 'rotate') {
        for (const d of a.directions) {
          const h = hints.get(`${cell}:${d}`);
          const icon = { right: '⟳ ', left: '⟲ ', double: '⟳⟳ ' }[d];
          const text = { right: 'Rotate right', left: 'Rotate left', double: 'Double Rotate 180°' }[d];
          const label = [ui.el('span', { text: icon + text })];
          if (h) label.push(ui.el('span', { class: 'qv-points', text: points(h.points) }));
          row.append(actButton(ui, ui.el('span', { class: 'qv-button-text' }, label), `Rotate ${cell} ${DIRECTION_WORDS[d]}` + (h ? `: ${points(h.points)}` : ''),
            { type: 'rotate', player: a.player, card: cell, direction: d }, d === 'double' ? 'qv-double' : 'primary', `rotate-${d}`));
        }
      } else if (a.type === 'claim-free-link') {
        // "The player may score all Free Links that the selected card is involved with": a card in
        // two free links offers both, or either alone (unless the table takes them all).
        const links = a.links[cell];
        const choices = a.may_choose && links.length > 1 ? [links, ...links.map((c) => [c])] : [links];
        for (const chosen of choices) {
          const all = chosen.length === links.length;
          const h = hints.get(`${cell}:free-link:${chosen.join('')}`);
          let text = 'Claim the free link';
          if (links.length > 1) text = all ? `Claim all ${links.length} free links` : `Claim the ${COLOR[chosen[0]]} free link only`;
          const label = [ui.el('span', { text })];
          if (h) label.push(ui.el('span', { class: 'qv-points', text: points(h.points) }));
          const event = { type: 'claim-free-link', player: a.player, card: cell };
          if (!all) event.colors = chosen;
          row.append(actButton(ui, ui.el('span', { class: 'qv-button-text' }, label),
            `${text} with ${cell} (Double Rotate card)` + (h ? `: ${points(h.points)}` : ''),
            event, 'qv-double', all ? 'claim' : `claim-${chosen.join('')}`));
        }
      } else if (a.type === 'block') {
        const side = sideName(s, s.players[a.player].side);
        row.append(actButton(ui, `Block ${cell} (${side})`, `${side}: block ${cell} with the Color Block`,
          { type: 'block', player: a.player, card: cell }, 'bad', `block-${a.player}`));
      }
    }
    row.append(localButton(ui, 'Cancel', `Cancel: unselect ${cell}`, 'unselect', () => { local.selected = null; local.showing = null; }, 'minor'));
    parts.push(row);
    box.replaceChildren(...parts);
  }

  // -- the best-rotation hint ----------------------------------------------------------------

  function hintText(h) {
    const play = h.direction === 'free-link'
      ? `${h.card}, ${h.links.map((c) => COLOR[c]).join(' and ')} free link${h.links.length > 1 ? 's' : ''}`
      : `${h.card} ${DIRECTION_WORDS[h.direction]}`;
    const taken = h.count ? `${cards(h.count)}: ${h.cards.join(' ')}` : 'no links';
    // Ranked by value: spending the Double Rotate card gives up its end-of-game draw.
    const spends = h.spends_double_rotate
      ? `; uses the Double Rotate card, worth about ${(h.points - h.value).toFixed(1)} kept to the end` : '';
    return `${play}: ${points(h.points)} (${taken})${spends}`;
  }

  function renderHints(ui, table, tappable) {
    const s = table.state;
    const box = $('qv-hints');
    box.hidden = s.hints === null || s.mode !== 'digital' || s.finished || s.phase === 'final-draw';
    if (box.hidden) return;
    const hints = s.hints;
    $('qv-hints-note').textContent = hints.length
      ? `Every card and rotation ${s.current.name} may play now, best first${s.die ? ` (only ${COLOR[s.die]} links score)` : ''}. Tap one to see it on the grid.`
      : 'The hint shows once the turn starts (after Color Blocks and the die).';
    const item = (h, i) => {
      const key = hintKey(h);
      const shown = local.showing === key;
      return ui.el('li', {}, [ui.el('button', {
        type: 'button', class: 'qv-hint' + (shown ? ' qv-hint-shown' : ''), 'aria-pressed': shown ? 'true' : 'false',
        dataset: { key: `hint-${i}`, card: h.card, direction: h.direction, points: String(h.points) },
        onclick: () => {
          local.showing = shown ? null : key;
          local.selected = !shown && tappable.has(h.card) ? h.card : local.selected;
          redraw();
        },
      }, hintText(h))]);
    };
    $('qv-hints-top').replaceChildren(...hints.slice(0, TOP_HINTS).map(item));
    $('qv-hints-all').replaceChildren(...hints.map(item));
    $('qv-hints-all-box').hidden = hints.length <= TOP_HINTS;
    $('qv-hints-all-summary').textContent = `Every card and rotation (${hints.length})`;
  }

  // -- sides, the table, the turns -----------------------------------------------------------

  function renderSides(ui, s, me) {
    const my = mySide(s, { me });
    const list = s.sides.map((side, i) => {
      const playing = s.current && s.current.side === i;
      const li = ui.el('li', {
        class: 'player qv-side' + (i === my ? ' mine' : '') + (playing ? ' qv-playing' : ''),
        dataset: { side: String(i) }, 'aria-label': side.name + (i === my ? ' (you)' : ''),
      });
      li.append(ui.el('div', { class: 'player-head' }, [
        ui.el('h3', { class: 'name' }, [side.name, i === my ? ui.el('span', { class: 'you', text: ' (you)' }) : null]),
        ui.el('p', { class: 'score' }, [ui.el('strong', { class: 'points', text: String(side.score) }), ' points']),
      ]));
      const byValue = VALUES.filter((v) => side.values[String(v)]).map((v) => `${side.values[String(v)]} × ${valueText(v)}`);
      li.append(ui.el('p', { class: 'qv-cards', text: cards(side.cards) + (byValue.length ? ` (${byValue.join(', ')})` : '') }));
      if (side.pending_cards) {
        li.append(ui.el('p', { class: 'qv-pending', text: `This round: ${points(side.pending_points)} in ${cards(side.pending_cards)}, counted when everyone has played` }));
      }
      if (side.members.length > 1) {
        const team = ['Team: ', side.members.map((p) => s.players[p].name).join(', ')];
        if (!s.finished && s.phase !== 'final-draw') team.push('. Rotates next: ', ui.el('strong', { text: s.players[side.next_player].name }));
        li.append(ui.el('p', { class: 'qv-members' }, team));
      }
      const held = [];
      if (s.options.color_blocking) held.push(side.holds_block ? '▣ Color Block: held' : '□ Color Block: played');
      if (s.options.double_rotation) {
        let dr = side.holds_double_rotate ? '⟳ Double Rotate: held' : '◌ Double Rotate: used';
        if (side.final_draw !== null) dr = `⟳ Double Rotate: drew a ${valueText(side.final_draw)}`;
        else if (side.holds_double_rotate && side.draw_decided) dr = '⟳ Double Rotate: kept, no draw';
        held.push(dr);
      }
      if (held.length) li.append(ui.el('ul', { class: 'qv-held' }, held.map((t) => ui.el('li', { text: t }))));
      let status = '';
      if (playing) status = `Playing now: ${s.players[s.current.player].name}`;
      else if (side.played_this_round) status = 'Has played this round';
      else if (s.finished) status = side.rank === 1 ? 'Winner' : `Place ${side.rank}`;
      if (status) li.append(ui.el('p', { class: 'player-status', text: status }));
      return li;
    });
    $('qv-sides').replaceChildren(...list);
  }

  function renderInfo(ui, s) {
    const o = s.options;
    const items = [];
    items.push(o.mode === 'digital' ? 'Digital deal: the companion deals and refills the grid' : 'Scorekeeping: the real cards are on the table');
    items.push(`Draw deck: ${cards(s.deck.remaining)} of ${s.deck.total}; ${cards(s.grid_count)} in the grid`);
    if (!s.finished && s.round_first !== null) {
      items.push('Order this round: ' + s.round_order.map((i) => s.sides[i].name).join(', '));
    }
    if (o.drain_the_deck) items.push(`Drain the Deck: after round ${o.rounds}, play goes on while more than ${o.drain_threshold} cards are left in the draw deck`);
    if (o.timed) items.push(`Timed turns: ${o.timer_seconds} seconds on the timer`);
    if (o.color_blocking) items.push(`Color Blocks played: ${s.blocked_count}` + (s.blocked.length ? ` (${s.blocked.join(', ')})` : ''));
    if (o.random_color) items.push('Random Color: the die decides which colour scores');
    if (o.double_rotation) items.push('Double Rotation: one Double Rotate card per side');
    $('qv-info').replaceChildren(...items.map((t) => ui.el('li', { text: t })));
  }

  function playText(s, t) {
    const die = t.die ? ` (die: ${COLOR[t.die]})` : '';
    const taken = t.cards.length
      ? t.cards.map((c) => (c.cell ? `${c.cell} (${valueText(c.value)})` : valueText(c.value))).join(', ')
      : 'nothing';
    switch (t.action) {
      case 'rotate': return `${t.card} ${DIRECTION_WORDS[t.direction]}${die}: ${taken}`;
      case 'free-link': return `free link${t.card ? ' at ' + t.card : ''}${die}: ${taken}`;
      case 'take': return `${t.direction === 'double' ? 'Double Rotate, ' : ''}took ${taken}${die}`;
      case 'timeout': return `time ran out${die}: nothing`;
      case 'final-draw': return `drew a card for the unused Double Rotate card: ${taken}`;
      default: return t.action;
    }
  }

  function renderHistory(ui, s) {
    const rows = s.history.slice().reverse().map((t) => {
      const who = s.players[t.player].name + (s.sides[t.side].name !== s.players[t.player].name ? ` (${s.sides[t.side].name})` : '');
      const turn = t.turn === null ? 'end' : `${t.turn}` + (t.round ? ` · r${t.round}` : '');
      return ui.el('tr', {}, [
        ui.el('th', { scope: 'row', text: turn }), ui.el('td', { text: who }), ui.el('td', { text: playText(s, t) }),
        ui.el('td', { text: (t.points > 0 ? '+' : '') + t.points + (t.counted_later ? ' (at round end)' : '') }),
      ]);
    });
    $('qv-history').replaceChildren(...rows);
    $('qv-history-box').hidden = rows.length === 0;
  }

  function renderWinner(ui, s) {
    const box = $('qv-winner');
    box.hidden = !s.finished;
    if (!s.finished) return;
    const names = s.winning_sides.map((i) => s.sides[i].name);
    const best = s.sides[s.winning_sides[0]];
    const text = names.length > 1
      ? `Shared win: ${names.join(' and ')}, ${points(best.score)} and ${cards(best.cards)} each!`
      : `Winner: ${names[0]}, with ${points(best.score)}!`;
    const parts = [ui.el('p', { class: 'winner', text })];
    if (s.end_reason) parts.push(ui.el('p', { class: 'hint', text: `The game ended: ${s.end_reason}.` }));
    if (s.uncounted_cards) {
      parts.push(ui.el('p', { class: 'hint', text: `${cards(s.uncounted_cards)} (${points(s.uncounted_points)}) of the unfinished round were not counted.` }));
    }
    parts.push(ui.el('ol', { class: 'qv-standings' }, s.standings.map((r) => ui.el('li', {
      text: `${r.rank}. ${r.name}: ${points(r.score)}, ${cards(r.cards)}`,
    }))));
    box.replaceChildren(...parts);
  }

  // -- drawing everything ------------------------------------------------------------------------

  function draw(table, ui) {
    const s = table.state;
    const key = `${table.id}|${s.turn}|${s.phase}`;
    if (key !== local.key) { local.key = key; local.draft = null; local.showing = null; }
    const tappable = targets(table, ui);
    if (local.selected && !tappable.has(local.selected)) local.selected = null;

    // Redrawing replaces the buttons: keep the keyboard (or screen reader) where it was.
    const active = document.activeElement;
    const focusKey = active && active.closest && active.closest('#quivit') ? active.dataset.key : null;

    $('qv-phase').textContent = headline(s);
    $('qv-last').textContent = s.last || '';
    renderWinner(ui, s);
    renderDie(ui, s);
    renderStep(ui, table);
    renderGrid(ui, table, tappable);
    renderSelection(ui, table, tappable);
    renderHints(ui, table, tappable);
    renderSides(ui, s, ui.me);
    renderInfo(ui, s);
    renderHistory(ui, s);

    if (focusKey) {
      const again = document.querySelector(`#quivit [data-key="${CSS.escape(focusKey)}"]`);
      if (again && again !== document.activeElement) again.focus({ preventScroll: true });
    }
  }

  function redraw() { if (current) draw(current.table, current.ui); }

  window.CompanionGame = {
    keepAwake(table) { return !table.finished; },
    render(table, ui) {
      current = { table, ui };
      draw(table, ui);
    },
  };
})();
