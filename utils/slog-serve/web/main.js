// SPDX-License-Identifier: MIT
//
// main.js - the viewer: loads a file's info, timelines and categories, owns
// the view state (window, rows, selection, picked drawable), draws frames on
// requestAnimationFrame (the exact one when its answer arrives; the old answer
// stretched to the new window when the answer takes longer than a frame; a
// frame already drawn is not drawn twice), and wires the URL history,
// live-file following, legend, panels, navigation and the test hook
// (hook.js) together.

import {getJson, KIND, KIND_NAMES} from './api.js';
import {formatCount, formatIdList, formatWindow} from './format.js';
import {Geometry} from './geometry.js';
import {installHook} from './hook.js';
import {Legend} from './legend.js';
import {Navigation} from './navigation.js';
import {Palette} from './palette.js';
import {ArgsPanel} from './panel_args.js';
import {SearchPanel} from './panel_search.js';
import {StatsPanel} from './panel_stats.js';
import {FrameStretch, STRETCH_MIN_ITEMS} from './frame_stretch.js';
import {drawTimeline, pick, pickExpander} from './render.js';
import {drawRuler, RULER_HEIGHT} from './ruler.js';
import {TimelineRows} from './timeline_rows.js';
import {Tooltip} from './tooltip.js';
import {LiveFollow} from './live_follow.js';
import {UrlHistory} from './url_history.js';
import {decodeUrlState} from './url_state.js';
import {WindowLoader} from './window_loader.js';

const MIN_SPAN = 20;          // ticks: the deepest zoom
const PROVISIONAL_AFTER_MS = 16; // a frame at 60 Hz: a later answer gets a provisional frame first

const $ = (id) => document.getElementById(id);

class Viewer {
    constructor()
    {
        this.canvas = $('timeline');
        this.ruler = $('ruler');
        this.scroller = $('scroller');
        this.scrollY = 0; // scroller.scrollTop as of its last scroll event: reading it would lay the page out
        this.frames = 0;
        this.data = null;
        this.inexactSince = null; // when the view first lacked its answer (null: drawn exactly)
        this.lookAgain = false;   // an animation frame will look whether the answer came
        this.waiters = [];
        this.stretch = new FrameStretch();
        this.loader = new WindowLoader((w) => this.onWindow(w), (e) => this.showError(e));
        this.navigation = new Navigation(this, this.canvas, this.ruler);
        this.scroller.addEventListener('scroll', () => {
            this.scrollY = this.scroller.scrollTop;
            this.changed();
        });
        new ResizeObserver(() => this.resize()).observe(this.scroller);
        this.urlHistory = new UrlHistory(this);
        this.tooltip = new Tooltip(this, this.canvas);
        this.live = new LiveFollow(this);
        $('back').onclick = () => history.back();
        $('forward').onclick = () => history.forward();
        $('zoom-in').onclick = () => this.zoomBy(0.5);
        $('zoom-out').onclick = () => this.zoomBy(2);
        $('zoom-all').onclick = () => this.setView({t0: 0, t1: this.duration});
        $('file').onchange = () => this.switchFile(Number($('file').value));
        this.setupTabs();
    }

    setupTabs()
    {
        for (const tab of document.querySelectorAll('#tabs button')) {
            tab.onclick = () => this.showTab(tab.dataset.tab);
        }
    }

    showTab(name)
    {
        for (const tab of document.querySelectorAll('#tabs button')) {
            tab.classList.toggle('active', tab.dataset.tab === name);
        }
        for (const panel of document.querySelectorAll('.panel')) {
            panel.hidden = panel.id !== `panel-${name}`;
        }
    }

    async start()
    {
        this.files = await getJson('files');
        const note = (fi) => (fi.state === 'failed' ? ' (failed)' : fi.complete ? '' : ' (live)');
        $('file').replaceChildren(...this.files.map((fi) => new Option(`${fi.name}${note(fi)}`, fi.f)));
        const state = decodeUrlState(location.hash);
        // a file that failed at the server's start is listed, but not opened by default
        const ready = this.files.findIndex((fi) => fi.state !== 'failed');
        await this.open(state.f ?? Math.max(ready, 0), state);
    }

    /** The file drop-down chose @p f: open it as a new view of the URL history (Back returns). */
    async switchFile(f)
    {
        await this.open(f, {});
        this.urlHistory.write({push: true});
    }

    /** Open file @p f and apply @p state (a decoded URL state, maybe empty); a bad @p f is an error. */
    async open(f, state)
    {
        this.loader.cancel();
        if (!(f >= 0 && f < this.files.length)) {
            $('file').value = '';
            this.showError(new Error(`no file ${f}: this server has files 0\u2013${this.files.length - 1}; ` +
                                     'choose one above'));
            return;
        }
        this.f = f;
        $('file').value = String(f);
        const [info, timelines, categories] = await Promise.all([
            getJson('info', {f}), getJson('timelines', {f}), getJson('categories', {f})]);
        this.info = info;
        this.duration = Math.max(1, Number(info.duration));
        this.rows = new TimelineRows(timelines);
        this.rows.duration = this.duration; // counters end with the trace
        this.palette = new Palette(categories);
        this.palette.onChange(() => this.changed());
        this.legend = new Legend($('legend'), this.palette);
        this.argsPanel = new ArgsPanel($('panel-selected'), this);
        this.statsPanel = new StatsPanel($('panel-stats'), this);
        this.searchPanel = new SearchPanel($('panel-search'), this);
        this.data = null;
        this.view = {t0: 0, t1: this.duration};
        this.selection = null;
        this.picked = null;
        document.title = `${this.files[f]?.name ?? 'trace'} \u2013 slog viewer`;
        this.live.watch();
        this.applyState(state);
        this.resize();
    }

    applyState(s)
    {
        if (s.expanded) {
            this.rows.setExpanded(s.expanded);
        }
        this.palette.hidden = new Set(s.hidden || []); // a URL lists every hidden category
        this.legend.sync();
        this.view = this.clamp(s.view || this.view);
        this.selection = this.clampSelection(s.selection);
        this.updateSpacer();
        if (s.scrollTop !== undefined) {
            this.scrollTo(s.scrollTop);
        }
        this.statsPanel.show(this.selection);
        if (s.pick) {
            const arrow = s.pick.kind === KIND.ARROW; // an older link lacks its destination: looked up (completePick)
            this.setPicked({...s.pick, kindCode: s.pick.kind, of: s.pick.kind,
                            timelineTo: s.pick.timelineTo ?? (arrow ? undefined : s.pick.timeline), index: 0});
        } else if (this.picked) {
            this.setPicked(null);
        }
        this.urlHistory.applied();
        this.scheduleDraw();
    }

    clamp(v)
    {
        const want = v.t1 - v.t0;
        const span = Math.min(this.duration, Math.max(MIN_SPAN, want));
        let t0 = span === want ? v.t0 : (v.t0 + v.t1) / 2 - span / 2;
        t0 = Math.min(Math.max(0, t0), this.duration - span);
        return {t0, t1: t0 + span};
    }

    /** Range @p s inside the trace, or null when nothing of it is. */
    clampSelection(s)
    {
        const t0 = Math.max(0, s ? s.t0 : 0);
        const t1 = Math.min(this.duration, s ? s.t1 : 0);
        return t1 > t0 ? {t0, t1} : null;
    }

    setView(v)
    {
        this.view = this.clamp(v);
        this.changed();
    }

    zoomBy(factor)
    {
        const mid = (this.view.t0 + this.view.t1) / 2;
        const half = (this.view.t1 - this.view.t0) * factor / 2;
        this.setView({t0: mid - half, t1: mid + half});
    }

    changed()
    {
        this.scheduleDraw();
        this.urlHistory.schedule();
    }

    resize()
    {
        const dpr = window.devicePixelRatio || 1;
        const w = this.scroller.clientWidth;
        const h = this.scroller.clientHeight;
        for (const [c, ch] of [[this.canvas, h], [this.ruler, RULER_HEIGHT]]) {
            c.width = Math.round(w * dpr);
            c.height = Math.round(ch * dpr);
            c.style.width = `${w}px`;
            c.style.height = `${ch}px`;
            c.getContext('2d').setTransform(dpr, 0, 0, dpr, 0, 0);
        }
        this.cssWidth = w;
        this.cssHeight = h;
        this.updateSpacer();
        this.scheduleDraw();
    }

    updateSpacer()
    {
        if (!this.rows) {
            return;
        }
        $('spacer').style.height = `${Math.max(0, this.rows.totalHeight - (this.cssHeight || 0))}px`;
    }

    geometry()
    {
        return new Geometry(this.cssWidth || 1, this.cssHeight || 1, this.view, this.rows, this.scrollY);
    }

    /** The window request that draws geometry @p g exactly (null: nothing to ask). */
    request(g)
    {
        const cats = this.palette.queryFilter();
        if (cats === null || g.first >= g.last) {
            return null;
        }
        // at either end of the trace, one tick more: zero-length drawables there are inside
        const t0 = g.t0 <= 0 ? -1 : Math.floor(g.t0);
        const t1 = g.t1 >= this.duration ? this.duration + 1 : Math.max(t0 + 1, Math.ceil(g.t1));
        const ids = this.rows.queryIds(g.first, g.last);
        const rows = ids.length === this.rows.count ? '' : formatIdList(ids);
        return {t0, t1, px: Math.round(g.plotW), rows, ids, cats, epoch: this.epoch};
    }

    /** Something drawn changed: draw on the next animation frame, unless a frame is drawn before. */
    scheduleDraw()
    {
        this.dirty = true;
        if (!this.rafPending) {
            this.rafPending = true;
            requestAnimationFrame(() => {
                this.rafPending = false;
                if (this.dirty) {
                    this.frame();
                }
            });
        }
    }

    /**
     * Draw the view now.  A frame that is not exact asks for its answer
     * first, then waits for it up to a frame (awaitAnswer) before it draws
     * the old one stretched.
     */
    frame()
    {
        this.dirty = false;
        if (!this.rows) {
            return;
        }
        const g = this.geometry();
        const req = this.request(g);
        const key = req ? WindowLoader.key(this.f, req) : 'empty';
        const exact = !req || WindowLoader.covers(this.data, this.f, req);
        if (!exact) {
            this.loader.want(this.f, req);
            if (this.awaitAnswer()) {
                return;
            }
        } else {
            this.inexactSince = null; // only an exact frame ends the wait: a view that keeps moving draws provisionally every frame
        }
        const started = performance.now();
        drawRuler(this.ruler.getContext('2d'), g, this.info.ticks_per_second, this.selection);
        const layout = this.layoutKey(g, req);
        const stretched = req && !exact && this.data && this.data.n >= STRETCH_MIN_ITEMS
            ? this.stretch.take(this.canvas, g, layout) : null;
        drawTimeline({ctx: this.canvas.getContext('2d'), geometry: g, data: req && !stretched ? this.data : null,
                      stretched, palette: this.palette, selection: stretched ? null : this.selection,
                      picked: stretched ? null : this.picked});
        this.stretch.drawn(g, layout);
        this.frames++;
        this.lastDrawMs = performance.now() - started;
        this.showStatus(g, exact, req);
        if (exact) {
            this.settle(key);
        }
    }

    /**
     * The view has no answer yet: should the frame wait for it?  Yes during
     * the first PROVISIONAL_AFTER_MS of waiting, with a look again on a
     * later animation frame: an answer that comes within a frame is drawn
     * as it comes, and the provisional frame it would have replaced is not
     * drawn (on two cores, its drawing and compositing took the CPU the
     * answer needed: doc/PERFORMANCE.md, "Session 18").
     */
    awaitAnswer()
    {
        const now = performance.now();
        this.inexactSince ??= now;
        if (now - this.inexactSince >= PROVISIONAL_AFTER_MS) {
            return false;
        }
        if (!this.lookAgain) {
            this.lookAgain = true;
            requestAnimationFrame(() => {
                this.lookAgain = false;
                if (this.inexactSince !== null && !this.dirty) {
                    this.frame();
                }
            });
        }
        return true;
    }

    /** What must not change for the plot drawn last to be stretched to a new window (frame_stretch.js). */
    layoutKey(g, req)
    {
        return `${this.f}|${this.canvas.width}x${this.canvas.height}|${g.scrollTop}|${this.rows.version}|` +
               `${req ? req.cats : null}|${this.epoch}`;
    }

    /** A frame drew exactly what @p key asks: resolve goto() promises waiting for it. */
    settle(key)
    {
        this.drawnKey = key;
        const still = [];
        for (const w of this.waiters) {
            if (w.view.t0 === this.view.t0 && w.view.t1 === this.view.t1) {
                w.resolve(this.view);
            } else {
                still.push(w);
            }
        }
        this.waiters = still;
    }

    onWindow(w)
    {
        this.data = w;
        this.completePick(w);
        let grew = false;
        for (let i = 0; i < w.n; i++) {
            if (w.kind[i] === KIND.STATE || (w.kind[i] === KIND.RUN && w.of[i] === KIND.STATE)) {
                grew = this.rows.fitDepth(w.timeline[i], w.depth[i]) || grew;
            }
        }
        if (grew) {
            this.rows.layout();
            this.updateSpacer();
        }
        this.frame(); // now, not on the next animation frame: the answer is what was waited for
    }

    /** A picked arrow whose destination is unknown (a link without it): take it from window @p w's copy. */
    completePick(w)
    {
        const p = this.picked;
        if (!p || p.timelineTo !== undefined) {
            return;
        }
        for (let i = 0; i < w.n; i++) {
            if (w.kind[i] === p.kindCode && w.timeline[i] === p.timeline && w.category[i] === p.category &&
                w.start[i] === p.start && w.end[i] === p.end) {
                p.timelineTo = w.timelineTo[i];
                this.argsPanel.show(p);
                return;
            }
        }
    }

    showStatus(g, exact, req)
    {
        const w = this.data;
        $('window-label').textContent = formatWindow(g.t0, g.t1, this.info.ticks_per_second).join(' \u2013 ');
        $('status').textContent = !req ? this.nothingToAskWhy()
            : w ? `${formatCount(w.n)} items, ${formatCount(w.bytes / 1024)} KiB, ` +
            `fetch ${w.fetchMs.toFixed(0)} ms, decode ${w.decodeMs.toFixed(2)} ms, draw ` +
            `${this.lastDrawMs.toFixed(1)} ms${w.cut ? ', CUT (zoom in)' : ''}${exact ? '' : ' \u2026'}` : 'loading\u2026';
    }

    /** Why the view asks for no window (request() gave null): said in the status line. */
    nothingToAskWhy()
    {
        const i = this.info;
        if (Number(i.states) + Number(i.events) + Number(i.arrows) + Number(i.counters) === 0) {
            return 'no drawables in this file';
        }
        if (this.palette.queryFilter() === null) {
            return 'every category hidden: show some in the legend';
        }
        return 'no rows on screen';
    }

    showError(e)
    {
        $('status').textContent = `error: ${e.message}`;
    }

    /** Start a goto: resolves when a frame of exactly that window is drawn. */
    whenDrawn(view)
    {
        return new Promise((resolve) => {
            this.waiters.push({view, resolve});
            this.scheduleDraw();
        });
    }

    setSelection(sel, final)
    {
        this.selection = this.clampSelection(sel);
        this.scheduleDraw();
        if (final) {
            this.statsPanel.show(this.selection);
            if (this.selection) {
                this.showTab('stats');
            }
            this.urlHistory.schedule();
        }
    }

    zoomToSelection()
    {
        const s = this.selection || (this.picked && {t0: this.picked.start, t1: this.picked.end});
        if (s && s.t1 > s.t0) {
            this.setView({t0: s.t0, t1: s.t1});
        }
    }

    itemAt(i)
    {
        const w = this.data;
        return {index: i, kindCode: w.kind[i], of: w.of[i], timeline: w.timeline[i],
                timelineTo: w.timelineTo[i], category: w.category[i], start: w.start[i], end: w.end[i],
                depth: w.depth[i], count: w.count[i], inclusive: w.inclusive[i], value: w.value[i]};
    }

    pickAt(x, y)
    {
        const i = pick(this.geometry(), this.data, this.palette, x, y);
        this.setPicked(i >= 0 ? this.itemAt(i) : null);
    }

    zoomToItemAt(x, y)
    {
        const i = pick(this.geometry(), this.data, this.palette, x, y);
        if (i >= 0 && this.data.end[i] > this.data.start[i]) {
            const pad = (this.data.end[i] - this.data.start[i]) * 0.1;
            this.setView({t0: this.data.start[i] - pad, t1: this.data.end[i] + pad});
        }
    }

    /** Pick @p p (null: nothing); @p showArgs switches to the Selected tab. */
    setPicked(p, showArgs = true)
    {
        this.picked = p;
        if (p) {
            this.argsPanel.show(p);
            if (showArgs) {
                this.searchPanel.setCategory(p.category);
                this.showTab('selected');
            }
        } else {
            this.argsPanel.clear();
        }
        this.changed();
    }

    /** Show an API item (find, top): move the window to it and pick it, staying on the search tab. */
    focusItem(item)
    {
        let span = this.view.t1 - this.view.t0;
        const len = item.end - item.start;
        if (len > 0 && len * this.geometry().scale < 2) {
            span = len * 20; // too thin to see at this zoom: make it a twentieth of the window
        }
        if (len > span * 0.8) {
            this.setView({t0: item.start - len * 0.1, t1: item.end + len * 0.1});
        } else {
            const mid = (item.start + item.end) / 2;
            this.setView({t0: mid - span / 2, t1: mid + span / 2});
        }
        const kindCode = KIND_NAMES.indexOf(item.kind);
        this.setPicked({index: 0, kindCode, of: kindCode, timeline: item.timeline,
                        timelineTo: item.timeline_to ?? item.timeline, category: item.category,
                        start: item.start, end: item.end, depth: item.depth ?? 0,
                        count: item.count ?? 1, inclusive: item.inclusive ?? len, value: item.value ?? 0},
                       false);
        this.scrollToRow(item.timeline);
    }

    /** Scroll so that timeline @p id's row (or its collapsed ancestor's) is on screen. */
    scrollToRow(id)
    {
        const r = this.rows.rowOf[id];
        const g = this.geometry();
        if (r >= 0 && !(r >= g.first && r < g.last - 1)) {
            this.scrollTo(Math.max(0, this.rows.top[r] - this.cssHeight / 3));
        }
    }

    /** Scroll the rows to @p y pixels (the browser may clamp it). */
    scrollTo(y)
    {
        this.scroller.scrollTop = y;
        this.scrollY = this.scroller.scrollTop;
    }

    toggleRowAt(x, y)
    {
        const id = pickExpander(this.geometry(), x, y);
        if (id >= 0) {
            this.rows.toggle(id);
            this.updateSpacer();
            this.changed();
        }
    }
}

const viewer = new Viewer();
installHook(viewer);
viewer.start().catch((e) => viewer.showError(e));
