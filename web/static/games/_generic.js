// Any game without its own page: a button for each action the engine allows now
// (those that need only a type and a player), and the engine's state as JSON.
(function () {
  'use strict';
  const $ = (id) => document.getElementById(id);
  window.CompanionGame = {
    render(table, ui) {
      const state = table.state || {};
      $('generic-last').textContent = typeof state.last === 'string' ? state.last : '';
      $('generic-actions').replaceChildren(...table.actions.map((action) => {
        const name = ui.describe(action);
        return ui.el('button', {
          type: 'button', class: 'action', 'aria-label': name,
          onclick: () => ui.act(action),
        }, name);
      }));
      $('generic-state').textContent = JSON.stringify(state, null, 2);
    },
  };
})();
