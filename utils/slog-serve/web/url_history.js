// SPDX-License-Identifier: MIT
//
// url_history.js - keeps the URL fragment in step with the view, so that a
// link reopens it and the browser's back/forward move between views: a view
// that stays still for 300 ms is written to the URL, as a new history entry
// unless the previous entry is less than a second old (then it is replaced,
// so one wheel gesture is one entry); a file chosen in the drop-down is
// written at once as a new entry; a fragment changed from outside (back,
// forward, an edited or pasted link) is applied to the viewer.

import {KIND} from './api.js';
import {decodeUrlState, encodeUrlState} from './url_state.js';

const URL_SETTLE_MS = 300;
const HISTORY_MERGE_MS = 1000;

export class UrlHistory {
    constructor(viewer)
    {
        this.viewer = viewer;
        this.lastHash = null;
        this.lastPush = 0;
        this.timer = null;
        window.addEventListener('popstate', () => this.apply());
        window.addEventListener('hashchange', () => this.apply());
    }

    /** The viewer's state as url_state.js encodes it. */
    state()
    {
        const v = this.viewer;
        const p = v.picked;
        return {f: v.f, view: v.view, expanded: v.rows.expandedIds(), hidden: [...v.palette.hidden],
                scrollTop: v.scrollY, selection: v.selection,
                pick: p && {kind: p.kindCode, timeline: p.timeline, category: p.category, start: p.start,
                            end: p.end, depth: p.depth, timelineTo: p.kindCode === KIND.ARROW ? p.timelineTo : undefined}};
    }

    /** The viewer now shows what the URL says: nothing to write back. */
    applied()
    {
        this.lastHash = encodeUrlState(this.state());
    }

    schedule()
    {
        clearTimeout(this.timer);
        this.timer = setTimeout(() => this.write(), URL_SETTLE_MS);
    }

    /** Write the view to the URL now; @p push: always as a new history entry (a file switch). */
    write({push = false} = {})
    {
        clearTimeout(this.timer);
        const hash = encodeUrlState(this.state());
        if (hash === location.hash) {
            return;
        }
        const now = performance.now();
        if (push || now - this.lastPush > HISTORY_MERGE_MS) {
            history.pushState(null, '', hash);
        } else {
            history.replaceState(null, '', hash);
        }
        this.lastPush = now;
        this.lastHash = hash;
    }

    apply()
    {
        const v = this.viewer;
        if (location.hash === this.lastHash || !v.rows) {
            return;
        }
        clearTimeout(this.timer);
        const s = decodeUrlState(location.hash);
        if (s.f !== undefined && s.f !== v.f) {
            v.open(s.f, s);
        } else {
            v.applyState(s);
        }
    }
}
