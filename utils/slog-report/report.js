(function () {
  'use strict';
  function fmtNs(ns) {
    var a = Math.abs(ns), u = [[1e9, 's'], [1e6, 'ms'], [1e3, 'us'], [1, 'ns']];
    for (var i = 0; i < u.length; i++) {
      if (a >= u[i][0] || i === u.length - 1) {
        var v = ns / u[i][0];
        return (Math.round(v * 1000) / 1000) + u[i][1];
      }
    }
    return ns + 'ns';
  }
  function niceStep(span, n) {
    var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
    var m = [1, 2, 5, 10];
    for (var i = 0; i < m.length; i++) {
      if (m[i] * p >= raw) { return m[i] * p; }
    }
    return 10 * p;
  }
  function drawRows(ctx, d, L, cells) {
    var W = d.width, rows = d.rows;
    for (var i = 0; i < rows.length; i++) {
      var y = L.top + i * L.rowH, r = rows[i].r, x = 0;
      if (i % 2) { ctx.fillStyle = '#f4f5f8'; ctx.fillRect(L.left, y, W * L.sx, L.rowH); }
      for (var k = 0; k + 2 < r.length; k += 3) {
        var len = r[k], slot = r[k + 1], shade = r[k + 2];
        if (shade > 0) {
          ctx.globalAlpha = 0.3 + 0.7 * shade / d.shades;
          ctx.fillStyle = d.slots[slot].c;
          ctx.fillRect(L.left + x * L.sx, y, Math.max(len * L.sx, 0.5), L.rowH - L.gap);
        }
        for (var q = 0; q < len && x + q < W; q++) { cells[i * W + x + q] = slot * 16 + shade; }
        x += len;
      }
      ctx.globalAlpha = 1;
    }
  }
  function drawLabels(ctx, d, L) {
    var every = Math.max(1, Math.ceil(11 / L.rowH));
    ctx.save();
    ctx.beginPath(); ctx.rect(0, L.top - 4, L.left - 6, L.rowH * d.rows.length + 8); ctx.clip();
    ctx.fillStyle = '#222'; ctx.font = Math.min(12, Math.max(9, L.rowH - 3)) + 'px sans-serif';
    ctx.textBaseline = 'middle';
    for (var i = 0; i < d.rows.length; i += every) {
      ctx.fillText(d.rows[i].l, 4, L.top + (i + 0.5) * L.rowH);
    }
    ctx.restore();
  }
  function drawAxis(ctx, d, L) {
    var span = d.width * d.resolution_ns, step = niceStep(span, Math.max(2, Math.round(8 * L.sx)));
    ctx.strokeStyle = '#999'; ctx.fillStyle = '#333'; ctx.font = '11px sans-serif';
    ctx.textBaseline = 'alphabetic';
    for (var t = 0; t <= span; t += step) {
      var x = L.left + t / d.resolution_ns * L.sx;
      ctx.beginPath(); ctx.moveTo(x + 0.5, L.top - 6); ctx.lineTo(x + 0.5, L.top); ctx.stroke();
      var label = fmtNs(t), tw = ctx.measureText(label).width;
      ctx.fillText(label, x + 2 + tw > L.right ? x - 2 - tw : x + 2, L.top - 9);
    }
  }
  function tooltip(canvas, d, L, cells) {
    var tip = document.getElementById('overview-tip');
    canvas.addEventListener('mousemove', function (ev) {
      var b = canvas.getBoundingClientRect(), x = ev.clientX - b.left - L.left;
      var i = Math.floor((ev.clientY - b.top - L.top) / L.rowH), p = Math.floor(x / L.sx);
      if (!tip || i < 0 || i >= d.rows.length || p < 0 || p >= d.width) {
        if (tip) { tip.hidden = true; }
        return;
      }
      var c = cells[i * d.width + p], shade = c % 16, slot = (c - shade) / 16;
      tip.textContent = d.rows[i].l + ' \u00b7 ' + fmtNs(p * d.resolution_ns) + ' \u00b7 ' +
        (shade > 0 ? d.slots[slot].n + ', busy ~' + Math.round(100 * (shade - 1) / (d.shades - 1)) + '%' : 'idle');
      tip.style.left = (ev.clientX - b.left + 12) + 'px';
      tip.style.top = (ev.clientY - b.top + 12) + 'px';
      tip.hidden = false;
    });
    canvas.addEventListener('mouseleave', function () { if (tip) { tip.hidden = true; } });
  }
  function drawOverview() {
    var el = document.getElementById('overview-data');
    var canvas = document.getElementById('overview-canvas');
    if (!el || !canvas || !canvas.getContext) { return; }
    var d = JSON.parse(el.textContent), n = d.rows.length;
    var rowH = Math.max(2, Math.min(18, Math.floor(1000 / Math.max(1, n))));
    var room = canvas.parentNode ? canvas.parentNode.clientWidth : 0;
    var plot = room > 0 ? Math.max(200, Math.min(d.width, room - 230 - 12)) : d.width;
    var L = {left: 230, top: 26, rowH: rowH, gap: rowH >= 6 ? 1 : 0, sx: plot / d.width,
             right: 230 + plot + 12};
    var w = L.left + plot + 12, h = L.top + n * rowH + 6, dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(w * dpr); canvas.height = Math.round(h * dpr);
    canvas.style.width = w + 'px'; canvas.style.height = h + 'px';
    var ctx = canvas.getContext('2d');
    ctx.scale(dpr, dpr);
    ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, w, h);
    var cells = new Uint16Array(n * d.width);
    drawRows(ctx, d, L, cells);
    drawLabels(ctx, d, L);
    drawAxis(ctx, d, L);
    tooltip(canvas, d, L, cells);
    canvas.setAttribute('data-drawn-rows', String(n));
    document.body.setAttribute('data-overview', 'drawn');
  }
  function sortable(t) {
    if (!t.tHead || !t.tBodies.length) { return; }
    Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, col) {
      th.addEventListener('click', function () {
        var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);
        var asc = th.getAttribute('data-sort') !== 'asc';
        Array.prototype.forEach.call(t.tHead.rows[0].cells, function (o) { o.removeAttribute('data-sort'); });
        rows.sort(function (a, b) {
          var x = a.cells[col], y = b.cells[col];
          var vx = x && x.getAttribute('data-v'), vy = y && y.getAttribute('data-v');
          var c = vx !== null && vy !== null ? Number(vx) - Number(vy)
            : (x ? x.textContent : '').localeCompare(y ? y.textContent : '');
          return asc ? c : -c;
        });
        rows.forEach(function (r) { body.appendChild(r); });
        th.setAttribute('data-sort', asc ? 'asc' : 'desc');
      });
    });
  }
  drawOverview();
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), sortable);
})();
