// The new-table form: players for the chosen game, its options, and creating the table.
(function () {
  'use strict';
  const { el, postJson, storage } = window.Companion;
  const form = document.getElementById('new-table');
  if (!form) return;
  const gameSelect = document.getElementById('game');
  const list = document.getElementById('player-list');
  const errorBox = document.getElementById('form-error');

  function limits() {
    const option = gameSelect.selectedOptions[0];
    return { min: Number(option.dataset.min), max: Number(option.dataset.max) };
  }

  function addPlayer(name) {
    const n = list.children.length + 1;
    const id = 'player-' + n;
    list.append(el('li', {}, [
      el('label', { for: id, text: 'Player ' + n }),
      el('input', { id, name: 'player', type: 'text', maxlength: '24', autocomplete: 'off', value: name || '',
                    list: 'club-players' }),
    ]));
  }

  // With a club server: "I am ..." from the club's player list, so each person's games at every
  // table and night are one history (a name not on the list joins it).
  fetch('/api/club/players').then((r) => (r.ok ? r.json() : { players: [] })).then((body) => {
    if (!body.players || !body.players.length) return;
    const names = el('datalist', { id: 'club-players' }, body.players.map((name) => el('option', { value: name })));
    const hint = el('p', { id: 'club-players-hint', class: 'hint',
      text: 'Club night: type the first letters and pick your name from the club\'s list; a new name joins the list.' });
    list.after(names, hint);
  }).catch(() => {});

  function fitPlayers() {
    const { min, max } = limits();
    while (list.children.length < min) addPlayer();
    while (list.children.length > max) list.lastElementChild.remove();
    document.getElementById('add-player').disabled = list.children.length >= max;
    document.getElementById('remove-player').disabled = list.children.length <= min;
  }

  function showOptions() {
    for (const fieldset of form.querySelectorAll('fieldset.options')) {
      const mine = fieldset.dataset.game === gameSelect.value;
      fieldset.hidden = !mine;
      fieldset.disabled = !mine;
    }
    fitPlayers();
  }

  function readOptions() {
    const fieldset = form.querySelector(`fieldset.options[data-game="${CSS.escape(gameSelect.value)}"]`);
    const options = {};
    if (!fieldset) return options;
    for (const input of fieldset.querySelectorAll('[data-option]')) {
      const key = input.dataset.option;
      const raw = input.value.trim();
      switch (input.dataset.type) {
        case 'bool': options[key] = input.checked; break;
        case 'int': case 'float':
          if (raw === '') break;
          options[key] = Number(raw);
          if (Number.isNaN(options[key])) throw new Error(`${key.replace(/_/g, ' ')} must be a number`);
          break;
        case 'auto': if (raw !== '') options[key] = Number(raw); break;
        case 'numbers':
          options[key] = raw.split(/[\s,]+/).filter(Boolean).map(Number);
          if (options[key].some(Number.isNaN)) throw new Error(`${key.replace(/_/g, ' ')} must be numbers`);
          break;
        case 'json':
          try { options[key] = JSON.parse(raw); } catch (e) { throw new Error(`${key.replace(/_/g, ' ')} is not valid JSON`); }
          break;
        case 'text': if (raw !== '') options[key] = input.value; break;
        default: options[key] = input.value;
      }
    }
    return options;
  }

  gameSelect.addEventListener('change', showOptions);
  document.getElementById('add-player').addEventListener('click', () => { addPlayer(); fitPlayers(); });
  document.getElementById('remove-player').addEventListener('click', () => { list.lastElementChild.remove(); fitPlayers(); });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    errorBox.textContent = '';
    let options;
    try { options = readOptions(); } catch (e) { errorBox.textContent = e.message; return; }
    const players = Array.from(list.querySelectorAll('input')).map((i) => i.value.trim());
    const pin = document.getElementById('pin').value.trim();
    const button = form.querySelector('button[type=submit]');
    button.disabled = true;
    try {
      const table = await postJson('/api/tables', { game: gameSelect.value, players, options, pin: pin || undefined });
      // This phone made the table: it is the host, it knows the PIN and shows it.
      storage.set('pin:' + table.id, table.pin);
      storage.set('host:' + table.id, '1');
      window.location.assign('/tables/' + encodeURIComponent(table.id));
    } catch (e) {
      errorBox.textContent = e.message;
      button.disabled = false;
    }
  });

  showOptions();
})();
