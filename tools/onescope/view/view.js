// onescope view: the page's own script (docs/view.md). No framework and no network: the runs
// are the JSON in <script id="onescope-data">, written by `onescope view`.
(function () {
  'use strict';
  var errors = [];
  function report(text) {
    errors.push(text);
    var e = document.getElementById('errors');
    if (e) e.textContent = errors.join('\n');
  }
  window.addEventListener('error', function (ev) { report('error: ' + ev.message); });

  var D = JSON.parse(document.getElementById('onescope-data').textContent);
  // The scene's size and place are fixed (the browser test maps positions to pixels).
  var W = 800, H = 560, PAD = 24, DOT = 5;
  // plot's palette (tools/plot/plot.c), so a body has one colour in a picture and a page.
  var PALETTE = [[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40],
    [148, 103, 189], [140, 86, 75], [227, 119, 194], [127, 127, 127],
    [188, 189, 34], [23, 190, 207], [0, 63, 92], [184, 134, 11]];
  var RAMPS = {
    viridis: [[68, 1, 84], [71, 44, 122], [59, 81, 139], [44, 113, 142], [33, 144, 141],
      [39, 173, 129], [92, 200, 99], [170, 220, 50], [253, 231, 37]],
    inferno: [[0, 0, 4], [31, 12, 72], [85, 15, 109], [136, 34, 106], [186, 54, 85],
      [227, 89, 51], [249, 140, 10], [249, 201, 50], [252, 255, 164]]
  };
  var SHAPES = ['circle', 'square', 'triangle', 'diamond'];

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function rgb(c) { return 'rgb(' + c[0] + ',' + c[1] + ',' + c[2] + ')'; }
  function ramp(name, t) {
    var s = RAMPS[name] || RAMPS.viridis;
    t = Math.max(0, Math.min(1, isFinite(t) ? t : 0)) * (s.length - 1);
    var i = Math.min(Math.floor(t), s.length - 2), f = t - i, c = [];
    for (var k = 0; k < 3; k++) c.push(Math.round(s[i][k] + (s[i + 1][k] - s[i][k]) * f));
    return c;
  }

  // ---- the steps: every kept step of every run, in order ----
  // Steps and ids are decimal strings (docs/view.md, "The data"): exact past 2^53, where a
  // JavaScript number is not. Steps are never negative, so they compare by length, then text.
  function cmpStep(a, b) {
    if (a.length !== b.length) return a.length - b.length;
    return a < b ? -1 : a > b ? 1 : 0;
  }
  var stepSet = Object.create(null);
  D.runs.forEach(function (r) {
    r.at = Object.create(null);
    r.steps.forEach(function (s, i) { r.at[s] = i; stepSet[s] = true; });
    r.cols = r.columns.length;
    r.colourOf = r.entities.map(function (e) { return PALETTE[e.c % PALETTE.length]; });
    r.byId = Object.create(null);
    r.entities.forEach(function (e, i) { r.byId[e.id] = i; });
    // a frame is groups "slot, count, count x cols numbers": where each present slot's numbers
    // start (slotAt), and the slots present (slotsIn)
    r.slotAt = [];
    r.slotsIn = [];
    r.frames.forEach(function (fr) {
      var at = Object.create(null), list = [], i = 0;
      while (i + 1 < fr.length) {
        var s = fr[i], n = fr[i + 1];
        i += 2;
        for (var k = 0; k < n && i < fr.length; k++, i += r.cols) { at[s + k] = i; list.push(s + k); }
      }
      r.slotAt.push(at);
      r.slotsIn.push(list);
    });
  });
  var steps = Object.keys(stepSet).sort(cmpStep);
  if (steps.length === 0) steps = ['0'];

  // position of entity e of run r at frame f, in metres (null: absent)
  function pos(r, f, e) {
    var fr = r.frames[f];
    if (!fr) return null;
    var o = r.slotAt[f][e];
    if (o === undefined || fr[o] === null) return null;
    return [fr[o] * r.scale, fr[o + 1] * r.scale, D.dims === 3 ? fr[o + 2] * r.scale : 0];
  }
  // the last frame of r at or before step s (-1: none yet)
  function frameAt(r, s) {
    var lo = 0, hi = r.steps.length - 1, best = -1;
    while (lo <= hi) {
      var m = (lo + hi) >> 1;
      if (cmpStep(r.steps[m], s) <= 0) { best = m; lo = m + 1; } else hi = m - 1;
    }
    return best;
  }

  // ---- the camera: screen right R and screen up U as vectors in the inputs' axes ----
  var up = D.up === 2 ? 2 : 1;
  // canonical z-up coordinates of an input vector, and back
  function canon(v) { return up === 2 ? [v[0], v[1], v[2]] : [v[0], -v[2], v[1]]; }
  function uncanon(c) { return up === 2 ? [c[0], c[1], c[2]] : [c[0], c[2], -c[1]]; }
  var cam = { yaw: 0, pitch: Math.PI / 2, name: 'top' };
  function basis() {
    if (D.dims !== 3) return { R: [1, 0, 0], U: [0, 1, 0] };
    var cy = Math.cos(cam.yaw), sy = Math.sin(cam.yaw), cp = Math.cos(cam.pitch),
      sp = Math.sin(cam.pitch);
    var R = [cy, sy, 0], F = [-sy, cy, 0];
    var U = [sp * F[0], sp * F[1], cp];
    return { R: uncanon(R), U: uncanon(U) };
  }
  function dot3(a, b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

  // bounds over every kept position (and the floor grid when a field is drawn)
  var lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
  function grow(p) {
    for (var k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); }
  }
  D.runs.forEach(function (r) {
    for (var f = 0; f < r.frames.length; f++)
      r.slotsIn[f].forEach(function (e) { var p = pos(r, f, e); if (p) grow(p); });
    if (r.field) { grow([0, 0, 0]); grow(D.dims === 3 ? [10, 0, 10] : [10, 10, 0]); }
  });
  if (!isFinite(lo[0])) { lo = [0, 0, 0]; hi = [1, 1, 1]; }
  var centre = [0, 1, 2].map(function (k) { return (lo[k] + hi[k]) / 2; });
  var map = null;
  function fit() {
    var b = basis(), s;
    if (D.dims !== 3) {
      var sx = Math.max(hi[0] - lo[0], 1e-9), sy = Math.max(hi[1] - lo[1], 1e-9);
      s = Math.min((W - 2 * PAD) / sx, (H - 2 * PAD) / sy);
    } else {
      // the box's diagonal fits whatever the orbit: the scale stays while dragging
      var d = Math.sqrt(Math.pow(hi[0] - lo[0], 2) + Math.pow(hi[1] - lo[1], 2) +
        Math.pow(hi[2] - lo[2], 2));
      s = Math.min(W - 2 * PAD, H - 2 * PAD) / Math.max(d, 1e-9);
    }
    map = { left: 0, top: 0, cx: W / 2, cy: H / 2, scale: s, centre: centre, R: b.R, U: b.U,
      view: D.dims === 3 ? cam.name : 'x-y' };
    canvas.setAttribute('data-mapping', JSON.stringify(map));
  }
  function project(p) {
    var d = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
    return [map.cx + map.scale * dot3(map.R, d), map.cy - map.scale * dot3(map.U, d)];
  }

  // ---- the page ----
  // the URL fragment: a part that does not decode, or a value of the wrong kind, is named in a
  // note and ignored (the page opens as without it)
  var params = Object.create(null), ignored = [];
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var i = kv.indexOf('=');
    if (kv === '') return;
    try {
      if (i <= 0) throw new URIError('no name=value');
      params[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
    } catch (e) {
      ignored.push(kv);
    }
  });
  ['step', 'trail'].forEach(function (k) {
    if (params[k] !== undefined && !/^[0-9]+$/.test(params[k])) {
      ignored.push(k + '=' + params[k]);
      delete params[k];
    }
  });
  if (params.step !== undefined) params.step = params.step.replace(/^0+(?=[0-9])/, '');
  var canvas = el('canvas', { id: 'scene', width: W, height: H });
  var ctx = canvas.getContext('2d');
  var side = el('div', { id: 'side' });
  side.style.left = W + 'px';
  var bottom = el('div', { id: 'bottom' });
  bottom.style.top = H + 'px';
  bottom.style.width = W + 'px';
  document.body.appendChild(canvas);
  document.body.appendChild(bottom);
  document.body.appendChild(side);
  document.title = D.title;
  side.appendChild(el('div', { id: 'title', title: D.title }, D.title));
  var legend = el('div', { id: 'legend' });
  side.appendChild(el('h3', {}, 'inputs'));
  side.appendChild(legend);
  D.runs.forEach(function (r, i) {
    var row = el('div', { 'class': 'run', 'data-run': i, title: r.name });
    row.appendChild(el('span', { 'class': 'shape' }, ['\u25cf', '\u25a0', '\u25b2', '\u25c6'][i % 4] + ' '));
    row.appendChild(el('span', { 'class': 'name' }, r.name));
    row.appendChild(el('span', {}, ' (' + r.kind + ', ' + r.entities.length + ' entities)'));
    legend.appendChild(row);
  });
  if (D.decimated) {
    side.appendChild(el('div', { id: 'decimated', 'class': 'note' },
      'decimated: ' + (D.every !== null ? 'every ' + D.every + ' steps' : 'each input\'s first and last step' +
        (D.diff && D.diff.diverged ? ' and the divergence' : '')) +
      ' kept (' + D.kept_steps + ' of ' + D.total_steps +
      ')' + (D.dense ? ', every step of ' + D.dense[0] + '..' + D.dense[1] : '')));
  }
  (D.notes || []).forEach(function (n) { side.appendChild(el('div', { 'class': 'note' }, n)); });
  if (ignored.length) {
    side.appendChild(el('div', { id: 'fragment', 'class': 'note' },
      'URL fragment: ignored ' + ignored.join(', ') + ' (docs/view.md)'));
  }
  side.appendChild(el('div', { id: 'errors' }));
  var info = el('div', { id: 'info' }, 'hover or click an entity');
  side.appendChild(el('h3', {}, 'entity'));
  side.appendChild(info);
  side.appendChild(el('h3', {}, 'colours'));
  var key = el('div', { id: 'key' });
  side.appendChild(key);
  var KEY_MAX = 64;
  // one row per entity and colour, over every input (a ghost's bodies share its replay's)
  var keyed = {}, keyRows = 0, keyLeft = 0;
  D.runs.forEach(function (r) {
    r.entities.forEach(function (e, k) {
      var tag = e.id + ' ' + e.c + ' ' + e.name;
      if (keyed[tag]) return;
      keyed[tag] = true;
      if (keyRows >= KEY_MAX) { keyLeft++; return; }
      keyRows++;
      var row = el('div', { 'data-id': e.id });
      var sw = el('span', { 'class': 'swatch' });
      sw.style.background = rgb(r.colourOf[k]);
      row.appendChild(sw);
      row.appendChild(el('span', { 'class': 'entity' }, e.name + ' (id ' + e.id + ')'));
      key.appendChild(row);
    });
  });
  if (keyLeft) key.appendChild(el('div', {}, '... ' + keyLeft + ' more'));

  // controls
  var controls = el('div', { 'class': 'controls' });
  bottom.appendChild(controls);
  function button(id, text, fn) {
    var b = el('button', { id: id, type: 'button' }, text);
    b.addEventListener('click', fn);
    controls.appendChild(b);
    return b;
  }
  var cur = 0, playing = null;
  button('back', '\u25c0 step', function () { go(cur - 1); });
  var play = button('play', 'play', function () { toggle(); });
  button('forward', 'step \u25b6', function () { go(cur + 1); });
  var label = el('span', { id: 'step' });
  controls.appendChild(label);
  if (D.dims === 3) {
    controls.appendChild(el('span', {}, ' view: '));
    [['top', Math.PI / 2, 0], ['side', 0, 0], ['front', 0, Math.PI / 2]].forEach(function (v) {
      button('view-' + v[0], v[0], function () { setView(v[0]); draw(); });
    });
  }
  var fieldSel = null, fieldRun = null;
  D.runs.forEach(function (r) { if (r.field && !fieldRun) fieldRun = r; });
  if (fieldRun) {
    controls.appendChild(el('span', {}, ' field: '));
    fieldSel = el('select', { id: 'field' });
    fieldSel.appendChild(el('option', { value: '' }, 'none'));
    fieldRun.field.forEach(function (fd, i) { fieldSel.appendChild(el('option', { value: i }, fd.name)); });
    fieldSel.value = params.field !== undefined ? params.field : '0';
    fieldSel.addEventListener('change', function () { draw(); });
    controls.appendChild(fieldSel);
  }
  var scrub = el('input', { id: 'scrub', type: 'range', min: 0, max: steps.length - 1, value: 0 });
  scrub.addEventListener('input', function () { go(Number(scrub.value)); });
  bottom.appendChild(scrub);
  var trail = Math.min(Number(params.trail !== undefined ? params.trail : D.trail), steps.length);

  function setView(name) {
    cam.name = name;
    if (name === 'top') { cam.yaw = 0; cam.pitch = Math.PI / 2; }
    if (name === 'side') { cam.yaw = 0; cam.pitch = 0; }
    if (name === 'front') { cam.yaw = Math.PI / 2; cam.pitch = 0; }
    fit();
  }
  function toggle() {
    if (playing) { clearInterval(playing); playing = null; play.textContent = 'play'; return; }
    play.textContent = 'pause';
    playing = setInterval(function () {
      if (cur >= steps.length - 1) { toggle(); return; }
      go(cur + 1);
    }, 40);
  }

  // ---- diff: the strip chart of the largest distance per step ----
  var strip = null, dist = null, highlight = Object.create(null);
  if (D.diff) {
    var a = D.runs[0], b = D.runs[1];
    dist = steps.map(function (s) {
      var fa = a.at[s], fb = b.at[s], m = null;
      if (fa === undefined || fb === undefined) return null;
      a.slotsIn[fa].forEach(function (i) {
        var j = b.byId[a.entities[i].id];
        if (j === undefined) return;
        var p = pos(a, fa, i), q = pos(b, fb, j);
        if (!p || !q) return;
        var d = Math.sqrt(Math.pow(p[0] - q[0], 2) + Math.pow(p[1] - q[1], 2) + Math.pow(p[2] - q[2], 2));
        if (m === null || d > m) m = d;
      });
      return m;
    });
    (D.diff.entities || []).forEach(function (id) { highlight[id] = true; });
    var dv = el('div', { id: 'diff' });
    bottom.appendChild(dv);
    var said = el('div', { id: 'diverge', 'data-diverged': D.diff.diverged ? 'true' : 'false' });
    if (D.diff.diverged) said.setAttribute('data-step', D.diff.step);
    said.textContent = D.diff.text;
    dv.appendChild(said);
    if (D.diff.diverged) {
      var jump = el('button', { id: 'jump', type: 'button' }, 'jump to step ' + D.diff.step);
      jump.addEventListener('click', function () { go(indexOf(D.diff.step)); });
      dv.appendChild(jump);
    }
    (D.diff.names || []).slice(0, 12).forEach(function (n) { dv.appendChild(el('div', { 'class': 'named' }, n)); });
    strip = el('canvas', { id: 'strip', width: W - 20, height: 90 });
    dv.appendChild(strip);
    strip.addEventListener('click', function (ev) {
      var x = ev.offsetX / strip.width;
      go(Math.round(x * (steps.length - 1)));
    });
  }
  function indexOf(s) {
    var lo2 = 0, hi2 = steps.length - 1;
    while (lo2 < hi2) { var m = (lo2 + hi2) >> 1; if (cmpStep(steps[m], s) < 0) lo2 = m + 1; else hi2 = m; }
    return lo2;
  }
  function drawStrip() {
    if (!strip) return;
    var g = strip.getContext('2d'), w = strip.width, h = strip.height, top = 0;
    dist.forEach(function (d) { if (d !== null && d > top) top = d; });
    g.fillStyle = '#fff';
    g.fillRect(0, 0, w, h);
    g.strokeStyle = rgb(PALETTE[0]);
    g.beginPath();
    var open = false;
    dist.forEach(function (d, i) {
      if (d === null) { open = false; return; }
      var x = steps.length > 1 ? i / (steps.length - 1) * (w - 1) : 0;
      var y = h - 4 - (top > 0 ? d / top : 0) * (h - 16);
      if (open) g.lineTo(x, y); else g.moveTo(x, y);
      open = true;
    });
    g.stroke();
    function at(i) { return steps.length > 1 ? i / (steps.length - 1) * (w - 1) : 0; }
    if (D.diff.diverged) {
      g.fillStyle = 'rgb(214,39,40)';
      g.fillRect(Math.round(at(indexOf(D.diff.step))) - 1, 0, 3, h);
    }
    g.fillStyle = '#000';
    g.fillRect(Math.round(at(cur)), 0, 1, h);
    g.fillStyle = '#333';
    g.fillText('largest distance ' + (top > 0 ? top.toPrecision(3) : '0') + ' ' + D.unit, 4, 10);
  }

  // ---- drawing ----
  function shape(g, kind, x, y, r) {
    g.beginPath();
    if (kind === 'circle') g.arc(x, y, r, 0, 2 * Math.PI);
    else if (kind === 'square') g.rect(x - r, y - r, 2 * r, 2 * r);
    else if (kind === 'triangle') { g.moveTo(x, y - r - 1); g.lineTo(x + r + 1, y + r); g.lineTo(x - r - 1, y + r); g.closePath(); }
    else { g.moveTo(x, y - r - 1); g.lineTo(x + r + 1, y); g.lineTo(x, y + r + 1); g.lineTo(x - r - 1, y); g.closePath(); }
  }
  function drawField(s) {
    if (!fieldSel || fieldSel.value === '') return;
    var fd = fieldRun.field[Number(fieldSel.value)], f = frameAt(fieldRun, s);
    if (f < 0 || !fd.values[f]) return;
    var vals = fd.values[f], cell = 1.25;
    function floor(x, y) { return D.dims === 3 ? [x, 0, y] : [x, y, 0]; }
    vals.forEach(function (v, i) {
      var q;
      if (fd.location === 'vertex') {
        var cx = (i % 9) * cell, cy = Math.floor(i / 9) * cell;
        var x0 = Math.max(cx - cell / 2, 0), x1 = Math.min(cx + cell / 2, 10);
        var y0 = Math.max(cy - cell / 2, 0), y1 = Math.min(cy + cell / 2, 10);
        q = [[x0, y0], [x1, y0], [x1, y1], [x0, y1]];
      } else {
        var c = i >> 1, x = (c % 8) * cell, y = Math.floor(c / 8) * cell;
        q = i % 2 === 0 ? [[x, y], [x + cell, y], [x, y + cell]]
          : [[x + cell, y], [x + cell, y + cell], [x, y + cell]];
      }
      ctx.beginPath();
      q.forEach(function (pt, k) {
        var p = project(floor(pt[0], pt[1]));
        if (k) ctx.lineTo(p[0], p[1]); else ctx.moveTo(p[0], p[1]);
      });
      ctx.closePath();
      ctx.fillStyle = rgb(ramp(fd.ramp, (v - fd.min) / Math.max(fd.max - fd.min, 1e-9)));
      ctx.fill();
    });
  }
  var picked = null, hovered = null;
  function draw() {
    var s = steps[cur];
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, W, H);
    drawField(s);
    // the box of the data, then the trails, then the entities on top of every trail
    ctx.strokeStyle = '#ddd';
    ctx.lineWidth = 1;
    ctx.setLineDash([]);
    var first = Math.max(0, cur - trail);
    D.runs.forEach(function (r, ri) {
      ctx.setLineDash(ri % 2 ? [5, 3] : []);
      // the run's frame at each step of the trail, and the entities present in any of them
      var fs = [], seen = Object.create(null), list = [];
      for (var i = first; i <= cur; i++) {
        var f = r.at[steps[i]];
        fs.push(f);
        if (f !== undefined)
          r.slotsIn[f].forEach(function (e) { if (!seen[e]) { seen[e] = true; list.push(e); } });
      }
      list.forEach(function (e) {
        ctx.strokeStyle = rgb(r.colourOf[e]);
        ctx.lineWidth = 1.5;
        ctx.beginPath();
        var open = false;
        fs.forEach(function (f) {
          var p = f === undefined ? null : pos(r, f, e);
          if (!p) { open = false; return; }
          var q = project(p);
          if (open) ctx.lineTo(q[0], q[1]); else ctx.moveTo(q[0], q[1]);
          open = true;
        });
        ctx.stroke();
      });
    });
    ctx.setLineDash([]);
    D.runs.forEach(function (r, ri) {
      var f = r.at[s];
      if (f === undefined) return;
      r.slotsIn[f].forEach(function (e) {
        var p = pos(r, f, e);
        if (!p) return;
        var q = project(p);
        ctx.fillStyle = rgb(r.colourOf[e]);
        shape(ctx, SHAPES[ri % 4], q[0], q[1], DOT);
        ctx.fill();
        var id = r.entities[e].id;
        if (highlight[id] || (picked && picked.r === ri && picked.e === e)) {
          ctx.strokeStyle = highlight[id] ? 'rgb(214,39,40)' : '#000';
          ctx.lineWidth = 2;
          shape(ctx, SHAPES[ri % 4], q[0], q[1], DOT + 3);
          ctx.stroke();
        }
      });
    });
    label.textContent = ' step ' + s + ' (' + (cur + 1) + ' of ' + steps.length + ')';
    label.setAttribute('data-step', s);
    scrub.value = cur;
    showInfo();
    drawStrip();
  }
  function go(i) {
    cur = Math.max(0, Math.min(steps.length - 1, i));
    draw();
  }
  function nearest(x, y) {
    var best = null, bd = (DOT + 4) * (DOT + 4), s = steps[cur];
    D.runs.forEach(function (r, ri) {
      var f = r.at[s];
      if (f === undefined) return;
      r.slotsIn[f].forEach(function (e) {
        var p = pos(r, f, e);
        if (!p) return;
        var q = project(p), d = (q[0] - x) * (q[0] - x) + (q[1] - y) * (q[1] - y);
        if (d <= bd) { bd = d; best = { r: ri, e: e }; }
      });
    });
    return best;
  }
  function showInfo() {
    var t = hovered || picked;
    if (!t) return;
    var r = D.runs[t.r], f = r.at[steps[cur]], ent = r.entities[t.e];
    var lines = [r.name, ent.name, 'id ' + ent.id, 'step ' + steps[cur]];
    var fr = f === undefined ? null : r.frames[f], o = f === undefined ? undefined : r.slotAt[f][t.e];
    if (!fr || o === undefined || fr[o] === null) lines.push('absent');
    else r.columns.forEach(function (c, k) {
      lines.push(c + ' ' + fr[o + k] + (r.units[k] ? ' ' + r.units[k] : ''));
    });
    info.textContent = lines.join('\n');
  }
  canvas.addEventListener('mousemove', function (ev) {
    if (dragging) return;
    hovered = nearest(ev.offsetX, ev.offsetY);
    if (hovered) showInfo();
  });
  canvas.addEventListener('click', function (ev) {
    picked = nearest(ev.offsetX, ev.offsetY);
    draw();
  });
  var dragging = null;
  canvas.addEventListener('mousedown', function (ev) {
    if (D.dims === 3) dragging = { x: ev.clientX, y: ev.clientY, yaw: cam.yaw, pitch: cam.pitch };
  });
  window.addEventListener('mouseup', function () { dragging = null; });
  window.addEventListener('mousemove', function (ev) {
    if (!dragging) return;
    cam.yaw = dragging.yaw - (ev.clientX - dragging.x) * 0.01;
    cam.pitch = Math.max(-Math.PI / 2, Math.min(Math.PI / 2, dragging.pitch + (ev.clientY - dragging.y) * 0.01));
    cam.name = 'orbit';
    fit();
    draw();
  });
  window.addEventListener('keydown', function (ev) {
    if (ev.key === 'ArrowRight') go(cur + 1);
    else if (ev.key === 'ArrowLeft') go(cur - 1);
    else if (ev.key === ' ') { toggle(); ev.preventDefault(); }
  });

  setView(params.view === 'side' || params.view === 'front' ? params.view : 'top');
  if (params.step !== undefined) go(indexOf(params.step));
  else go(0);
  document.body.setAttribute('data-ready', 'true');
})();
