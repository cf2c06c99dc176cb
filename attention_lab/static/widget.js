// static/js/notation-vocabulary.json
var notation_vocabulary_default = {
  about: `The closed notation vocabulary (notes: common.md). Read by app/notation.py (the Jinja filter \`math\`) and static/js/notation_core.js (setNotation). Each pattern is a regular expression that Python's re and JavaScript (flag u) read alike; the first match in the text wins, ties go to the earlier pattern. A tree is MathML: [element, child...] with text leaves; "$1", "$2" are the pattern's groups. "spoken" is the expression's accessible name (aria-label on its <math>): screen readers and axe read MathML's text unreliably inside a label or a button.`,
  patterns: [
    {
      name: "root of a size",
      regex: "√(d)_(model|ff|k|v)(?![A-Za-z0-9_])",
      tree: ["msqrt", ["msub", ["mi", "$1"], ["mi", "$2"]]],
      spoken: "square root of $1 $2"
    },
    {
      name: "root of a number",
      regex: "√([0-9]+(?:\\.[0-9]+)?)(?![A-Za-z0-9_])",
      tree: ["msqrt", ["mn", "$1"]],
      spoken: "square root of $1"
    },
    {
      name: "matrix",
      regex: "(?<![A-Za-z0-9_])(W)\\^([QKVO])(?![A-Za-z0-9_])",
      tree: ["msup", ["mi", "$1"], ["mi", "$2"]],
      spoken: "$1 $2"
    },
    {
      name: "power of e",
      regex: "(?<![A-Za-z0-9_])(e)\\^(−?[0-9]+(?:\\.[0-9]+)?)(?![A-Za-z0-9_])",
      tree: ["msup", ["mi", "$1"], ["mn", "$2"]],
      spoken: "$1 to the $2"
    },
    {
      name: "e to minus infinity",
      regex: "(?<![A-Za-z0-9_])(e)\\^−∞(?![A-Za-z0-9_])",
      tree: ["msup", ["mi", "$1"], ["mrow", ["mo", "−"], ["mi", "∞"]]],
      spoken: "$1 to the minus infinity"
    },
    {
      name: "e to a score",
      regex: "(?<![A-Za-z0-9_])(e)\\^(s)(?![A-Za-z0-9_])",
      tree: ["msup", ["mi", "$1"], ["mi", "$2"]],
      spoken: "$1 to the $2"
    },
    {
      name: "power of ten",
      regex: "(?<![A-Za-z0-9_.])(10)\\^(−?[0-9]+)(?![A-Za-z0-9_])",
      tree: ["msup", ["mn", "$1"], ["mn", "$2"]],
      spoken: "$1 to the $2"
    },
    {
      name: "size",
      regex: "(?<![A-Za-z0-9_])(d)_(model|ff|k|v)(?![A-Za-z0-9_])",
      tree: ["msub", ["mi", "$1"], ["mi", "$2"]],
      spoken: "$1 $2"
    },
    {
      name: "length",
      regex: "(?<![A-Za-z0-9_])(L)_([QK])(?![A-Za-z0-9_])",
      tree: ["msub", ["mi", "$1"], ["mi", "$2"]],
      spoken: "$1 $2"
    },
    {
      name: "numbered entry",
      regex: "(?<![A-Za-z0-9_])([qkvzxspa])_([0-9]+)(?![A-Za-z0-9_])",
      tree: ["msub", ["mi", "$1"], ["mn", "$2"]],
      spoken: "$1 $2"
    },
    {
      name: "largest weight",
      regex: "(?<![A-Za-z0-9_])(p)_(max)(?![A-Za-z0-9_])",
      tree: ["msub", ["mi", "$1"], ["mi", "$2"]],
      spoken: "$1 $2"
    },
    {
      name: "indexed entry",
      regex: "(?<![A-Za-z0-9_])([qkvzxspa])_([ij]{1,2})(?![A-Za-z0-9_])",
      tree: ["msub", ["mi", "$1"], ["mi", "$2"]],
      spoken: "$1 $2"
    }
  ]
};

// static/js/notation_core.js
var PATTERNS = notation_vocabulary_default.patterns.map((p) => ({
  regex: new RegExp(p.regex, "gu"),
  tree: p.tree,
  spoken: p.spoken
}));
function fill(tree, match) {
  if (typeof tree === "string") return tree.replace(/\$(\d)/g, (_, n) => match[Number(n)]);
  return [tree[0], ...tree.slice(1).map((child) => fill(child, match))];
}
function first(text, pos) {
  let best = null;
  for (const pattern of PATTERNS) {
    pattern.regex.lastIndex = pos;
    const match = pattern.regex.exec(text);
    if (match && (best === null || match.index < best.match.index)) best = { match, pattern };
  }
  return best;
}
function notationTokens(text) {
  const source = String(text ?? "");
  const out = [];
  let pos = 0;
  for (let found = first(source, 0); found; found = first(source, pos)) {
    const { match, pattern } = found;
    if (match.index > pos) out.push(["text", source.slice(pos, match.index)]);
    out.push(["math", fill(pattern.tree, match), match[0], fill(pattern.spoken, match)]);
    pos = match.index + match[0].length;
  }
  if (pos < source.length) out.push(["text", source.slice(pos)]);
  return out;
}
function spokenText(text) {
  return notationTokens(text).map((token) => token[0] === "text" ? token[1] : token[3]).join("");
}

// static/js/notation.js
var MATHML = "http://www.w3.org/1998/Math/MathML";
function mathNode(tree) {
  const el = document.createElementNS(MATHML, tree[0]);
  for (const child of tree.slice(1))
    el.append(typeof child === "string" ? document.createTextNode(child) : mathNode(child));
  return el;
}
function leaves(tree) {
  return tree.slice(1).map((child) => typeof child === "string" ? child : leaves(child)).join("");
}
function nodeOf([kind, value, source, spoken]) {
  if (kind === "text") return document.createTextNode(value);
  const math = document.createElementNS(MATHML, "math");
  math.setAttribute("alttext", source);
  math.setAttribute("aria-label", spoken);
  math.append(mathNode(value));
  return math;
}
function notationNodes(text) {
  return notationTokens(text).map(nodeOf);
}
var seenOf = /* @__PURE__ */ new Map();
var SEEN_MAX = 5e3;
function seenText(source) {
  let seen = seenOf.get(source);
  if (seen === void 0) {
    const tokens = notationTokens(source);
    seen = tokens.some(([kind]) => kind === "math") ? tokens.map(([kind, value]) => kind === "text" ? value : leaves(value)).join("") : null;
    if (seenOf.size >= SEEN_MAX) seenOf.clear();
    seenOf.set(source, seen);
  }
  return seen;
}
function setNotation(node, text) {
  const source = String(text ?? "");
  const seen = seenText(source);
  if (seen === null) {
    if (node.textContent !== source || node.children.length) node.textContent = source;
    if (node.dataset.notation !== void 0) delete node.dataset.notation;
    return;
  }
  if (node.dataset.notation === source && node.textContent === seen) return;
  node.replaceChildren(...notationTokens(source).map(nodeOf));
  node.dataset.notation = source;
}

// static/js/dom.js
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}
function setRich(node, text) {
  setNotation(node, text);
}

// static/js/grid_core.js
function moveCell(key, row, col, [rows, cols]) {
  const moves = {
    ArrowUp: [row - 1, col],
    ArrowDown: [row + 1, col],
    ArrowLeft: [row, col - 1],
    ArrowRight: [row, col + 1],
    Home: [row, 0],
    End: [row, cols - 1],
    PageUp: [0, col],
    PageDown: [rows - 1, col]
  };
  const next = moves[key];
  if (!next || next[0] < 0 || next[1] < 0 || next[0] >= rows || next[1] >= cols) return null;
  return next;
}
function numberText(value) {
  if (value === null || value === -Infinity) return "−∞";
  const text = String(value);
  return text.startsWith("-") ? `−${text.slice(1)}` : text;
}
function cellAt(desc, row, col) {
  if (!desc || row < 0 || col < 0 || row >= desc.shape[0] || col >= desc.shape[1]) return null;
  const value = desc.values[row][col];
  return {
    row,
    col,
    value: value === null ? -Infinity : value,
    text: desc.text?.[row]?.[col] ?? numberText(value),
    hover: desc.hover?.[row]?.[col] ?? null
  };
}
function usedCells(use, row, col) {
  const pick = (rule) => rule === "i" ? row : rule === "j" ? col : null;
  return [pick(use.row), pick(use.col)];
}
function outlineOf(desc) {
  return {
    rows: new Set(desc.outline?.rows ?? []),
    cols: new Set(desc.outline?.cols ?? []),
    cells: new Set((desc.outline?.cells ?? []).map(([i, j]) => `${i},${j}`))
  };
}
function cellLook(desc, outline, i, j) {
  const value = desc.values[i][j];
  const k = desc.color[i][j];
  const [bg, ink] = k >= 0 ? desc.palette[k] : ["", ""];
  return {
    value: value === null ? "-Infinity" : String(value),
    text: desc.text[i][j],
    bg,
    ink,
    blocked: k < 0,
    colOutlined: outline.cols.has(j),
    cellOutlined: outline.cells.has(`${i},${j}`)
  };
}
function tileEdges(desc, i, j) {
  const rows = desc.tiles?.rows ?? [];
  const cols = desc.tiles?.cols ?? [];
  return { top: i > 0 && rows.includes(i), left: j > 0 && cols.includes(j) };
}
var same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function changedCells(old, desc) {
  const [rows, cols] = desc.shape;
  const all = !old || old === desc || // the same object drawn again: it may have changed in place
  old.shape[0] !== rows || old.shape[1] !== cols || !same(old.palette, desc.palette) || !same(old.outline ?? null, desc.outline ?? null);
  const out = [];
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      if (all || old.values[i][j] !== desc.values[i][j] || old.text[i][j] !== desc.text[i][j] || old.color[i][j] !== desc.color[i][j]) {
        out.push([i, j]);
      }
    }
  }
  return out;
}
function axesText(desc) {
  const titles = [
    desc.row_title && `rows: ${desc.row_title}`,
    desc.col_title && `columns: ${desc.col_title}`
  ].filter(Boolean);
  return titles.length ? ` (${titles.join("; ")})` : "";
}
function rgba(hex) {
  const n = Number.parseInt(hex.slice(1), 16);
  return [n >> 16 & 255, n >> 8 & 255, n & 255, 255];
}
var BLOCKED_PIXEL = [128, 128, 128, 90];
var CODE_BASE = 49;
function canvasPixels(desc) {
  const [rows, cols] = desc.shape;
  const bytes = new Uint8ClampedArray(rows * cols * 4);
  const fills = desc.palette.map((p) => rgba(p[0]));
  let at = 0;
  if (typeof desc.codes === "string") {
    for (let c = 0; c < rows * cols; c++, at += 4) {
      const k = desc.codes.charCodeAt(c) - CODE_BASE;
      bytes.set(k >= 0 ? fills[k] : BLOCKED_PIXEL, at);
    }
    return bytes;
  }
  for (let i = 0; i < rows; i++) {
    const colours = desc.color[i];
    for (let j = 0; j < cols; j++) {
      const k = colours[j];
      bytes.set(k >= 0 ? fills[k] : BLOCKED_PIXEL, at);
      at += 4;
    }
  }
  return bytes;
}
function boxRect(row, col, [rows, cols], size) {
  return {
    top: (row === null ? 0 : row) * size,
    left: (col === null ? 0 : col) * size,
    width: (col === null ? cols : 1) * size,
    height: (row === null ? rows : 1) * size
  };
}
function cellSize(width, cols, min, max, rows = 0, height = Infinity) {
  const across = Math.floor(width / cols);
  const down = rows > 0 ? Math.floor(height / rows) : Infinity;
  return Math.max(min, Math.min(max, across, down));
}
function maskedAt(desc, i, j) {
  return Boolean(desc.masked?.[i]?.[j]);
}
function anyMasked(desc) {
  return (desc.masked ?? []).some((row) => Array.from(row).some(Boolean));
}
function legendOf(desc) {
  const [lo, hi] = desc.domain ?? [0, 1];
  const colors = desc.scale_colors ?? [];
  const masked = anyMasked(desc) ? desc.scale === "weights" ? "masked (weight 0)" : "masked (−∞, weight 0 after the softmax)" : null;
  return { low: numberText(lo), high: numberText(hi), colors, masked };
}

// static/js/grid.js
var described = /* @__PURE__ */ new WeakMap();
var optionsOf = /* @__PURE__ */ new WeakMap();
var CANVAS_MAX_CELL = 14;
var CANVAS_MIN_CELL = 2;
var CANVAS_MAX_HEIGHT = 720;
function labelInto(node, label, after = "") {
  const key = `${label ?? ""}\0${after}`;
  if (node.dataset.label === key) return;
  node.replaceChildren(...notationNodes(label ?? ""));
  if (after) node.append(after);
  node.dataset.label = key;
}
function cellInfo(el, row, col) {
  const desc = described.get(el);
  const cell = cellAt(desc, row, col);
  return cell && { desc, ...cell, element: el };
}
function scopeOf(el) {
  return optionsOf.get(el)?.scope ?? el.closest("[data-figure]") ?? document;
}
function clearUses(scope) {
  for (const node of scope.querySelectorAll(".grid .used")) node.classList.remove("used");
  for (const node of scope.querySelectorAll(".grid-cursor.used-box")) node.remove();
}
function outlineUses(scope, desc, row, col, near = null) {
  clearUses(scope);
  for (const use of desc.uses ?? []) {
    const selector = `[data-grid="${CSS.escape(use.grid)}"]`;
    const target = near?.querySelector(selector) ?? scope.querySelector(selector);
    if (!target) continue;
    const [r, c] = usedCells(use, row, col);
    if (target.tagName === "TABLE") {
      let cells = "td[data-row]";
      if (r !== null) cells += `[data-row="${r}"]`;
      if (c !== null) cells += `[data-col="${c}"]`;
      for (const td of target.querySelectorAll(cells)) td.classList.add("used");
    } else {
      boxOnCanvas(target, r, c, "used-box");
    }
  }
}
function report(el, row, col) {
  const info = cellInfo(el, row, col);
  const options = optionsOf.get(el) ?? {};
  const scope = scopeOf(el);
  if (info) outlineUses(scope, info.desc, row, col, el.closest(".panel-row"));
  else clearUses(scope);
  options.onCell?.(info);
}
function buildTable(desc) {
  const [rows, cols] = desc.shape;
  const table = document.createElement("table");
  table.className = "grid";
  const caption = table.createCaption();
  const name = document.createElement("span");
  name.className = "grid-label";
  const shape = document.createElement("span");
  shape.className = "grid-shape";
  const axes = document.createElement("span");
  axes.className = "visually-hidden";
  caption.append(name, " ", shape, axes);
  const head = table.createTHead().insertRow();
  head.append(Object.assign(document.createElement("td"), { className: "corner" }));
  for (let j = 0; j < cols; j++)
    head.append(Object.assign(document.createElement("th"), { scope: "col" }));
  const body = table.createTBody();
  for (let i = 0; i < rows; i++) {
    const tr = body.insertRow();
    tr.append(Object.assign(document.createElement("th"), { scope: "row" }));
    for (let j = 0; j < cols; j++) {
      const td = tr.insertCell();
      td.dataset.row = String(i);
      td.dataset.col = String(j);
      td.tabIndex = i === 0 && j === 0 ? 0 : -1;
    }
  }
  table.addEventListener("pointerover", (event) => {
    const td = event.target.closest?.("td[data-row]");
    if (td) report(table, Number(td.dataset.row), Number(td.dataset.col));
  });
  table.addEventListener("pointerleave", () => {
    if (!table.contains(document.activeElement)) report(table, -1, -1);
  });
  table.addEventListener("focusin", (event) => {
    const td = event.target.closest?.("td[data-row]");
    if (!td) return;
    for (const other of table.querySelectorAll('td[tabindex="0"]'))
      if (other !== td) other.tabIndex = -1;
    td.tabIndex = 0;
    report(table, Number(td.dataset.row), Number(td.dataset.col));
  });
  table.addEventListener("focusout", (event) => {
    if (!table.contains(event.relatedTarget)) report(table, -1, -1);
  });
  table.addEventListener("keydown", (event) => {
    const td = event.target.closest?.("td[data-row]");
    const next = td && moveCell(
      event.key,
      Number(td.dataset.row),
      Number(td.dataset.col),
      described.get(table).shape
    );
    if (!next) return;
    event.preventDefault();
    table.querySelector(`td[data-row="${next[0]}"][data-col="${next[1]}"]`)?.focus();
  });
  return table;
}
function updateTable(table, old, desc) {
  const [rows, cols] = desc.shape;
  labelInto(table.caption.querySelector(".grid-label"), desc.label);
  setText(table.caption.querySelector(".grid-shape"), `${rows} × ${cols}`);
  setRich(table.caption.querySelector(".visually-hidden"), axesText(desc));
  table.dataset.grid = desc.grid;
  const headCells = table.tHead.rows[0].cells;
  for (let j = 0; j < cols; j++) setRich(headCells[j + 1], desc.cols[j]);
  const bodyRows = table.tBodies[0].rows;
  const outline = outlineOf(desc);
  for (let i = 0; i < rows; i++) {
    setRich(bodyRows[i].cells[0], desc.rows[i]);
    bodyRows[i].classList.toggle("outlined", outline.rows.has(i));
  }
  for (const [i, j] of changedCells(old, desc)) {
    const td = bodyRows[i].cells[j + 1];
    const look = cellLook(desc, outline, i, j);
    if (td.dataset.value !== look.value) td.dataset.value = look.value;
    setText(td, look.text);
    if (td.dataset.bg !== look.bg) {
      td.style.backgroundColor = look.bg;
      td.style.color = look.ink;
      td.dataset.bg = look.bg;
    }
    td.classList.toggle("blocked", look.blocked);
    td.classList.toggle("col-outlined", look.colOutlined);
    td.classList.toggle("cell-outlined", look.cellOutlined);
  }
  if (!old || JSON.stringify(old.masked ?? null) !== JSON.stringify(desc.masked ?? null)) {
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++)
        bodyRows[i].cells[j + 1].classList.toggle("masked", maskedAt(desc, i, j));
  }
  if (!old || JSON.stringify(old.tiles ?? null) !== JSON.stringify(desc.tiles ?? null)) {
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++) {
        const edge = tileEdges(desc, i, j);
        const td = bodyRows[i].cells[j + 1];
        td.classList.toggle("tile-top", edge.top);
        td.classList.toggle("tile-left", edge.left);
      }
  }
}
function buildLegend() {
  const legend = document.createElement("p");
  legend.className = "grid-legend";
  const scale = Object.assign(document.createElement("span"), { className: "legend-scale" });
  const low = Object.assign(document.createElement("span"), { className: "legend-low" });
  const ramp = Object.assign(document.createElement("span"), { className: "legend-ramp" });
  ramp.setAttribute("aria-hidden", "true");
  const high = Object.assign(document.createElement("span"), { className: "legend-high" });
  const to = Object.assign(document.createElement("span"), {
    className: "visually-hidden",
    textContent: " to "
  });
  const intro = Object.assign(document.createElement("span"), {
    className: "visually-hidden",
    textContent: "Colour scale: "
  });
  scale.append(intro, low, ramp, to, high);
  const masked = Object.assign(document.createElement("span"), { className: "legend-masked" });
  const swatch = Object.assign(document.createElement("span"), { className: "swatch masked" });
  swatch.setAttribute("aria-hidden", "true");
  masked.append(swatch, document.createElement("span"));
  legend.append(scale, masked);
  return legend;
}
function updateLegend(host, desc) {
  let legend = host.querySelector(":scope > .grid-legend");
  if (!legend) {
    legend = buildLegend();
    host.append(legend);
  }
  const look = legendOf(desc);
  setText(legend.querySelector(".legend-low"), look.low);
  setText(legend.querySelector(".legend-high"), look.high);
  const [lo, mid, hi] = look.colors;
  const ramp = legend.querySelector(".legend-ramp");
  const fill2 = lo ? `linear-gradient(to right, ${lo}, ${mid}, ${hi})` : "";
  if (ramp.dataset.fill !== fill2) {
    ramp.style.backgroundImage = fill2;
    ramp.dataset.fill = fill2;
  }
  const masked = legend.querySelector(".legend-masked");
  masked.hidden = !look.masked;
  setText(masked.lastElementChild, look.masked ?? "");
}
function buildCanvas() {
  const wrap = document.createElement("div");
  wrap.className = "grid grid-canvas";
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "img");
  const title = document.createElement("p");
  title.className = "grid-title";
  const box = document.createElement("div");
  box.className = "canvas-box";
  const canvas = document.createElement("canvas");
  box.append(canvas);
  wrap.append(title, box);
  wrap.addEventListener("pointermove", (event) => {
    const size = Number(wrap.dataset.size);
    const rect = canvas.getBoundingClientRect();
    const row = Math.floor((event.clientY - rect.top) / size);
    const col = Math.floor((event.clientX - rect.left) / size);
    if (row !== Number(wrap.dataset.cursorRow) || col !== Number(wrap.dataset.cursorCol))
      setCursor(wrap, row, col);
  });
  wrap.addEventListener("pointerleave", () => setCursor(wrap, -1, -1));
  wrap.addEventListener("keydown", (event) => {
    const row = Math.max(0, Number(wrap.dataset.cursorRow ?? 0));
    const col = Math.max(0, Number(wrap.dataset.cursorCol ?? 0));
    const next = moveCell(event.key, row, col, described.get(wrap).shape);
    if (!next) return;
    event.preventDefault();
    setCursor(wrap, next[0], next[1]);
  });
  wrap.addEventListener(
    "focus",
    () => setCursor(
      wrap,
      Math.max(0, Number(wrap.dataset.cursorRow ?? 0)),
      Math.max(0, Number(wrap.dataset.cursorCol ?? 0))
    )
  );
  wrap.addEventListener("blur", () => setCursor(wrap, -1, -1));
  return wrap;
}
function boxOnCanvas(wrap, row, col, kind) {
  const desc = described.get(wrap);
  if (!desc) return;
  const size = Number(wrap.dataset.size);
  const box = document.createElement("div");
  box.className = `grid-cursor ${kind}`;
  const rect = boxRect(row, col, desc.shape, size);
  Object.assign(box.style, {
    top: `${rect.top}px`,
    left: `${rect.left}px`,
    width: `${rect.width}px`,
    height: `${rect.height}px`
  });
  wrap.querySelector(".canvas-box").append(box);
}
function setCursor(wrap, row, col) {
  for (const node of wrap.querySelectorAll(".grid-cursor.cursor")) node.remove();
  const inside = cellInfo(wrap, row, col);
  wrap.dataset.cursorRow = String(inside ? row : -1);
  wrap.dataset.cursorCol = String(inside ? col : -1);
  if (inside) boxOnCanvas(wrap, row, col, "cursor");
  report(wrap, inside ? row : -1, inside ? col : -1);
}
function updateCanvas(wrap, desc, host) {
  const [rows, cols] = desc.shape;
  wrap.dataset.grid = desc.grid;
  const title = wrap.querySelector(".grid-title");
  labelInto(title, desc.label, ` ${rows} × ${cols}`);
  const name = `${spokenText(desc.label)} (${rows} × ${cols}) drawn as colours, one block per cell: point at a cell or use the arrow keys for its value; the numbers are also in the tables.`;
  if (wrap.getAttribute("aria-label") !== name) wrap.setAttribute("aria-label", name);
  const key = `${rows}:${cols}:${resizes}`;
  if (wrap.dataset.sizeKey !== key) {
    const width = host.clientWidth || 600;
    wrap.dataset.size = String(
      cellSize(width, cols, CANVAS_MIN_CELL, CANVAS_MAX_CELL, rows, CANVAS_MAX_HEIGHT)
    );
    wrap.dataset.sizeKey = key;
  }
  const size = Number(wrap.dataset.size);
  const canvas = wrap.querySelector("canvas");
  if (canvas.width !== cols || canvas.height !== rows) {
    canvas.width = cols;
    canvas.height = rows;
  }
  if (canvas.dataset.size !== `${rows}:${cols}:${size}`) {
    canvas.style.width = `${cols * size}px`;
    canvas.style.height = `${rows * size}px`;
    canvas.dataset.size = `${rows}:${cols}:${size}`;
  }
  const g = canvas.getContext("2d");
  const image = g.createImageData(cols, rows);
  image.data.set(canvasPixels(desc));
  g.putImageData(image, 0, 0);
  for (const node of wrap.querySelectorAll(".grid-cursor.outline")) node.remove();
  for (const r of desc.outline?.rows ?? []) boxOnCanvas(wrap, r, null, "outline");
  for (const c of desc.outline?.cols ?? []) boxOnCanvas(wrap, null, c, "outline");
  for (const [r, c] of desc.outline?.cells ?? []) boxOnCanvas(wrap, r, c, "outline");
}
var resizes = 0;
window.addEventListener("resize", () => {
  resizes += 1;
});
function renderGrid(host, desc, options = {}) {
  const kind = desc.text ? "TABLE" : "DIV";
  let el = host.firstElementChild;
  const old = el ? described.get(el) : null;
  const reshaped = !old || old.shape[0] !== desc.shape[0] || old.shape[1] !== desc.shape[1];
  const rebuilt = !el || el.tagName !== kind || reshaped;
  if (rebuilt) {
    el = kind === "TABLE" ? buildTable(desc) : buildCanvas();
    host.replaceChildren(el);
  }
  described.set(el, desc);
  optionsOf.set(el, options);
  if (kind === "TABLE") updateTable(el, rebuilt ? null : old, desc);
  else updateCanvas(el, desc, host);
  updateLegend(host, desc);
  return el;
}

// static/js/panels.js
function signature(panels) {
  return panels.map(
    (row) => row.map(
      (item) => item.grid ? `g:${item.grid.grid}` : `o:${item.op ?? ""}:${item.arrow ?? ""}`
    ).join(",")
  ).join("|");
}
function build(root, panels) {
  const rows = panels.map((row) => {
    const div = document.createElement("div");
    div.className = "panel-row";
    for (const item of row) {
      if (item.grid) {
        const host = document.createElement("div");
        host.className = "grid-host";
        div.append(host);
      } else {
        const op = document.createElement("span");
        op.className = item.arrow ? "op arrow" : `op ${item.op === "×" ? "times" : "equals"}`;
        setRich(op, item.arrow ?? item.op);
        if (!item.arrow) op.setAttribute("aria-hidden", "true");
        div.append(op);
      }
    }
    return div;
  });
  root.replaceChildren(...rows);
}
function drawPanels(plot, fig, onCell) {
  let root = plot.querySelector(":scope > .panels");
  const sig = signature(fig.panels);
  if (!root) {
    root = document.createElement("div");
    root.className = "panels";
    plot.replaceChildren(root);
  }
  if (root.dataset.signature !== sig) {
    build(root, fig.panels);
    root.dataset.signature = sig;
  }
  const rows = root.children;
  fig.panels.forEach((row, r) => {
    const hosts = rows[r].querySelectorAll(":scope > .grid-host");
    let k = 0;
    for (const item of row) {
      if (item.grid) renderGrid(hosts[k++], item.grid, { onCell });
    }
  });
  return root;
}

// static/js/widget.js
function notebookTheme() {
  const light = document.body?.dataset?.jpThemeLight;
  if (light !== void 0) return light === "true" ? "light" : "dark";
  return globalThis.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}
function paint(model, root, plot, note) {
  const spec = model.get("spec");
  const theme = model.get("theme");
  root.style.colorScheme = theme;
  root.dataset.theme = theme;
  note.textContent = model.get("error");
  note.hidden = !model.get("error");
  if (spec?.panels) drawPanels(plot, spec);
  root.querySelector(".attention-lab-title").textContent = `Figure ${spec?.number ?? ""}. ${spec?.title ?? ""}`;
  root.dataset.painted = String(Number(root.dataset.painted ?? 0) + 1);
}
function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "attention-lab-widget";
  root.dataset.figure = "";
  const title = document.createElement("p");
  title.className = "attention-lab-title";
  const plot = document.createElement("div");
  const note = document.createElement("p");
  note.className = "attention-lab-error";
  note.setAttribute("role", "alert");
  root.append(title, plot, note);
  el.replaceChildren(root);
  const redraw = () => paint(model, root, plot, note);
  model.on("change:spec", redraw);
  model.on("change:error", redraw);
  redraw();
  const follow = () => {
    const theme = notebookTheme();
    if (theme === model.get("theme")) return;
    model.set("theme", theme);
    model.save_changes();
  };
  follow();
  const watcher = new MutationObserver(follow);
  if (document.body) {
    watcher.observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  }
  return () => {
    watcher.disconnect();
    model.off("change:spec", redraw);
    model.off("change:error", redraw);
  };
}
var widget_default = { render };
export {
  widget_default as default
};
