/* SPDX-License-Identifier: MIT
 *
 * perfetto_intern.c - packet sequences (trusted_packet_sequence_id) and what
 * each keeps between packets: the interning tables of InternedData (event
 * names, categories, debug annotation names and string values, iid ->
 * string) and TracePacketDefaults (clock, track, extra counter tracks).
 * Clearing a sequence (SEQ_INCREMENTAL_STATE_CLEARED or the old bool)
 * empties all of it; its clocks stay until the next ClockSnapshot.
 * Import library, perfetto folder: public libslog headers, libc.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto.h"

/* InternedData fields used here and the entry messages' fields. */
#define ID_EVENT_CATEGORIES 1
#define ID_EVENT_NAMES 2
#define ID_ANNOTATION_NAMES 3
#define ID_ANNOTATION_STRINGS 29
#define ENTRY_IID 1
#define ENTRY_NAME 2

/* TracePacketDefaults / TrackEventDefaults */
#define DEF_CLOCK 58
#define DEF_TRACK_EVENT 11
#define TED_TRACK_UUID 11
#define TED_EXTRA_UUIDS 31
#define TED_EXTRA_DOUBLE_UUIDS 45

static void seq_init(pf_seq *s, uint32_t id)
{
    memset(s, 0, sizeof *s);
    s->id = id;
    s->thread_track = PF_NO_ID;
}

pf_seq *pf_seq_get(pf_importer *pf, uint32_t id)
{
    uint64_t at;
    if (pf_u64map_get(&pf->seq_index, id, &at)) {
        return &pf->seqs[at];
    }
    if (pf->nseqs == pf->capseqs) {
        const size_t cap = pf->capseqs ? pf->capseqs * 2 : 16;
        pf_seq *seqs = realloc(pf->seqs, cap * sizeof *seqs);
        if (seqs == NULL) {
            return NULL;
        }
        pf->seqs = seqs;
        pf->capseqs = cap;
    }
    if (pf_u64map_put(&pf->seq_index, id, pf->nseqs) != 0) {
        return NULL;
    }
    pf_count(pf, K_SEQUENCES, 1);
    seq_init(&pf->seqs[pf->nseqs], id);
    return &pf->seqs[pf->nseqs++];
}

void pf_seq_clear(pf_seq *s)
{
    pf_u64map_clear(&s->names);
    pf_u64map_clear(&s->cats);
    pf_u64map_clear(&s->ann_names);
    pf_u64map_clear(&s->ann_strings);
    s->strs.n = 0;
    pf_arena_reset(&s->text);
    s->has_default_clock = false;
    s->has_default_track = false;
    s->n_extra = 0;
    s->n_extra_double = 0;
    s->state_valid = true;
}

void pf_seq_free(pf_seq *s)
{
    pf_u64map_free(&s->names);
    pf_u64map_free(&s->cats);
    pf_u64map_free(&s->ann_names);
    pf_u64map_free(&s->ann_strings);
    pf_strvec_free(&s->strs);
    pf_arena_free(&s->text);
    free(s->extra_uuids);
    free(s->extra_double_uuids);
}

const char *pf_intern_lookup(const pf_seq *s, const pf_u64map *m, uint64_t iid)
{
    uint64_t at;
    return pf_u64map_get(m, iid, &at) && at < s->strs.n ? s->strs.v[at] : NULL;
}

/* One {iid, name} entry into table m. */
static int intern_entry(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f,
                        pf_u64map *m)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    uint64_t iid = 0;
    const uint8_t *name = NULL;
    size_t len = 0;
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == ENTRY_IID && e.wire == PB_WIRE_VARINT) {
            iid = e.value;
        } else if (e.num == ENTRY_NAME && e.wire == PB_WIRE_LEN) {
            name = e.data;
            len = e.len;
        }
    }
    if (rc != PB_END) {
        r->error = sub.error;
        r->error_offset = sub.error_offset;
        return PF_DAMAGED;
    }
    const char *copy = pf_arena_strdup(&s->text, name != NULL ? name : (const uint8_t *)"", len);
    const int64_t at = copy != NULL ? pf_strvec_push(&s->strs, copy) : -1;
    if (at < 0 || pf_u64map_put(m, iid, (uint64_t)at) != 0) {
        return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory (interned strings)");
    }
    return PF_OK;
}

/* The interning table an InternedData field feeds, NULL for others. */
static pf_u64map *table_for(pf_seq *s, const pb_field *e)
{
    if (e->wire != PB_WIRE_LEN) {
        return NULL;
    }
    switch (e->num) {
    case ID_EVENT_CATEGORIES:
        return &s->cats;
    case ID_EVENT_NAMES:
        return &s->names;
    case ID_ANNOTATION_NAMES:
        return &s->ann_names;
    case ID_ANNOTATION_STRINGS:
        return &s->ann_strings;
    default:
        return NULL;
    }
}

int pf_interned_data(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    pf_count(pf, K_INTERNED_PACKETS, 1);
    int rc;
    while ((rc = pb_next(&sub, &e)) == PB_OK) {
        pf_u64map *m = table_for(s, &e);
        if (m != NULL) {
            const int st = intern_entry(pf, s, &sub, &e, m);
            if (st != PF_OK) {
                return st;
            }
        }
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

/* Replace list (*v, *n) by the elements of the repeated field e. */
static int uuid_list(pf_importer *pf, uint64_t **v, size_t *n, size_t *cap, const pb_field *e,
                     bool first)
{
    pb_packed it;
    uint64_t x;
    if (pb_packed_init(&it, e, PB_WIRE_VARINT) != PB_OK) {
        return PF_DAMAGED;
    }
    if (first) {
        *n = 0;
    }
    int rc;
    while ((rc = pb_packed_next(&it, &x)) == PB_OK) {
        if (*n == *cap) {
            const size_t c = *cap ? *cap * 2 : 8;
            uint64_t *p = realloc(*v, c * sizeof *p);
            if (p == NULL) {
                return pf_fail(pf, SLOG_ENOMEM, UINT64_MAX, "Out of memory");
            }
            *v = p;
            *cap = c;
        }
        (*v)[(*n)++] = x;
    }
    return rc == PB_END ? PF_OK : PF_DAMAGED;
}

static int track_event_defaults(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    bool first_extra = true, first_double = true;
    int rc = PB_END, st = PF_OK;
    while (st == PF_OK && (rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == TED_TRACK_UUID && e.wire == PB_WIRE_VARINT) {
            s->has_default_track = true;
            s->default_track = e.value;
        } else if (e.num == TED_EXTRA_UUIDS) {
            st = uuid_list(pf, &s->extra_uuids, &s->n_extra, &s->cap_extra, &e, first_extra);
            first_extra = false;
        } else if (e.num == TED_EXTRA_DOUBLE_UUIDS) {
            st = uuid_list(pf, &s->extra_double_uuids, &s->n_extra_double,
                           &s->cap_extra_double, &e, first_double);
            first_double = false;
        }
    }
    return st != PF_OK ? st : rc == PB_END ? PF_OK : PF_DAMAGED;
}

int pf_defaults(pf_importer *pf, pf_seq *s, pb_reader *r, const pb_field *f)
{
    pb_reader sub;
    pb_field e;
    if (pb_sub(r, f, &sub) != PB_OK) {
        return PF_DAMAGED;
    }
    int rc = PB_END, st = PF_OK;
    while (st == PF_OK && (rc = pb_next(&sub, &e)) == PB_OK) {
        if (e.num == DEF_CLOCK && e.wire == PB_WIRE_VARINT) {
            s->has_default_clock = true;
            s->default_clock = (uint32_t)e.value;
        } else if (e.num == DEF_TRACK_EVENT && e.wire == PB_WIRE_LEN) {
            st = track_event_defaults(pf, s, &sub, &e);
        }
    }
    return st != PF_OK ? st : rc == PB_END ? PF_OK : PF_DAMAGED;
}
