// "Check with camera" for the Pivit tile game: a photo of one player's finished grid (the
// table's camera, or this phone's), the grid as read drawn as tiles with the faults outlined,
// then the verdict recorded as the round's verify event.
//
// The reader may be unsure of a tile ("unsure": [[r, c], ...]) or think a tile may be missing
// from a cell ("missing": [[r, c], ...]; an older service does not say). Those cells are marked
// with "?" and "+?" (never by colour alone) and the player taps each one to confirm it or say what
// is there; only when none is left does the page offer to record the verdict (the service refuses
// it before, with 409). A correction is one tap on the pictured tile that is really there.
// Uses window.PivitCamera.open(ui, table, player) from pivit-tiles.js.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  const Art = window.PivitArt;
  const MAX_SIDE = 3000; // pixels: plenty for the reader, and a quick upload over Wi-Fi

  let ui = null;
  let player = null;
  let check = null;
  let fixing = null; // {row, col, tile} being confirmed or corrected
  let tableState = null;

  const key = (r, c) => `${r},${c}`;
  const tileset = () => (check && check.rules && check.rules.tileset) || tableState.options.tileset;
  const unsureCells = () => new Set((check.unsure || []).map(([r, c]) => key(r, c)));
  const missingCells = () => new Set((check.missing || []).map(([r, c]) => key(r, c)));
  const unsettled = () => (check.unsure || []).length + (check.missing || []).length;

  function status(text) { $('pvc-status').textContent = text || ''; }
  function failed(what) { status(`${what}: ${ui.lastError || 'the service did not answer'}`); }

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
    if (!result) { failed('No check'); return; }
    check = result;
    status('');
    draw();
  }

  function draw() {
    const name = tableState.players[player].name;
    const open = unsettled();
    $('pvc-result').hidden = false;
    const img = $('pvc-image');
    img.src = check.annotated_url;
    img.alt = `${name}'s grid as the camera read it, every tile labelled` + (check.valid ? '' : ', faulty lines outlined');
    const verdict = $('pvc-verdict');
    const sofar = open ? ' so far' : '';
    verdict.className = 'verdict ' + (check.valid ? 'good' : 'bad');
    verdict.textContent = check.valid
      ? `✔ ${name}'s grid is correct${sofar} (${check.tiles.length} tiles).`
      : `✘ ${name}'s grid is NOT correct${sofar}: ${check.violations.length} fault${check.violations.length === 1 ? '' : 's'}.`;
    $('pvc-faults').replaceChildren(...check.violations.map((v) => ui.el('li', { text: v.message })));
    const box = $('pvc-unsettled');
    box.hidden = !open;
    box.textContent = open
      ? `Look at ${open === 1 ? 'the place' : `the ${open} places`} marked ? or +? first: tap each one to confirm`
        + ' it or say what is there. Then you can record the verdict.'
      : '';
    drawGrid();
    const confirm = $('pvc-confirm');
    confirm.hidden = open > 0; // offered only once every doubtful place is settled
    confirm.textContent = check.valid ? 'Record: grid correct' : 'Record: grid NOT correct';
    confirm.className = 'action primary ' + (check.valid ? 'good' : 'bad');
    confirm.setAttribute('aria-label', `Record ${name}'s grid as ${check.valid ? 'correct' : 'not correct'}`);
  }

  function drawGrid() {
    const cells = new Map(check.tiles.map((t) => [key(t.row, t.col), t]));
    const faulty = new Set(check.violations.flatMap((v) => v.cells.map(([r, c]) => key(r, c))));
    const unsure = unsureCells();
    const missing = missingCells();
    const places = check.tiles.map((t) => [t.row, t.col]).concat(check.missing || []);
    const rows = places.map(([r]) => r);
    const cols = places.map(([, c]) => c);
    // One empty ring around the grid, so a tile the camera missed at the edge can be added.
    const top = Math.min(...rows, 0) - 1, bottom = Math.max(...rows, 0) + 1;
    const left = Math.min(...cols, 0) - 1, right = Math.max(...cols, 0) + 1;
    const grid = $('pvc-grid');
    grid.style.gridTemplateColumns = `repeat(${right - left + 1}, minmax(0, 48px))`;
    const buttons = [];
    for (let r = top; r <= bottom; r++) {
      for (let c = left; c <= right; c++) {
        const k = key(r, c);
        const t = cells.get(k);
        const where = `Row ${r - top + 1}, column ${c - left + 1}`;
        const flags = {
          unsure: unsure.has(k), missing: missing.has(k), faulty: faulty.has(k), fixed: !!(t && t.corrected),
        };
        let label;
        if (flags.missing) label = `${where}: a tile may be missing here. Tap to say what is there`;
        else if (!t) label = `${where}: empty. Tap to add a tile the camera missed`;
        else {
          label = `${where}: ${Art.name(t.tile)}`
            + (flags.unsure ? ', hard to read' : '') + (flags.faulty ? ', in a faulty line' : '')
            + (flags.fixed ? ', checked by you' : '')
            + (flags.unsure ? '. Tap to confirm or correct' : '. Tap to correct');
        }
        const classes = ['cell'].concat(t ? [] : ['empty'], Object.keys(flags).filter((f) => flags[f]));
        const badge = flags.missing ? '+?' : flags.unsure ? '?' : flags.faulty ? '!' : flags.fixed ? '✓' : '';
        const button = ui.el('button', {
          type: 'button', class: classes.join(' '), 'aria-label': label,
          onclick: () => startFix(r, c, t ? t.tile : null, flags, where),
        }, [
          t ? Art.picture(t.tile, tileset()) : null,
          badge ? ui.el('span', { class: 'badge', 'aria-hidden': 'true', text: badge }) : null,
        ]);
        Art.place(button, r, c, top, left);
        const picture = button.querySelector('svg');
        if (picture) { picture.setAttribute('data-row', String(r)); picture.setAttribute('data-col', String(c)); }
        buttons.push(button);
      }
    }
    grid.replaceChildren(...buttons);
  }

  function startFix(r, c, current, flags, where) {
    fixing = { row: r, col: c, tile: current };
    let question;
    if (flags.missing) question = `${where}: the camera thinks a tile may be here. Which tile is there?`;
    else if (current && flags.unsure) question = `${where}: the camera read a ${Art.name(current)}, but it was hard to read. Is that right?`;
    else if (current) question = `${where}: the camera read a ${Art.name(current)}. Which tile is really there?`;
    else question = `${where}: which tile is there?`;
    $('pvc-fix-where').textContent = question;
    const quick = [];
    if (current) {
      quick.push(ui.el('button', {
        type: 'button', class: 'action primary good', 'aria-label': `Yes, it is the ${Art.name(current)}`,
        onclick: () => applyFix(current),
      }, [Art.picture(current, tileset()), ` Yes, the ${Art.name(current)}`]));
    }
    if (current || flags.missing) {
      quick.push(ui.el('button', { type: 'button', class: 'action', text: 'No tile here', onclick: () => applyFix(null) }));
    }
    $('pvc-fix-quick').replaceChildren(...quick);
    const choices = Art.tilesOf(tileset()).flat().concat([Art.WILD]).map((tile) => ui.el('button', {
      type: 'button', class: 'pick' + (tile === current ? ' held' : ''), dataset: { tile },
      'aria-label': `It is a ${Art.name(tile)}`, onclick: () => applyFix(tile),
    }, [Art.picture(tile, tileset())]));
    $('pvc-fix-tiles').replaceChildren(...choices);
    $('pvc-fix').hidden = false;
    $('pvc-fix').scrollIntoView({ block: 'nearest' });
    (quick[0] || choices[0]).focus();
  }

  // Same tile: confirmed; another tile: corrected; null: no tile there.
  async function applyFix(tile) {
    if (!fixing) return;
    const result = await ui.call(`camera-checks/${encodeURIComponent(check.id)}/corrections`, {
      json: { cells: [{ row: fixing.row, col: fixing.col, tile }] },
    });
    $('pvc-fix').hidden = true;
    fixing = null;
    if (!result) { failed('Not changed'); return; }
    status('');
    check = result;
    draw();
  }

  async function confirm() {
    const result = await ui.call(`camera-checks/${encodeURIComponent(check.id)}/verify`, { json: {} });
    if (result) {
      ui.accept(result);
      close();
      return;
    }
    failed('Not recorded');
    // The service may know of places still to look at (another phone's check, a newer reader).
    const fresh = await ui.call(`camera-checks/${encodeURIComponent(check.id)}`, { method: 'GET' });
    if (fresh) { check = fresh; draw(); }
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
