// The one tile renderer of the phone pages: every Pivit tile (the "I'm stuck" picker, its
// arrangement, the camera's reading and its corrections) is drawn here as inline SVG, a black
// rounded tile with its design in its paint colour, from window.PivitArtwork, which the service
// makes from companion/games/pivit_tiles/artwork.py (the geometry the camera's synthetic photos
// use too). Each picture carries data-tile="3G" and an aria-label in words ("green diamond");
// in a grid also data-row and data-col (0-based from the top-left).
(function () {
  'use strict';
  const ART = window.PivitArtwork;
  const NS = 'http://www.w3.org/2000/svg';
  const WILD = ART.wild_tile;

  function svg(tag, attrs) {
    const node = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
    return node;
  }

  const points = (poly) => poly.map(([x, y]) => `${x},${y}`).join(' ');

  // A tile in words: "green diamond", "wild".
  function name(tile) {
    return tile === WILD ? 'wild' : `${ART.colour_names[tile[1]]} ${ART.design_names[tile[0]]}`;
  }

  // The tiles of a set, colours down and designs across, as the picker shows them.
  function tilesOf(tileset) {
    const colours = ART.tilesets[tileset] || ART.tilesets.classic;
    return colours.split('').map((c) => Object.keys(ART.design_names).map((d) => d + c));
  }

  // One tile as a picture. `where` = {row, col} puts it in a grid (CSS grid lines, 1-based).
  function picture(tile, tileset, where) {
    const node = svg('svg', {
      viewBox: '-0.5 -0.5 1 1', class: 'tile-art', role: 'img', 'aria-label': name(tile), 'data-tile': tile,
    });
    const t = ART.tile;
    node.append(svg('rect', {
      x: -0.48, y: -0.48, width: 0.96, height: 0.96, rx: t.radius, fill: t.face, stroke: t.rim, 'stroke-width': 0.03,
    }));
    if (tile === WILD) {
      for (const [colour, poly] of ART.wild[tileset] || ART.wild.classic) {
        node.append(svg('polygon', { points: points(poly), fill: ART.paints[colour] }));
      }
    } else {
      const fill = ART.paints[tile[1]];
      for (const shape of ART.designs[tile[0]]) {
        if (shape.circle) {
          const [cx, cy, r] = shape.circle;
          node.append(svg('circle', { cx, cy, r, fill }));
        } else {
          node.append(svg('polygon', { points: points(shape.polygon), fill }));
        }
      }
    }
    if (where) place(node, where.row, where.col);
    return node;
  }

  // Mark a drawn thing as the grid's cell (row, col): data-row/data-col and its place in a CSS grid.
  function place(node, row, col, top = 0, left = 0) {
    node.setAttribute('data-row', String(row));
    node.setAttribute('data-col', String(col));
    node.style.gridRow = String(row - top + 1);
    node.style.gridColumn = String(col - left + 1);
    return node;
  }

  // A grid of tiles from cells [{row, col, tile}] (0-based from the top-left), sized to fit the
  // screen: the columns share the width, never more than `max` pixels each.
  function grid(cells, tileset, { label, max = 44 } = {}) {
    const rows = Math.max(0, ...cells.map((c) => c.row)) + 1;
    const cols = Math.max(0, ...cells.map((c) => c.col)) + 1;
    const box = document.createElement('div');
    box.className = 'tile-grid';
    box.setAttribute('role', 'group');
    box.setAttribute('aria-label', `${label || 'Tiles'}: ${rows} row${rows === 1 ? '' : 's'}, ${cols} column${cols === 1 ? '' : 's'}`);
    box.style.gridTemplateColumns = `repeat(${cols}, minmax(0, ${max}px))`;
    box.style.gridTemplateRows = `repeat(${rows}, auto)`;
    for (const cell of cells) box.append(picture(cell.tile, tileset, cell));
    return box;
  }

  window.PivitArt = { name, picture, grid, place, tilesOf, WILD };
})();
