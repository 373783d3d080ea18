// The live table: one stream from the service keeps every phone on the same version;
// the countdown is drawn from the server's deadline and this phone's measured clock
// offset, so every phone shows the same seconds and sounds at the same moment.
// The game's own script (static/games/<game>.js) sets window.CompanionGame =
// { render(table, ui), keepAwake(table)?, timerOver(table)?, timerName(table)? } before this file
// runs: timerOver says the countdown's work is done (the round is scored), so a "Time's up!"
// goes once it has been seen; timerName names the rules' countdown when its cancel is confirmed.
(function () {
  'use strict';
  const C = window.Companion;
  const { el, storage } = C;
  const page = document.getElementById('table-page');
  const tableId = page.dataset.tableId;
  const game = window.CompanionGame;
  const $ = (id) => document.getElementById(id);

  let table = JSON.parse($('initial-table').textContent);
  // Until the offset is measured, guess it from the page's own timestamp.
  let offset = table.server_time_ms - Date.now();
  let offsetMeasured = false;
  let lastDeadline = null; // deadline of the countdown this phone saw running
  let alarmedFor = null; // the deadline that has already sounded here
  let alarms = 0;
  let scoresKey = null;
  let connection = 'connecting';
  const simulatedPanel = document.getElementById('simulated-devices');
  const firmwareView = !!simulatedPanel && simulatedPanel.dataset.source === 'simulator';

  const serverNow = () => Date.now() + offset;
  const me = () => {
    const value = storage.get('me:' + tableId);
    return value === null || value === '' ? null : Number(value);
  };

  function remainingMs() {
    const timer = table.timer;
    if (timer.status === 'running' && timer.deadline_ms !== null) return Math.max(0, timer.deadline_ms - serverNow());
    return timer.remaining_ms;
  }

  // -- talking to the service ------------------------------------------------

  // A failed call because the service could not be reached is cleared as soon as the stream is
  // back: the phone is connected again, and a stale "cannot be reached" would only confuse.
  let errorIsNetwork = false;
  function showError(message, network) {
    $('action-error').textContent = message || '';
    errorIsNetwork = !!message && !!network;
    if (message) lastError = message;
  }

  async function send(path, body) {
    const pin = storage.get('pin:' + tableId);
    if (!pin) {
      showError('Enter the table PIN first (the host has it), then tap again.');
      $('pin-input').focus();
      return null;
    }
    try {
      const result = await C.postJson(`/api/tables/${encodeURIComponent(tableId)}/${path}`,
        Object.assign({ action_id: C.randomId() }, body || {}), { 'X-Table-Pin': pin });
      showError('');
      accept(result);
      return result;
    } catch (e) {
      if (e.status === 403 || e.status === 401) {
        storage.set('pin:' + tableId, null);
        showPinState();
      }
      showError(e.message, e.status === 0);
      return null;
    }
  }

  // Any authenticated call under /api/tables/<id>/ for a game's own panels (camera checks, hints):
  // sends the PIN, shows errors where taps show theirs, and returns the parsed JSON or null.
  // `path` is relative to the table, or a full path of this table's API (a poll address).
  async function call(path, { method = 'POST', body = null, json = null } = {}) {
    const pin = storage.get('pin:' + tableId);
    if (!pin && method !== 'GET') {
      lastError = 'enter the table PIN first (the host has it), then tap again';
      showError('Enter the table PIN first (the host has it), then tap again.');
      $('pin-input').focus();
      return null;
    }
    const headers = pin ? { 'X-Table-Pin': pin } : {};
    if (json !== null) headers['Content-Type'] = 'application/json';
    if (body && body.type) headers['Content-Type'] = body.type;
    const own = `/api/tables/${encodeURIComponent(tableId)}/`;
    const url = path.startsWith(own) ? path : own + path.replace(/^\/+/, '');
    try {
      const response = await fetch(url, {
        method, headers, body: json !== null ? JSON.stringify(json) : body, credentials: 'same-origin',
      });
      const data = await response.json().catch(() => ({ error: `the service answered ${response.status}` }));
      if (!response.ok) {
        if (response.status === 401 || response.status === 403) { storage.set('pin:' + tableId, null); showPinState(); }
        lastError = data.error || `the service answered ${response.status}`;
        showError(lastError);
        return null;
      }
      lastError = null;
      showError('');
      return data;
    } catch (e) {
      lastError = 'the table service cannot be reached: ' + e.message;
      showError('The table service cannot be reached: ' + e.message, true);
      return null;
    }
  }
  let lastError = null; // what the last failed call() said, for a panel that shows it itself

  const ui = {
    el,
    get me() { return me(); },
    players: () => table.players,
    // Every action says whose phone tapped ("by"), so the undo line and the history can say
    // "Ann marked Cy's grid wrong"; a phone for everyone says nothing.
    act: (event) => send('actions', me() === null || event.by !== undefined ? event : Object.assign({ by: me() }, event)),
    call,
    accept: (next) => accept(next),
    rerender: () => render(),
    get lastError() { return lastError; },
    tableId,
    describe,
  };

  // The plain way to say an event, for games that do not say their own (table.undo_text).
  function describe(event) {
    if (!event) return '';
    const who = Number.isInteger(event.player) ? ' by ' + table.players[event.player] : '';
    const extra = event.type === 'verify' ? (event.valid ? ' (correct)' : ' (not correct)') : '';
    return event.type.replace(/-/g, ' ') + who + extra;
  }

  // -- the stream ------------------------------------------------------------

  let source = null;
  function connect() {
    const url = `/api/tables/${encodeURIComponent(tableId)}/stream?last_event_id=${table.version}`;
    source = new EventSource(url);
    source.addEventListener('open', () => setConnection('live'));
    source.addEventListener('table', (e) => { setConnection('live'); accept(JSON.parse(e.data)); });
    source.addEventListener('heartbeat', () => setConnection('live'));
    source.addEventListener('error', () => {
      if (source.readyState === EventSource.CLOSED) {
        // Refused (service restarting, or too many phones): try again by ourselves.
        setConnection('offline');
        setTimeout(connect, 3000);
      } else {
        setConnection('reconnecting');
      }
    });
  }

  function setConnection(state) {
    // Back after a reconnect: a "cannot be reached" from while it was away is no longer true.
    if (state === 'live' && connection !== 'live' && errorIsNetwork) showError('');
    connection = state;
    const box = $('connection');
    box.dataset.state = state;
    box.querySelector('.text').textContent =
      { live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline: retrying', connecting: 'Connecting…' }[state];
  }

  // A newer (or the same) version replaces what we show; an older one is a late answer.
  function accept(next) {
    if (!next || next.version < table.version) return;
    if (!offsetMeasured && typeof next.server_time_ms === 'number') offset = next.server_time_ms - Date.now();
    const before = table.timer;
    table = next;
    if (table.timer.status === 'expired' && lastDeadline !== null && alarmedFor !== lastDeadline) alarm();
    // A timed turn that ran out may be followed by the next turn's countdown in the same
    // change (Quivit's timed turns): the old deadline passed unseen, so sound it now.
    else if (before.status === 'running' && before.deadline_ms !== null && alarmedFor !== before.deadline_ms
             && table.timer.deadline_ms !== before.deadline_ms && serverNow() >= before.deadline_ms - 250) {
      lastDeadline = before.deadline_ms;
      alarm();
    }
    render();
  }

  // -- drawing ---------------------------------------------------------------

  function render() {
    page.dataset.version = table.version;
    page.dataset.finished = table.finished ? '1' : '0';
    renderTimer();
    try {
      game.render(table, ui);
    } catch (e) {
      showError('This page could not draw the game: ' + e.message);
    }
    $('undo').disabled = !table.can_undo;
    $('redo').disabled = !table.can_redo;
    // In sentences when the game says its events ("Undo: Ann marked Cy's grid wrong").
    const undoText = table.undo_text ? ': ' + table.undo_text : ' ' + describe(table.undo_event);
    const redoText = table.redo_text ? ': ' + table.redo_text : ' ' + describe(table.redo_event);
    $('undo').setAttribute('aria-label', table.can_undo ? 'Undo' + undoText : 'Undo (nothing to undo)');
    $('redo').setAttribute('aria-label', table.can_redo ? 'Redo' + redoText : 'Redo (nothing to redo)');
    $('undo-hint').textContent = !table.can_undo ? ''
      : table.undo_text ? `Undo takes back: ${table.undo_text}.` : 'Last: ' + describe(table.undo_event);
    arrange();
    const scores = scoresOf(table.state);
    const key = JSON.stringify(scores);
    if (scores && key !== scoresKey) {
      scoresKey = key;
      $('chart').src = `/tables/${encodeURIComponent(tableId)}/chart.svg?v=${table.version}`;
    }
    updateWakeLock();
  }

  function scoresOf(state) {
    if (!state) return null;
    if (Array.isArray(state.scores)) return state.scores;
    if (Array.isArray(state.players)) return state.players.map((p) => p && p.score);
    return null;
  }

  const TIMER_WORDS = {
    idle: 'Timer not set', running: 'Timer running', paused: 'Timer paused', expired: "Time's up!",
  };

  const TIMES_UP_SHOWN_MS = 4000; // "Time's up!" stays this long after the alarm once the round is over
  let timesUpUntil = 0;

  // What the timer shows: an expired countdown whose work is done (the round is scored) goes
  // back to rest once its "Time's up!" has been seen.
  function shownStatus() {
    const status = table.timer.status;
    if (status === 'expired' && game.timerOver && game.timerOver(table) && Date.now() >= timesUpUntil) return 'idle';
    return status;
  }

  function renderTimer() {
    const status = shownStatus();
    if (table.timer.status === 'running') lastDeadline = table.timer.deadline_ms;
    $('timer-status').textContent = TIMER_WORDS[status] || status;
    const panel = $('timer-panel');
    panel.dataset.status = status;
    // Large while it counts (or has just run out), a small line otherwise.
    panel.dataset.size = status === 'idle' ? 'small' : 'large';
    const live = status === 'running' || status === 'paused';
    for (const button of document.querySelectorAll('[data-timer]')) {
      const command = button.dataset.timer;
      button.hidden = !({
        start: status === 'idle' || status === 'expired',
        pause: status === 'running',
        resume: status === 'paused',
        cancel: live,
      })[command];
    }
    if (!live) askCancel(false);
    tick();
  }

  function tick() {
    const text = shownStatus() === 'idle' ? '–:––' : C.formatClock(remainingMs());
    const countdown = $('countdown');
    if (countdown.textContent !== text) countdown.textContent = text;
    const display = $('sim-display');
    // Under --simulate-hardware the virtual display is the simulated Pico's own (devices.js).
    if (display && !firmwareView && display.textContent !== text) display.textContent = table.timer.status === 'idle' ? '--:--' : text;
    if (table.timer.status === 'running' && remainingMs() <= 0 && alarmedFor !== table.timer.deadline_ms) {
      lastDeadline = table.timer.deadline_ms;
      alarm();
    }
  }

  // -- sound, vibration, the simulated buzzer ---------------------------------

  let audio = null;
  function unlockAudio() {
    // Browsers let a page make sound only after a tap: make the context on the first one.
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) audio = new Context();
    if (audio && audio.state === 'suspended') audio.resume();
  }
  document.addEventListener('pointerdown', unlockAudio, { passive: true });
  document.addEventListener('keydown', unlockAudio);

  function beep() {
    if (!audio) return;
    const start = audio.currentTime + 0.01;
    for (let i = 0; i < 3; i++) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      const t = start + i * 0.35;
      osc.type = 'square';
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(0.25, t + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + 0.26);
    }
  }

  function alarm() {
    alarmedFor = lastDeadline;
    alarms += 1;
    timesUpUntil = Date.now() + TIMES_UP_SHOWN_MS;
    setTimeout(renderTimer, TIMES_UP_SHOWN_MS + 50);
    beep();
    if (navigator.vibrate) navigator.vibrate([400, 150, 400, 150, 400]);
    const buzzer = $('sim-buzzer');
    if (buzzer && !firmwareView) {
      buzzer.dataset.on = '1';
      buzzer.textContent = 'BUZZ! Time is up';
      setTimeout(() => { buzzer.dataset.on = '0'; buzzer.textContent = 'Buzzer quiet'; }, 3000);
    }
  }

  // -- keeping the screen on -------------------------------------------------

  let wakeLock = null;
  let wakeBusy = false;
  async function updateWakeLock() {
    const wanted = (game.keepAwake ? game.keepAwake(table) : !table.finished) && document.visibilityState === 'visible';
    const status = $('wake-status');
    if (!('wakeLock' in navigator)) {
      // The Screen Wake Lock API needs https; a LAN address over http does not have it.
      status.textContent = wanted ? 'This browser cannot keep the screen on here: set a longer screen timeout for the round.' : '';
      return;
    }
    if (wakeBusy) return;
    wakeBusy = true;
    try {
      if (wanted && !wakeLock) {
        wakeLock = await navigator.wakeLock.request('screen');
        wakeLock.addEventListener('release', () => { wakeLock = null; });
        status.textContent = 'The screen stays on during the round.';
      } else if (!wanted && wakeLock) {
        await wakeLock.release();
        wakeLock = null;
        status.textContent = '';
      }
    } catch (e) {
      status.textContent = 'The screen could not be kept on: ' + e.message;
    } finally {
      wakeBusy = false;
    }
  }
  document.addEventListener('visibilitychange', updateWakeLock);

  // -- controls --------------------------------------------------------------

  // Cancelling the countdown the rules started (Pivit's one-minute race) changes the game:
  // the phone asks first. It can be undone like any event.
  function askCancel(show) {
    $('timer-cancel-ask').hidden = !show;
    if (show) {
      const name = (game.timerName && game.timerName(table)) || 'the countdown the rules started';
      $('timer-cancel-question').textContent = `Cancel ${name}? Play goes on without a time limit; Undo brings it back.`;
      $('timer-cancel-yes').focus();
    }
  }
  for (const button of document.querySelectorAll('[data-timer]')) {
    button.addEventListener('click', () => {
      if (button.dataset.timer === 'cancel' && table.timer.key) { askCancel(true); return; }
      send('timer', { command: button.dataset.timer });
    });
  }
  $('timer-cancel-yes').addEventListener('click', () => { askCancel(false); send('timer', { command: 'cancel' }); });
  $('timer-cancel-no').addEventListener('click', () => askCancel(false));
  $('undo').addEventListener('click', () => send('undo', { expected_version: table.version }));
  $('redo').addEventListener('click', () => send('redo', { expected_version: table.version }));
  $('sound-test').addEventListener('click', () => { unlockAudio(); beep(); if (navigator.vibrate) navigator.vibrate(200); });

  const meSelect = $('me-select');
  meSelect.value = me() === null ? '' : String(me());
  meSelect.addEventListener('change', () => { storage.set('me:' + tableId, meSelect.value); render(); });

  function showPinState() {
    const unlocked = !!storage.get('pin:' + tableId);
    page.dataset.unlocked = unlocked ? '1' : '0';
    $('pin-status').textContent = unlocked ? 'Unlocked: this phone can tap.' : 'Watching only: enter the table PIN to tap.';
    $('pin-form').hidden = unlocked;
    $('pin-forget').hidden = !unlocked;
    const host = storage.get('host:' + tableId) === '1' && unlocked;
    $('host-pin').hidden = !host;
    $('host-pin-hide').hidden = !host;
    if (host) $('host-pin-value').textContent = storage.get('pin:' + tableId);
    arrange();
  }

  // The page's order for the moment: a locked phone must join first, so "This phone" comes
  // first; until a first move "Invite phones" sits right under the game; after that both go
  // below Undo, the game first.
  function arrange() {
    const locked = page.dataset.unlocked !== '1';
    const meCard = $('me-card');
    const invite = $('invite');
    if (locked) $('timer-panel').before(meCard);
    else $('controls').after(meCard);
    const starting = !table.can_undo && !table.can_redo && !table.finished;
    invite.dataset.prominent = starting ? '1' : '0';
    if (starting) $('game').after(invite);
    else (locked ? $('controls') : meCard).after(invite);
  }
  $('pin-forget').addEventListener('click', () => { storage.set('pin:' + tableId, null); showPinState(); });
  $('host-pin-hide').addEventListener('click', () => { storage.set('host:' + tableId, null); showPinState(); });
  $('pin-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const pin = $('pin-input').value.trim();
    try {
      await C.postJson(`/api/tables/${encodeURIComponent(tableId)}/pin`, {}, { 'X-Table-Pin': pin });
      storage.set('pin:' + tableId, pin);
      $('pin-input').value = '';
      showError('');
    } catch (e) {
      $('pin-status').textContent = e.message;
      return;
    }
    showPinState();
  });

  async function syncClock() {
    const best = await C.measureOffset(5);
    if (best) { offset = best.offset; offsetMeasured = true; }
  }

  // For tests and curious players: what this phone believes.
  window.companionTable = {
    get table() { return table; },
    get offset() { return offset; },
    get alarms() { return alarms; },
    get connection() { return connection; },
    remainingMs,
    serverNow,
  };

  showPinState();
  render();
  connect();
  syncClock();
  setInterval(syncClock, 60000);
  setInterval(tick, 100);
})();
