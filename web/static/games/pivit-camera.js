// "Check with camera" for the Pivit tile game: a photo of one player's finished grid (the
// table's camera, or this phone's), the grid as read with the faults outlined, one-tap
// correction of a misread cell, then the verdict recorded as the round's verify event.
// Uses window.PivitCamera.open(ui, table, player) from pivit-tiles.js.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const MAX_SIDE = 3000; // pixels: plenty for the reader, and a quick upload over Wi-Fi

  const DESIGNS = { 1: 'circle', 2: 'clover', 3: 'diamond', 4: 'square', 5: 'four-point star', 6: 'eight-point star' };
  const COLOURS = { R: 'red', O: 'orange', Y: 'yellow', G: 'green', B: 'blue', P: 'purple', W: 'white' };
  const SETS = { classic: 'ROYGBP', connect: 'ROYGBW' };

  let ui = null;
  let player = null;
  let check = null;
  let fixing = null; // [row, col] being corrected
  let tableState = null;

  const tileName = (t) => (t === '**' ? 'wild' : `${COLOURS[t[1]]} ${DESIGNS[t[0]]}`);

  function status(text) { $('pvc-status').textContent = text || ''; }

  // Phone photos are often 12 megapixels: scale them down on the phone before sending.
  async function shrink(file) {
    let bitmap = null;
    try {
      bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
    } catch (e) {
      return file; // not something the browser can draw: let the service say what is wrong
    }
    const scale = Math.min(1, MAX_SIDE / Math.max(bitmap.width, bitmap.height));
    if (scale === 1 && file.size < 8 * 1024 * 1024 && /^image\/(jpeg|png|webp)$/.test(file.type)) return file;
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext('2d').drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    return new Promise((resolve) => canvas.toBlob((blob) => resolve(blob || file), 'image/jpeg', 0.92));
  }

  async function send(photo) {
    status(photo ? 'Reading the photo…' : 'Taking the picture…');
    $('pvc-result').hidden = true;
    const body = photo ? await shrink(photo) : null;
    const result = await ui.call(`camera-checks?player=${player}${photo ? '' : '&source=camera'}`, { body });
    if (!result) { status('No check: see the message above, then try again.'); return; }
    check = result;
    status('');
    draw();
  }

  function draw() {
    const name = tableState.players[player].name;
    $('pvc-result').hidden = false;
    const img = $('pvc-image');
    img.src = check.annotated_url;
    img.alt = `${name}'s grid as the camera read it, every tile labelled` + (check.valid ? '' : ', faulty lines outlined');
    const verdict = $('pvc-verdict');
    verdict.className = 'verdict ' + (check.valid ? 'good' : 'bad');
    verdict.textContent = check.valid
      ? `✔ ${name}'s grid is correct (${check.tiles.length} tiles).`
      : `✘ ${name}'s grid is NOT correct: ${check.violations.length} fault${check.violations.length === 1 ? '' : 's'}.`;
    $('pvc-faults').replaceChildren(...check.violations.map((v) => ui.el('li', { text: v.message })));
    const unsure = check.unsure.length;
    $('pvc-unsure').textContent = unsure
      ? `${unsure} tile${unsure === 1 ? ' was' : 's were'} hard to read (marked ?): look at ${unsure === 1 ? 'it' : 'them'} before you record.`
      : '';
    drawGrid();
    const confirm = $('pvc-confirm');
    confirm.textContent = check.valid ? 'Record: grid correct' : 'Record: grid NOT correct';
    confirm.className = 'action primary ' + (check.valid ? 'good' : 'bad');
    confirm.setAttribute('aria-label', `Record ${name}'s grid as ${check.valid ? 'correct' : 'not correct'}`);
  }

  function drawGrid() {
    const cells = new Map(check.tiles.map((t) => [`${t.row},${t.col}`, t]));
    const faulty = new Set(check.violations.flatMap((v) => v.cells.map(([r, c]) => `${r},${c}`)));
    const unsure = new Set(check.unsure.map(([r, c]) => `${r},${c}`));
    const rows = check.tiles.map((t) => t.row);
    const cols = check.tiles.map((t) => t.col);
    // One empty ring around the grid, so a tile the camera missed at the edge can be added.
    const top = Math.min(...rows, 0) - 1, bottom = Math.max(...rows, 0) + 1;
    const left = Math.min(...cols, 0) - 1, right = Math.max(...cols, 0) + 1;
    const body = [];
    for (let r = top; r <= bottom; r++) {
      const row = [];
      for (let c = left; c <= right; c++) {
        const t = cells.get(`${r},${c}`);
        const key = `${r},${c}`;
        const label = t ? `${t.tile}${unsure.has(key) ? '?' : ''}` : '·';
        const where = `row ${r}, column ${c}`;
        row.push(ui.el('td', {}, [ui.el('button', {
          type: 'button',
          class: 'cell' + (t ? '' : ' empty') + (faulty.has(key) ? ' faulty' : '') + (unsure.has(key) ? ' unsure' : '')
            + (t && t.corrected ? ' corrected' : ''),
          'aria-label': t ? `${where}: ${tileName(t.tile)}${faulty.has(key) ? ', in a faulty line' : ''}. Tap to correct`
            : `${where}: empty. Tap to add a tile the camera missed`,
          text: label,
          onclick: () => startFix(r, c, t ? t.tile : ''),
        })]));
      }
      body.push(ui.el('tr', {}, row));
    }
    $('pvc-grid').replaceChildren(ui.el('tbody', {}, body));
  }

  function startFix(r, c, current) {
    fixing = [r, c];
    const select = $('pvc-tile');
    const colours = SETS[check.rules.tileset] || SETS.classic;
    const options = [ui.el('option', { value: '', text: 'No tile here' })];
    for (const colour of colours) {
      for (const d of '123456') options.push(ui.el('option', { value: d + colour, text: `${d}${colour} ${tileName(d + colour)}` }));
    }
    options.push(ui.el('option', { value: '**', text: '** wild' }));
    select.replaceChildren(...options);
    select.value = current;
    $('pvc-fix-where').textContent = `Row ${r}, column ${c}: which tile is really there?`;
    $('pvc-fix').hidden = false;
    select.focus();
  }

  async function applyFix() {
    if (!fixing) return;
    const tile = $('pvc-tile').value || null;
    const result = await ui.call(`camera-checks/${encodeURIComponent(check.id)}/corrections`, {
      json: { cells: [{ row: fixing[0], col: fixing[1], tile }] },
    });
    $('pvc-fix').hidden = true;
    fixing = null;
    if (result) { check = result; draw(); }
  }

  async function confirm() {
    const result = await ui.call(`camera-checks/${encodeURIComponent(check.id)}/verify`, { json: {} });
    if (result) {
      ui.accept(result);
      close();
    }
  }

  function close() {
    const dialog = $('pvc-dialog');
    if (dialog.open) dialog.close();
    check = null;
    fixing = null;
  }

  let wired = false;
  function wire() {
    if (wired) return;
    wired = true;
    $('pvc-file').addEventListener('change', (e) => {
      const file = e.target.files && e.target.files[0];
      e.target.value = '';
      if (file) send(file);
    });
    $('pvc-table-camera').addEventListener('click', () => send(null));
    $('pvc-apply').addEventListener('click', applyFix);
    $('pvc-cancel').addEventListener('click', () => { $('pvc-fix').hidden = true; fixing = null; });
    $('pvc-confirm').addEventListener('click', confirm);
    $('pvc-close').addEventListener('click', close);
  }

  async function open(uiRef, table, who) {
    ui = uiRef;
    tableState = table.state;
    player = who;
    wire();
    check = null;
    $('pvc-title').textContent = `Check ${table.state.players[who].name}'s grid with the camera`;
    $('pvc-result').hidden = true;
    $('pvc-fix').hidden = true;
    status('');
    $('pvc-dialog').showModal();
    // Offer the table's camera only when the service has one.
    $('pvc-table-camera').hidden = true;
    try {
      const health = await (await fetch('/api/health')).json();
      $('pvc-table-camera').hidden = !(health.camera && health.camera.attached);
    } catch (e) { /* phones can always upload */ }
  }

  window.PivitCamera = { open, refresh(table) { tableState = table.state; } };
})();
