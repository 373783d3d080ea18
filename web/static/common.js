// Small helpers shared by the pages: building elements safely, calling the API,
// remembering things per phone, and measuring this phone's offset to the server clock.
(function () {
  'use strict';

  // Build an element; text is always set with textContent, never parsed as HTML.
  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === 'text') node.textContent = value;
      else if (key === 'dataset') Object.assign(node.dataset, value);
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : value);
    }
    for (const child of [].concat(children || [])) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // crypto.randomUUID needs a secure context, which a LAN address over http is not.
  function randomId() {
    const bytes = new Uint8Array(12);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  const storage = {
    get(key) { try { return localStorage.getItem('companion:' + key); } catch (e) { return null; } },
    set(key, value) {
      try {
        if (value === null || value === undefined) {
          localStorage.removeItem('companion:' + key);
          // Forgetting a table's PIN forgets its token too (see the table token below).
          if (key.startsWith('pin:')) localStorage.removeItem('companion:token:' + key.slice(4));
        } else localStorage.setItem('companion:' + key, value);
      } catch (e) { /* private mode: nothing is remembered */ }
    },
  };

  // The table token. The service answers the right PIN (and a new table) with X-Table-Token;
  // every later call for that table sends it back, so someone guessing PINs, which makes the
  // service stop looking at PINs for a while, never stops a phone that is already unlocked.
  // Like the PIN it is a header, never a cookie. Done here, once, for every fetch of the pages.
  const pageFetch = window.fetch.bind(window);
  window.fetch = async function (input, init) {
    const url = new URL(typeof input === 'string' ? input : input.url, window.location.href);
    const own = url.origin === window.location.origin;
    const match = own && url.pathname.match(/^\/api\/tables\/([^/]+)/);
    let tableId = match ? decodeURIComponent(match[1]) : null;
    const token = tableId && storage.get('token:' + tableId);
    if (token && !url.pathname.endsWith('/pin')) { // POST .../pin always checks the PIN itself
      init = Object.assign({}, init);
      const headers = new Headers(init.headers || (typeof input === 'string' ? undefined : input.headers));
      headers.set('X-Table-Token', token);
      init.headers = headers;
    }
    const response = await pageFetch(input, init);
    const given = own && response.headers.get('X-Table-Token');
    if (given) {
      const created = (response.headers.get('Location') || '').match(/^\/api\/tables\/([^/]+)$/);
      if (created) tableId = decodeURIComponent(created[1]);
      if (tableId) storage.set('token:' + tableId, given);
    }
    return response;
  };

  class ApiError extends Error {
    constructor(status, message, body) { super(message); this.status = status; this.body = body; }
  }

  // POST JSON; a network failure is retried with the same body (and so the same
  // action_id, which the server applies once).
  async function postJson(url, body, headers) {
    let lastError = null;
    for (let attempt = 0; attempt < 3; attempt++) {
      let response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: Object.assign({ 'Content-Type': 'application/json', Accept: 'application/json' }, headers || {}),
          body: JSON.stringify(body || {}),
          credentials: 'same-origin',
        });
      } catch (e) {
        lastError = e;
        await new Promise((r) => setTimeout(r, 300 * (attempt + 1)));
        continue;
      }
      let data = null;
      try { data = await response.json(); } catch (e) { data = null; }
      if (!response.ok) {
        throw new ApiError(response.status, (data && data.error) || ('error ' + response.status), data);
      }
      return data;
    }
    throw new ApiError(0, 'the companion cannot be reached: check the Wi-Fi', null);
  }

  // offset = server clock - this phone's clock, from the sample with the shortest
  // round trip (its midpoint is the best guess of when the server read its clock).
  async function measureOffset(samples) {
    let best = null;
    for (let i = 0; i < (samples || 5); i++) {
      const t0 = Date.now();
      const t0p = performance.now();
      let data;
      try {
        const response = await fetch('/api/time', { cache: 'no-store' });
        data = await response.json();
      } catch (e) { continue; }
      const rtt = performance.now() - t0p;
      const offset = data.server_time_ms - (t0 + rtt / 2);
      if (!best || rtt < best.rtt) best = { rtt, offset };
    }
    return best;
  }

  function formatClock(ms) {
    const seconds = Math.max(0, Math.ceil(ms / 1000));
    return Math.floor(seconds / 60) + ':' + String(seconds % 60).padStart(2, '0');
  }

  window.Companion = { el, randomId, storage, ApiError, postJson, measureOffset, formatClock };
})();
