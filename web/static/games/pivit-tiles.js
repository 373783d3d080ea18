// Pivit, the tile game: the round and its phase, the big "Go!", and per player the score, trade
// tokens, stick and what they may do now. Buttons come from the engine's allowed actions, so the
// page never offers what the rules forbid.
//
// This phone is a player: a phone that chose "I am Ann" shows Ann's card first with her buttons
// large; another player's Trade, Done, Return the stick and Leave stay folded behind an explicit
// "Tap for Bob", good for one tap (a table may share a phone, but a stray tap must not act for
// someone else).
// Checking someone's grid is what the others do, so those buttons are on every card. A phone on
// "just watching" (one phone passed round the table, as in the other games) shows every player's buttons.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);

  const PHASES = {
    setup: (s) => (s.round ? `Round ${s.round} is over. ` : '') + `Round ${s.round + 1}: everyone draws ${s.options.tiles} tiles face down, then say go.`,
    playing: (s) => `Round ${s.round}: build your grid!`,
    verifying: (s) => `Round ${s.round}: all sticks are taken. Verify every stick holder's grid.`,
    race: (s) => `Round ${s.round}: one-minute race for the last stick.`,
    'last-minute': (s) => `Round ${s.round}: one minute left for the other player.`,
    scored: (s) => `Round ${s.round} is scored.`,
    finished: () => 'The game is over.',
  };

  // Players this phone has chosen to tap for (besides its own), until it says it is done.
  const actingFor = new Set();

  function statusOf(p, s) {
    if (!p.active) return 'Left the game';
    if (p.waiting_verify) return 'Done: waiting for the grid to be verified';
    if (p.racing) return 'Racing for the stick';
    if (p.verified === true) return 'Grid verified correct';
    if (p.verified === false) return 'Grid NOT correct';
    if (p.stick !== null && p.stick !== undefined) return 'Done: took a stick';
    if (s.phase === 'playing') return 'Building the grid';
    return '';
  }

  // The text on a button, and the accessible name that says whose it is.
  function label(action, name) {
    switch (action.type) {
      case 'trade': return ['Trade a tile', `${name}: trade a tile`];
      case 'done': return ['Done!', `${name}: done`];
      case 'return-stick': return ['Return the stick', `${name}: return the stick`];
      case 'leave': return ['Leave the game', `${name}: leave the game`];
      default: return [action.type.replace(/-/g, ' '), `${name}: ${action.type.replace(/-/g, ' ')}`];
    }
  }

  function button(ui, text, ariaLabel, event, extraClass) {
    return ui.el('button', {
      type: 'button', class: 'action ' + (extraClass || ''), 'aria-label': ariaLabel,
      dataset: { type: event.type, player: event.player === undefined ? '' : String(event.player) },
      onclick: async (e) => {
        const b = e.currentTarget;
        if (event.type === 'leave' && !window.confirm(ariaLabel + '?')) return;
        b.disabled = true;
        let done = null;
        try { done = await ui.act(event); } finally { b.disabled = false; }
        // Tapping for someone else is for one tap: the next one needs the choice again.
        if (done && actingFor.delete(event.player)) ui.rerender();
      },
    }, text);
  }

  function tokens(ui, left, total) {
    const dots = '●'.repeat(left) + '○'.repeat(Math.max(0, total - left));
    return ui.el('p', { class: 'tokens' }, [
      ui.el('span', { class: 'dots', 'aria-hidden': 'true', text: dots + ' ' }),
      `Trade tokens: ${left} of ${total}`,
    ]);
  }

  function verifyButtons(ui, table, i, name) {
    return [
      ui.el('p', { class: 'verify-ask', text: `Check ${name}'s grid:` }),
      button(ui, 'Grid correct', `${name}'s grid is correct`, { type: 'verify', player: i, valid: true, source: 'manual' }, 'good'),
      button(ui, 'Grid not correct', `${name}'s grid is not correct`, { type: 'verify', player: i, valid: false, source: 'manual' }, 'bad'),
      ui.el('button', {
        type: 'button', class: 'action camera', 'aria-label': `Check ${name}'s grid with the camera`,
        onclick: () => window.PivitCamera.open(ui, table, i),
      }, 'Check with camera'),
    ];
  }

  function playerCard(ui, table, i) {
    const s = table.state;
    const p = s.players[i];
    const me = ui.me;
    const mine = me === i;
    const shared = me === null; // one phone for everyone
    const own = table.actions.filter((a) => a.player === i && a.type !== 'verify');
    const verify = table.actions.some((a) => a.player === i && a.type === 'verify');
    const card = ui.el('li', {
      class: 'player' + (mine ? ' mine' : '') + (p.active ? '' : ' inactive'),
      dataset: { player: String(i) }, 'aria-label': p.name + (mine ? ' (you)' : ''),
    });
    card.append(ui.el('div', { class: 'player-head' }, [
      ui.el('h3', { class: 'name' }, [p.name, mine ? ui.el('span', { class: 'you', text: ' (you)' }) : null]),
      ui.el('p', { class: 'score' }, [ui.el('strong', { class: 'points', text: String(p.score) }), ' points']),
    ]));
    card.append(tokens(ui, p.tokens, s.options.tokens));
    if (p.stick !== null && p.stick !== undefined) {
      card.append(ui.el('p', { class: 'stick', text: `Holds the ${p.stick} stick` }));
    }
    const status = statusOf(p, s);
    if (status) card.append(ui.el('p', { class: 'player-status', text: status }));
    const row = ui.el('div', { class: 'actions' + (mine ? ' mine' : '') });
    if (verify) row.append(...verifyButtons(ui, table, i, p.name));
    const open = mine || shared || actingFor.has(i);
    if (open) {
      for (const action of own) {
        const [text, aria] = label(action, p.name);
        row.append(button(ui, text, aria, action, { done: 'primary', leave: 'minor' }[action.type] || ''));
      }
    }
    // "I'm stuck": on my own card, while I am still building a grid, at tables that allow hints.
    const building = ['playing', 'race', 'last-minute'].includes(s.phase) && p.active && !p.done
      && (s.phase !== 'race' || p.racing);
    if (mine && s.options.hints && building) {
      row.append(ui.el('button', {
        type: 'button', class: 'action stuck', 'aria-label': `${p.name}: I'm stuck, show me a hint`,
        onclick: () => window.PivitHints.open(ui, table, i),
      }, "I'm stuck"));
    }
    if (!mine && !shared && own.length) {
      const acting = actingFor.has(i);
      row.append(ui.el('button', {
        type: 'button', class: 'action for-other' + (acting ? ' acting' : ''),
        'aria-label': acting ? `Stop tapping for ${p.name}` : `Tap for ${p.name} on this phone`,
        'aria-expanded': acting ? 'true' : 'false',
        onclick: () => { if (acting) actingFor.delete(i); else actingFor.add(i); ui.rerender(); },
      }, acting ? `Done tapping for ${p.name}` : `Tap for ${p.name}…`));
    }
    if (row.childElementCount) card.append(row);
    return card;
  }

  function renderRounds(ui, table) {
    const s = table.state;
    const head = $('pv-rounds-head');
    const body = $('pv-rounds-body');
    head.replaceChildren(ui.el('tr', {}, [ui.el('th', { scope: 'col', text: 'Round' })]
      .concat(s.players.map((p) => ui.el('th', { scope: 'col', text: p.name })))));
    body.replaceChildren(...s.rounds.map((r) => ui.el('tr', {}, [ui.el('th', { scope: 'row', text: String(r.round) })]
      .concat(r.points.map((pts, i) => ui.el('td', {
        text: `+${pts}` + (r.sticks[i] !== null && r.sticks[i] !== undefined ? ` (stick ${r.sticks[i]})` : ''),
      }))))));
    $('pv-rounds-box').hidden = s.rounds.length === 0;
  }

  window.CompanionGame = {
    keepAwake(table) {
      return !table.finished && ['playing', 'verifying', 'race', 'last-minute'].includes(table.state.phase);
    },

    // The countdown's work is done once the round is scored: its "Time's up!" may go.
    timerOver(table) {
      return ['scored', 'setup', 'finished'].includes(table.state.phase);
    },

    timerName(table) {
      return table.state.phase === 'race' ? 'the one-minute race' : 'the one-minute timer';
    },

    render(table, ui) {
      const s = table.state;
      $('pv-phase').textContent = (PHASES[s.phase] || (() => s.phase))(s) + (table.finished ? '' : ` First to ${s.target} wins.`);
      $('pv-last').textContent = s.last || '';
      const tableActions = $('pv-table-actions');
      tableActions.replaceChildren(...table.actions.filter((a) => a.player === undefined).map((a) => {
        if (a.type === 'start-round') return button(ui, `Go! Start round ${s.round + 1}`, `Go: start round ${s.round + 1}`, a, 'primary big');
        if (a.type === 'next-round') return button(ui, 'Next round', 'Next round', a, 'primary big');
        return button(ui, a.type.replace(/-/g, ' '), a.type.replace(/-/g, ' '), a);
      }));
      $('pv-centre').textContent = s.two_player ? '' :
        (s.centre_sticks.length ? `Sticks in the centre: ${s.centre_sticks.join(', ')}` : (s.phase === 'setup' ? '' : 'No sticks left in the centre'));
      const winner = $('pv-winner');
      winner.hidden = !table.finished;
      if (table.finished) {
        const names = s.winners.map((i) => s.players[i].name);
        winner.textContent = names.length ? `${names.join(' and ')} ${names.length > 1 ? 'win' : 'wins'} the game!` : 'The game is over.';
      }
      const order = s.players.map((_, i) => i);
      const me = ui.me;
      if (me !== null && me >= 0 && me < order.length) { order.splice(me, 1); order.unshift(me); }
      for (const i of actingFor) if (i === me) actingFor.delete(i);
      $('pv-players').replaceChildren(...order.map((i) => playerCard(ui, table, i)));
      renderRounds(ui, table);
      if (window.PivitCamera) window.PivitCamera.refresh(table);
    },
  };
})();
