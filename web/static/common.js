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
        if (value === null || value === undefined) localStorage.removeItem('companion:' + key);
        else localStorage.setItem('companion:' + key, value);
      } catch (e) { /* private mode: nothing is remembered */ }
    },
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
