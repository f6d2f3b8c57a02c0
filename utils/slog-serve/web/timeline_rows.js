// SPDX-License-Identifier: MIT
//
// timeline_rows.js - the timeline hierarchy as rows on screen: which
// timelines are shown (a collapsed row hides its descendants and draws their
// items itself), how tall each row is (one lane per state depth seen so far),
// where each row sits (prefix sums, so 10^4 rows lay out in microseconds),
// and which rows a scroll position makes visible (binary search).  Only the
// visible rows are queried; no DOM and no drawing here.

export const LANE_HEIGHT = 16;
export const ROW_PAD = 4;
export const COUNTER_HEIGHT = 40;
const MAX_LANES = 12;
const COLLAPSED_MAX_LANES = 4;
export const TIMELINE_KIND_COUNTER = 5;
/** A collapsed row queries its hidden descendants only up to this many. */
const MAX_HIDDEN_QUERIED = 512;

export class TimelineRows {
    /** @param tl  the /api/timelines columns {id, parent, kind, name, sort_key} */
    constructor(tl)
    {
        const n = tl.id.length;
        this.count = n;
        this.name = tl.name;
        this.kind = Uint8Array.from(tl.kind);
        this.parent = Int32Array.from(tl.parent);
        this.children = Array.from({length: n}, () => []);
        this.roots = [];
        for (let i = 0; i < n; i++) {
            const p = this.parent[i];
            (p >= 0 && p < n && p !== i ? this.children[p] : this.roots).push(i);
        }
        const byKey = (a, b) => (tl.sort_key[a] - tl.sort_key[b]) || (a - b);
        this.roots.sort(byKey);
        this.children.forEach((c) => c.sort(byKey));
        this.lanes = new Uint8Array(n).fill(1);
        this.subtreeLanes = new Uint8Array(n).fill(1); // what a collapsed row must fit
        this.expanded = new Uint8Array(n);
        this.subtreeSize = this.computeSubtreeSizes();
        this.setDefaultExpansion();
    }

    computeSubtreeSizes()
    {
        const size = new Uint32Array(this.count).fill(1);
        for (const id of this.preorder().reverse()) {
            if (this.parent[id] >= 0 && this.parent[id] !== id) {
                size[this.parent[id]] += size[id];
            }
        }
        return size;
    }

    /** Every timeline, parents before children, siblings by sort key. */
    preorder()
    {
        const out = [];
        const stack = this.roots.slice().reverse();
        while (stack.length) {
            const id = stack.pop();
            out.push(id);
            const c = this.children[id];
            for (let k = c.length - 1; k >= 0; k--) {
                stack.push(c[k]);
            }
        }
        return out;
    }

    /** Small traces open fully expanded; big ones show their top level. */
    setDefaultExpansion()
    {
        this.expanded.fill(this.count <= 200 ? 1 : 0);
        this.layout();
    }

    hasChildren(id)
    {
        return this.children[id].length > 0;
    }

    /** Expanded timelines that have children (what the URL keeps). */
    expandedIds()
    {
        const ids = [];
        for (let i = 0; i < this.count; i++) {
            if (this.expanded[i] && this.hasChildren(i)) {
                ids.push(i);
            }
        }
        return ids;
    }

    setExpanded(ids)
    {
        this.expanded.fill(0);
        for (const id of ids) {
            if (id >= 0 && id < this.count) {
                this.expanded[id] = 1;
            }
        }
        this.layout();
    }

    toggle(id)
    {
        this.expanded[id] = this.expanded[id] ? 0 : 1;
        this.layout();
    }

    rowHeight(id)
    {
        if (this.kind[id] === TIMELINE_KIND_COUNTER) {
            return COUNTER_HEIGHT;
        }
        const lanes = this.expanded[id] || !this.hasChildren(id)
            ? this.lanes[id] : Math.min(COLLAPSED_MAX_LANES, this.subtreeLanes[id]);
        return ROW_PAD * 2 + LANE_HEIGHT * lanes;
    }

    /**
     * Recompute the displayed rows: `shown` (timeline ids in display order),
     * `indent`, `top` (prefix sums of heights, one more entry than rows) and
     * `rowOf` (each timeline's displayed row: its own, or the row of the
     * collapsed ancestor that hides it).
     */
    layout()
    {
        const shown = [];
        const indent = [];
        this.rowOf = new Int32Array(this.count).fill(-1);
        const stack = this.roots.slice().reverse().map((id) => [id, 0, -1]);
        while (stack.length) {
            const [id, depth, hiddenBy] = stack.pop();
            if (hiddenBy >= 0) {
                this.rowOf[id] = hiddenBy;
            } else {
                this.rowOf[id] = shown.length;
                shown.push(id);
                indent.push(depth);
            }
            const hide = hiddenBy >= 0 ? hiddenBy : (this.expanded[id] ? -1 : this.rowOf[id]);
            const c = this.children[id];
            for (let k = c.length - 1; k >= 0; k--) {
                stack.push([c[k], depth + 1, hide]);
            }
        }
        this.shown = Int32Array.from(shown);
        this.indent = Uint8Array.from(indent);
        this.top = new Float64Array(shown.length + 1);
        for (let r = 0; r < shown.length; r++) {
            this.top[r + 1] = this.top[r] + this.rowHeight(shown[r]);
        }
        this.totalHeight = this.top[shown.length];
        this.version = (this.version || 0) + 1; // what was drawn before this layout is stale
    }

    /** First displayed row whose bottom is below y (binary search). */
    rowAt(y)
    {
        let lo = 0;
        let hi = this.shown.length;
        while (lo < hi) {
            const mid = (lo + hi) >> 1;
            if (this.top[mid + 1] <= y) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Displayed rows [first, last) that meet the band [y0, y1). */
    visibleRange(y0, y1)
    {
        const first = this.rowAt(y0);
        return [first, Math.min(this.shown.length, Math.max(first, this.rowAt(y1 - 1) + 1))];
    }

    /**
     * Timeline ids to ask the server for to draw rows [first, last): the
     * rows themselves plus the hidden descendants that collapsed rows draw.
     */
    queryIds(first, last)
    {
        const ids = [];
        for (let r = first; r < last; r++) {
            const id = this.shown[r];
            ids.push(id);
            if (!this.expanded[id] && this.hasChildren(id) &&
                this.subtreeSize[id] <= MAX_HIDDEN_QUERIED) {
                this.collectDescendants(id, ids);
            }
        }
        return ids;
    }

    collectDescendants(id, out)
    {
        const stack = this.children[id].slice();
        while (stack.length) {
            const c = stack.pop();
            out.push(c);
            stack.push(...this.children[c]);
        }
    }

    /** Raise a timeline's lane count to fit @p depth; true when a row grew. */
    fitDepth(id, depth)
    {
        const want = Math.min(MAX_LANES, depth + 1);
        if (want <= this.lanes[id]) {
            return false;
        }
        this.lanes[id] = want;
        for (let a = id, guard = 0; a >= 0 && a < this.count && guard < 256; guard++) {
            this.subtreeLanes[a] = Math.max(this.subtreeLanes[a], want);
            a = this.parent[a] === a ? -1 : this.parent[a];
        }
        return true;
    }

    /** "Process / thread" path of a timeline, for panels. */
    path(id)
    {
        const names = [];
        for (let a = id, guard = 0; a >= 0 && a < this.count && guard < 64; guard++) {
            names.unshift(this.name[a]);
            a = this.parent[a] === a ? -1 : this.parent[a];
        }
        return names.join(' / ');
    }

    /** Row of a fold group (slog_reader_fold_row): 0 own, 1 parent, 2 top, 2+s block. */
    foldRow(id, fold)
    {
        if (fold === 0) {
            return id;
        }
        const p = this.parent[id];
        if (fold === 1) {
            return p >= 0 && p !== id && p < this.count ? p : id;
        }
        const top = this.topAncestor(id);
        return fold === 2 ? top : top >>> (fold - 2);
    }

    topAncestor(id)
    {
        if (!this.topOf) {
            this.topOf = new Int32Array(this.count);
            for (const t of this.preorder()) {
                const p = this.parent[t];
                this.topOf[t] = p >= 0 && p !== t && p < this.count ? this.topOf[p] : t;
            }
        }
        return this.topOf[id];
    }

    /** How many timelines a fold group holds (to turn its totals into a per-row density). */
    groupSize(fold, row)
    {
        this.groupSizes = this.groupSizes || new Map();
        let sizes = this.groupSizes.get(fold);
        if (!sizes) {
            sizes = new Map();
            for (let i = 0; i < this.count; i++) {
                const g = this.foldRow(i, fold);
                sizes.set(g, (sizes.get(g) || 0) + 1);
            }
            this.groupSizes.set(fold, sizes);
        }
        return sizes.get(row) || 1;
    }
}
