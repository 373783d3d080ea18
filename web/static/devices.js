// The timer devices on the table page. A one-line status in the Devices section says whether the
// timer display and the GPIO are there, lost, reconnecting or just re-synced; a fault also shows
// under the countdown and opens the section. Under
// `companion serve --simulate-hardware` the virtual display and buzzer are the simulated Pico's,
// as its own firmware drives them, and the virtual buttons and faults act through the simulated
// devices (page -> simulator -> firmware -> serial -> host -> service), never on the table directly.
// Everything comes from GET /api/devices, polled while the page is visible; its `events` carry
// the buzzer's short ticks that fall between two polls.
(function () {
  'use strict';
  const C = window.Companion;
  const $ = (id) => document.getElementById(id);
  const page = $('table-page');
  const statusBox = $('device-status');
  if (!page || !statusBox) return;
  const tableId = page.dataset.tableId;
  const panel = $('simulated-devices');
  const firmware = !!panel && panel.dataset.source === 'simulator';
  const FAST_MS = 250; // the virtual display changes every second, the buzzer ticks last 40 ms
  const SLOW_MS = 3000; // just the status line
  const BUZZ_SHOWN_MS = 300; // a tick stays visible long enough to be seen

  let since = null;
  let timer = null;
  let inFlight = false;
  let again = false;
  let last = null;
  let buzzes = 0;
  let buzzUntil = 0;

  function showError(message) {
    const box = $('action-error');
    if (box) box.textContent = message || '';
  }

  function setText(node, text) {
    if (node && node.textContent !== text) node.textContent = text;
  }

  function renderStatus(body) {
    const status = body.status;
    let line = status.line;
    const devicesThere = body.simulated || status.timer.state === 'connected' || status.gpio.state === 'active';
    if (devicesThere && body.active_table && body.active_table !== tableId) {
      line += ` · the timer is showing table ${body.active_table}`;
    }
    statusBox.dataset.level = status.level;
    setText(statusBox.querySelector('.text'), line);
    // The Devices section stays folded unless something is wrong: then it opens, and the
    // line also shows under the countdown, where the players look.
    const wrong = status.level === 'fault';
    const alert = $('device-alert');
    if (alert) {
      alert.hidden = !wrong;
      setText(alert, wrong ? line : '');
    }
    const section = $('devices');
    if (section && wrong && !section.open) section.open = true;
  }

  function renderView(body) {
    const view = body.view;
    if (!firmware || !view) return;
    for (const event of body.events) {
      if (event.buzzer === 'on') {
        buzzes += 1;
        buzzUntil = performance.now() + BUZZ_SHOWN_MS;
      }
    }
    const display = $('sim-display');
    setText(display, view.powered ? view.display : '');
    display.dataset.powered = view.powered ? '1' : '0';
    // The TM1637's brightness 0-7, as a person would see it.
    display.style.opacity = view.powered ? String(0.45 + 0.55 * (view.brightness / 7)) : '1';
    let state = '';
    if (!view.powered) state = 'Display dark: no power';
    else if (view.frozen) state = 'Firmware frozen';
    else if (view.link !== 'connected') state = `Counting on its own (link ${view.link})`;
    setText($('sim-state'), state);
    const buzzing = view.powered && (view.buzzer === 'on' || performance.now() < buzzUntil);
    const buzzer = $('sim-buzzer');
    buzzer.dataset.on = buzzing ? '1' : '0';
    setText(buzzer, buzzing ? 'Buzzer sounding' : 'Buzzer quiet');
    const gpio = view.gpio;
    setText($('sim-gpio'), gpio
      ? `GPIO: running LED ${gpio.led_running || 'none'}, last-seconds LED ${gpio.led_last_seconds || 'none'}, `
        + `buzzer ${gpio.buzzer || 'none'}`
      : '');
  }

  async function poll() {
    if (inFlight) { again = true; return; }
    clearTimeout(timer);
    timer = null;
    if (document.visibilityState !== 'visible') return; // resumed by visibilitychange
    inFlight = true;
    try {
      const response = await fetch('/api/devices' + (since === null ? '' : '?since=' + since), { cache: 'no-store' });
      if (response.ok) {
        const body = await response.json();
        since = body.next;
        last = body;
        renderStatus(body);
        renderView(body);
      }
    } catch (e) {
      // The service is unreachable: the table's own connection line says so.
    } finally {
      inFlight = false;
    }
    if (again) { again = false; poll(); return; }
    timer = setTimeout(poll, firmware ? FAST_MS : SLOW_MS);
  }

  // One request, never retried: a repeated press would toggle the timer twice.
  async function post(path, body) {
    const pin = C.storage.get('pin:' + tableId);
    if (!pin) {
      showError('Enter the table PIN first (the host has it), then tap again.');
      const input = $('pin-input');
      if (input) input.focus();
      return;
    }
    try {
      const response = await fetch(`/api/tables/${encodeURIComponent(tableId)}/devices/${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-Table-Pin': pin },
        body: JSON.stringify(body),
        credentials: 'same-origin',
      });
      const data = await response.json().catch(() => ({}));
      showError(response.ok ? '' : (data.error || `the service answered ${response.status}`));
    } catch (e) {
      showError('The table service cannot be reached: ' + e.message);
    }
    poll();
  }

  if (firmware) {
    for (const button of panel.querySelectorAll('[data-button]')) {
      button.addEventListener('click', () => post('press', { button: button.dataset.button, action: button.dataset.action }));
    }
    for (const button of panel.querySelectorAll('[data-fault]')) {
      button.addEventListener('click', () => post('fault', { fault: button.dataset.fault }));
    }
  }
  document.addEventListener('visibilitychange', poll);

  // For tests and curious players: what the page last heard from the devices.
  window.companionDevices = {
    get last() { return last; },
    get buzzes() { return buzzes; },
    poll,
  };

  poll();
})();
